// A plain GEMM C = A B of given shapes, repeated, for measuring the practical GFLOP/s peak of a build
// (native or wasm) the same way the model's matrix products run. Returns a checksum so the work is kept.
#pragma once

namespace attnlab {

double gemm_probe(int m, int k, int n, int repeats);

}  // namespace attnlab
