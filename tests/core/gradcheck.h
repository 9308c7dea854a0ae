// Central finite differences in double precision, for checking every backward pass.
#pragma once
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "nn/rng.h"
#include "nn/tensor.h"

namespace attnlab::test {

// Compares analytic[i] with (f(p+h e_i) - f(p-h e_i)) / 2h for every entry of p.
inline void expect_gradient(const std::string& what, Mat<double>& p, const Mat<double>& analytic,
                            const std::function<double()>& f, double h = 1e-6, double tol = 1e-6) {
  ASSERT_EQ(p.rows(), analytic.rows()) << what;
  ASSERT_EQ(p.cols(), analytic.cols()) << what;
  double max_err = 0;
  for (Eigen::Index i = 0; i < p.size(); ++i) {
    const double orig = p.data()[i];
    p.data()[i] = orig + h;
    const double fp = f();
    p.data()[i] = orig - h;
    const double fm = f();
    p.data()[i] = orig;
    const double numeric = (fp - fm) / (2 * h);
    const double err = std::abs(numeric - analytic.data()[i]) / std::max(1.0, std::abs(numeric));
    max_err = std::max(max_err, err);
    EXPECT_LT(err, tol) << what << " entry " << i << ": analytic " << analytic.data()[i] << " numeric " << numeric;
  }
  // A gradient that is zero everywhere checks nothing.
  EXPECT_GT(analytic.cwiseAbs().maxCoeff(), 1e-8) << what << " gradient is identically zero";
}

// m [rows x T*B] with the columns that are padding (step t >= lengths[b] of column t*B + b) set to zero.
inline Mat<double> zero_padding(Mat<double> m, const std::vector<int>& lengths) {
  const int b_count = static_cast<int>(lengths.size());
  for (Eigen::Index k = 0; k < m.cols(); ++k)
    if (k / b_count >= lengths[k % b_count]) m.col(k).setZero();
  return m;
}

inline Mat<double> random_mat(Eigen::Index r, Eigen::Index c, Rng& rng, double scale = 0.5) {
  Mat<double> m(r, c);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = scale * rng.normal();
  return m;
}

}  // namespace attnlab::test
