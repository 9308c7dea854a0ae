#include "nn/gemm_probe.h"

#include "nn/matmul.h"

namespace attnlab {

double gemm_probe(int m, int k, int n, int repeats, bool eigen) {
  Mat<float> a = Mat<float>::Constant(m, k, 0.5f), b = Mat<float>::Constant(k, n, 0.25f), c(m, n);
  double checksum = 0;
  for (int r = 0; r < repeats; ++r) {
    c.setZero();
    if (eigen) c.noalias() += a * b;
    else matmul_acc(c, a, b);
    checksum += c(0, 0);
  }
  return checksum;
}

}  // namespace attnlab
