// A plain GEMM C = A B of given shapes, repeated, for measuring the practical GFLOP/s peak of a build
// (native or wasm): through matmul_acc as the model's products run, or through Eigen's product directly
// (eigen = true). Returns a checksum so the work is kept.
#pragma once

namespace attnlab {

double gemm_probe(int m, int k, int n, int repeats, bool eigen);

}  // namespace attnlab
