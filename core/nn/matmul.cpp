#include "nn/matmul.h"

#include <vector>

#include "nn/simd.h"

namespace attnlab {

namespace {

using namespace simd;

// C[i..i+8, 0..NR) += A[i..i+8, :] * Bp, where Bp is a packed [K x NR] row-major panel of B, so the
// broadcasts in the inner loop are loads at constant offsets from one pointer.
template <int NR>
inline void block8(int K, const float* A, int lda, const float* Bp, float* C, int ldc, int i) {
  v4 acc[NR][2];
  for (int j = 0; j < NR; ++j) {
    acc[j][0] = load(C + static_cast<long>(j) * ldc + i);
    acc[j][1] = load(C + static_cast<long>(j) * ldc + i + 4);
  }
  const float* a = A + i;
  for (int k = 0; k < K; ++k, a += lda, Bp += NR) {
    const v4 a0 = load(a), a1 = load(a + 4);
    for (int j = 0; j < NR; ++j) {
      const v4 b = splat(Bp[j]);
      acc[j][0] += a0 * b;
      acc[j][1] += a1 * b;
    }
  }
  for (int j = 0; j < NR; ++j) {
    store(C + static_cast<long>(j) * ldc + i, acc[j][0]);
    store(C + static_cast<long>(j) * ldc + i + 4, acc[j][1]);
  }
}

// One column of C, 32 rows at a time (matrix-vector products: the recurrent step with batch 1).
inline void block32x1(int K, const float* A, int lda, const float* B, float* C, int i) {
  v4 acc[8];
  for (int r = 0; r < 8; ++r) acc[r] = load(C + i + 4 * r);
  for (int k = 0; k < K; ++k) {
    const float* a = A + static_cast<long>(k) * lda + i;
    const v4 b = splat(B[k]);
    for (int r = 0; r < 8; ++r) acc[r] += load(a + 4 * r) * b;
  }
  for (int r = 0; r < 8; ++r) store(C + i + 4 * r, acc[r]);
}

void scalar_rows(int K, const float* A, int lda, const float* B, float* C, int i0, int i1) {
  for (int i = i0; i < i1; ++i) {
    float s = C[i];
    for (int k = 0; k < K; ++k) s += A[static_cast<long>(k) * lda + i] * B[k];
    C[i] = s;
  }
}

}  // namespace

void matmul_acc_kernel(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  if (N == 1) {
    int i = 0;
    for (; i + 32 <= M; i += 32) block32x1(K, A, lda, B, C, i);
    scalar_rows(K, A, lda, B, C, i, M);
    return;
  }
  std::vector<float> panel(static_cast<size_t>(K) * 4);
  int n = 0;
  for (; n + 4 <= N; n += 4) {
    const float* b = B + static_cast<long>(n) * ldb;
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < 4; ++j) panel[static_cast<size_t>(k) * 4 + j] = b[static_cast<long>(j) * ldb + k];
    float* c = C + static_cast<long>(n) * ldc;
    int i = 0;
    for (; i + 8 <= M; i += 8) block8<4>(K, A, lda, panel.data(), c, ldc, i);
    for (int j = 0; j < 4; ++j) scalar_rows(K, A, lda, b + static_cast<long>(j) * ldb, c + static_cast<long>(j) * ldc, i, M);
  }
  for (; n < N; ++n) {
    const float* b = B + static_cast<long>(n) * ldb;
    float* c = C + static_cast<long>(n) * ldc;
    int i = 0;
    for (; i + 8 <= M; i += 8) block8<1>(K, A, lda, b, c, ldc, i);
    scalar_rows(K, A, lda, b, c, i, M);
  }
}

}  // namespace attnlab
