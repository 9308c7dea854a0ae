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

// Fewer than 8 rows (a language model's logits for a short prompt: kernel rows = tokens, columns = the vocabulary):
// columns n..n+3 of C for every row, the four columns on the lanes; B's [4 x 4] blocks (4 columns, 4 values of k)
// are turned in registers (simd::transpose4). Each element is still summed over k in order (one accumulator,
// multiply then add), as in block8 and scalar_rows.
inline void few_rows_cols4(int M, int K, const float* A, int lda, const float* b, int ldb, float* c, int ldc) {
  const float *b0 = b, *b1 = b + ldb, *b2 = b + 2L * ldb, *b3 = b + 3L * ldb;
  v4 acc[7];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < 4; ++j) acc[i][j] = c[static_cast<long>(j) * ldc + i];
  int k = 0;
  for (; k + 4 <= K; k += 4) {
    v4 p0 = load(b0 + k), p1 = load(b1 + k), p2 = load(b2 + k), p3 = load(b3 + k);
    transpose4(p0, p1, p2, p3);  // p_q = B[k + q, n..n+3]
    const float* a = A + static_cast<long>(k) * lda;
    for (int i = 0; i < M; ++i) {
      acc[i] += splat(a[i]) * p0;
      acc[i] += splat(a[i + lda]) * p1;
      acc[i] += splat(a[i + 2L * lda]) * p2;
      acc[i] += splat(a[i + 3L * lda]) * p3;
    }
  }
  for (; k < K; ++k) {
    const v4 p = v4{b0[k], b1[k], b2[k], b3[k]};
    const float* a = A + static_cast<long>(k) * lda;
    for (int i = 0; i < M; ++i) acc[i] += splat(a[i]) * p;
  }
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < 4; ++j) c[static_cast<long>(j) * ldc + i] = acc[i][j];
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
  if (M < 8) {
    for (; n + 4 <= N; n += 4)
      few_rows_cols4(M, K, A, lda, B + static_cast<long>(n) * ldb, ldb, C + static_cast<long>(n) * ldc, ldc);
    for (; n < N; ++n) scalar_rows(K, A, lda, B + static_cast<long>(n) * ldb, C + static_cast<long>(n) * ldc, 0, M);
    return;
  }
  for (; n + 4 <= N; n += 4) {
    const float* b = B + static_cast<long>(n) * ldb;
    for (int k = 0; k < K; ++k)
      for (int j = 0; j < 4; ++j) panel[static_cast<size_t>(k) * 4 + j] = b[static_cast<long>(j) * ldb + k];
    float* c = C + static_cast<long>(n) * ldc;
    int i = 0;
    for (; i + 8 <= M; i += 8) block8<4>(K, A, lda, panel.data(), c, ldc, i);
    if (i < M) few_rows_cols4(M - i, K, A + i, lda, b, ldb, c + i, ldc);  // the last rows, columns on the lanes
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
