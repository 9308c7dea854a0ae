// C += A * B for column-major float blocks. Natively this is Eigen's GEMM (vectorised for the host).
// Under WebAssembly a register-blocked loop nest on wasm SIMD is used instead (written when Eigen 3.4 had no
// SIMD there; it now runs its SSE path, CMakeLists.txt): 8 rows x 4 columns of C accumulate in registers while
// K streams (fewer than 8 rows: every row x 4 columns, the columns on the lanes), and every element is summed
// over k in order whatever the shape, so a row's value does not depend on how many rows are multiplied with it
// (docs/BENCHMARKS.md).
// Double precision always uses Eigen (it only serves gradient checks).
#pragma once
#include <type_traits>

#include "nn/tensor.h"

namespace attnlab {

// Raw kernel: C[MxN] += A[MxK] * B[KxN]; leading dimensions lda, ldb, ldc.
void matmul_acc_kernel(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc);

template <class DerivedC, class DerivedA, class DerivedB>
inline void matmul_acc(Eigen::MatrixBase<DerivedC> const& c_, const Eigen::MatrixBase<DerivedA>& a,
                       const Eigen::MatrixBase<DerivedB>& b) {
  auto& c = const_cast<Eigen::MatrixBase<DerivedC>&>(c_);
#if defined(__wasm__)
  using S = typename DerivedC::Scalar;
  if constexpr (std::is_same_v<S, float> && !DerivedA::IsRowMajor && !DerivedB::IsRowMajor &&
                !DerivedC::IsRowMajor && DerivedA::InnerStrideAtCompileTime == 1 &&
                DerivedB::InnerStrideAtCompileTime == 1 && DerivedC::InnerStrideAtCompileTime == 1) {
    matmul_acc_kernel(static_cast<int>(a.rows()), static_cast<int>(b.cols()), static_cast<int>(a.cols()),
                      a.derived().data(), static_cast<int>(a.derived().outerStride()), b.derived().data(),
                      static_cast<int>(b.derived().outerStride()), c.derived().data(),
                      static_cast<int>(c.derived().outerStride()));
    return;
  }
#endif
  c.derived().noalias() += a.derived() * b.derived();
}

// C += A^T * B and C += A * B^T. Natively Eigen reads the transposed operand in place; in wasm it is
// copied once into plain column-major storage for the kernel.
template <class DerivedC, class DerivedA, class DerivedB>
inline void matmul_acc_tn(Eigen::MatrixBase<DerivedC> const& c_, const Eigen::MatrixBase<DerivedA>& a,
                          const Eigen::MatrixBase<DerivedB>& b) {
#if defined(__wasm__)
  using S = typename DerivedA::Scalar;
  matmul_acc(c_, Mat<S>(a.transpose()), b);
#else
  const_cast<Eigen::MatrixBase<DerivedC>&>(c_).derived().noalias() += a.derived().transpose() * b.derived();
#endif
}

template <class DerivedC, class DerivedA, class DerivedB>
inline void matmul_acc_nt(Eigen::MatrixBase<DerivedC> const& c_, const Eigen::MatrixBase<DerivedA>& a,
                          const Eigen::MatrixBase<DerivedB>& b) {
#if defined(__wasm__)
  using S = typename DerivedB::Scalar;
  matmul_acc(c_, a, Mat<S>(b.transpose()));
#else
  const_cast<Eigen::MatrixBase<DerivedC>&>(c_).derived().noalias() += a.derived() * b.derived().transpose();
#endif
}

}  // namespace attnlab
