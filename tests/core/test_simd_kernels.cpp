// The wasm GEMM kernel (compiled and tested natively here too) against Eigen's product, on shapes that
// exercise every remainder path: rows not a multiple of 8 or 32 (fewer than 8: columns on the lanes), 1..13
// columns, padded leading dimensions.
#include <gtest/gtest.h>

#include "nn/matmul.h"
#include "nn/rng.h"
#include "nn/simd.h"

namespace attnlab {
namespace {

TEST(MatmulKernel, MatchesEigenOnAllRemainderShapes) {
  Rng rng(9);
  for (int M : {1, 2, 5, 7, 8, 31, 32, 45, 512})
    for (int N : {1, 2, 3, 4, 5, 9, 13})
      for (int K : {1, 3, 128}) {
        Mat<float> A(M + 3, K), B(K + 2, N), C(M + 1, N);  // padded leading dimensions
        for (Eigen::Index i = 0; i < A.size(); ++i) A.data()[i] = float(rng.normal());
        for (Eigen::Index i = 0; i < B.size(); ++i) B.data()[i] = float(rng.normal());
        for (Eigen::Index i = 0; i < C.size(); ++i) C.data()[i] = float(rng.normal());
        Mat<float> expected = C;
        expected.topRows(M).noalias() += A.topRows(M) * B.topRows(K);
        matmul_acc_kernel(M, N, K, A.data(), static_cast<int>(A.rows()), B.data(), static_cast<int>(B.rows()),
                          C.data(), static_cast<int>(C.rows()));
        EXPECT_LT((C - expected).cwiseAbs().maxCoeff(), 1e-4f * std::sqrt(float(K))) << M << "x" << N << "x" << K;
        EXPECT_EQ(C.bottomRows(1), expected.bottomRows(1)) << "row past M must be untouched";
      }
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

TEST(SimdTanh, WithinAFewUlpOfStdTanhEverywhere) {
  double max_err = 0;
  for (int k = -200000; k <= 200000; ++k) {
    const float x = k * 1e-4f;  // [-20, 20]
    const float got = simd::tanh(simd::splat(x))[2];
    max_err = std::max(max_err, std::abs(double(got) - std::tanh(double(x))));
  }
  EXPECT_LT(max_err, 5e-7);
  EXPECT_EQ(simd::tanh(simd::splat(100.f))[0], 1.f);
  EXPECT_EQ(simd::tanh(simd::splat(-100.f))[3], -1.f);
  EXPECT_EQ(simd::tanh(simd::splat(1e-5f))[1], 1e-5f);
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

// The transformer's softmax and GELU (float) run on these under wasm and natively.
TEST(SimdExp, WithinAFewUlpOfStdExpOverTheClampedRange) {
  double max_rel = 0;
  for (int k = -870000; k <= 880000; ++k) {
    const float x = k * 1e-4f;  // [-87, 88]
    const float got = simd::exp(simd::splat(x))[1];
    const double want = std::exp(double(x));
    max_rel = std::max(max_rel, std::abs(double(got) - want) / want);
  }
  EXPECT_LT(max_rel, 3e-7);  // about 2.5 ulp
  EXPECT_EQ(simd::exp(simd::splat(0.f))[0], 1.f);
  EXPECT_EQ(simd::exp(simd::splat(-88.f))[2], 0.f);
  EXPECT_EQ(simd::exp(simd::splat(-1e30f))[3], 0.f);
  const simd::v4 mixed = simd::exp(simd::v4{-1.f, 0.5f, -20.f, 3.f});
  EXPECT_NEAR(mixed[0], std::exp(-1.f), 1e-7f);
  EXPECT_NEAR(mixed[1], std::exp(0.5f), 1e-6f);
  EXPECT_NEAR(mixed[2], std::exp(-20.f), 1e-14f);
  EXPECT_NEAR(mixed[3], std::exp(3.f), 1e-5f);
}

TEST(SimdErf, WithinAFewUlpOfStdErfEverywhere) {
  double max_err = 0;
  for (int k = -100000; k <= 100000; ++k) {
    const float x = k * 1e-4f;  // [-10, 10]
    const float got = simd::erf(simd::splat(x))[0];
    max_err = std::max(max_err, std::abs(double(got) - std::erf(double(x))));
  }
  EXPECT_LT(max_err, 5e-7);
  EXPECT_EQ(simd::erf(simd::splat(0.f))[0], 0.f);
}

}  // namespace
}  // namespace attnlab
