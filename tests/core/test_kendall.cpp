// Tests for core/metrics/kendall: tau-b and the asymptotic p-value against hand-computed cases and values
// published in scipy's own docs/tests (scipy is not installed here, so none were generated locally).
#include "metrics/kendall.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace attnlab {
namespace {

using V = std::vector<double>;

TEST(Kendall, HandComputedPermutation) {
  // x = 1 2 3 4, y = 1 3 2 4: 6 pairs, one discordant (2,3) -> C = 5, D = 1, S = 4, tau = 4/6.
  // No ties: var = n(n-1)(2n+5)/18 = 4*3*13/18 = 8.6667, z = 4/sqrt(8.6667) = 1.358732,
  // p = erfc(z/sqrt 2) = 0.174231388248025 (python3: math.erfc(1.3587324409735149/math.sqrt(2))).
  const KendallResult r = kendall_tau({1, 2, 3, 4}, {1, 3, 2, 4});
  EXPECT_EQ(r.n, 4);
  EXPECT_NEAR(r.tau, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(r.p, 0.17423138824802512, 1e-12);
}

TEST(Kendall, HandComputedTieCase) {
  // x = 1 2 2 3, y = 1 2 3 4: pair (2,3) tied in x, the other 5 concordant. S = 5, n0 = 6, n1 = 1, n2 = 0,
  // tau_b = 5 / sqrt((6-1)(6-0)) = 5/sqrt(30) = 0.912870929175277.
  // var = (v0 - vt - vu)/18 + v1 + v2 = (4*3*13 - 2*1*9 - 0)/18 + 2*1*0/12 + 0 = 138/18 = 7.6667,
  // z = 5/sqrt(7.6667) = 1.805788, p = erfc(z/sqrt 2) = 0.0709514924273057.
  const KendallResult r = kendall_tau({1, 2, 2, 3}, {1, 2, 3, 4});
  EXPECT_NEAR(r.tau, 5.0 / std::sqrt(30.0), 1e-12);
  EXPECT_NEAR(r.p, 0.07095149242730567, 1e-12);
}

TEST(Kendall, HandComputedTripleTiesUseEveryVarianceTerm) {
  // x = 1 1 1 2 3, y = 1 1 1 3 2. The three tied points tie in both (3 pairs); the 6 pairs between them and
  // the last two points are concordant; the last pair (2,3)/(3,2) is discordant. C = 6, D = 1, S = 5,
  // n0 = 10, n1 = n2 = 3, tau_b = 5 / sqrt(7 * 7) = 5/7.
  // var: v0 = 5*4*15 = 300, vt = vu = 3*2*11 = 66 -> (300 - 132)/18 = 9.3333;
  //      v1 = 2*3*3/(5*4) = 0.9;  v2 = (3*2*1)*(3*2*1)/(9*5*4*3) = 36/540 = 0.0667;  var = 10.3.
  // z = 5/sqrt(10.3) = 1.557942, p = erfc(z/sqrt 2) = 0.11924690720140453 (python3 math.erfc).
  const KendallResult r = kendall_tau({1, 1, 1, 2, 3}, {1, 1, 1, 3, 2});
  EXPECT_NEAR(r.tau, 5.0 / 7.0, 1e-12);
  EXPECT_NEAR(r.p, 0.11924690720140453, 1e-12);
}

TEST(Kendall, ScipyDocExampleWithTies) {
  // scipy.stats.kendalltau docstring and scipy/stats/tests/test_stats.py::test_kendalltau
  // (ties present, so scipy's default method is 'asymptotic'):
  //   stats.kendalltau([12, 2, 1, 12, 2], [1, 4, 7, 1, 0]) -> (-0.47140452079103173, 0.2827454599327748)
  const KendallResult r = kendall_tau({12, 2, 1, 12, 2}, {1, 4, 7, 1, 0});
  EXPECT_NEAR(r.tau, -0.47140452079103173, 1e-12);
  EXPECT_NEAR(r.p, 0.2827454599327748, 1e-12);
}

TEST(Kendall, ScipyTestSuiteValues) {
  // scipy test_stats.py::test_kendalltau: kendalltau(x, x, nan_policy='omit', method='asymptotic') with
  // x = arange(10.) and x[9] = nan, i.e. 0..8 against itself -> (1.0, 0.00017455009626808976).
  V a;
  for (int i = 0; i < 9; ++i) a.push_back(i);
  const KendallResult r = kendall_tau(a, a);
  EXPECT_DOUBLE_EQ(r.tau, 1.0);
  // scipy's test asserts this with rtol=1e-6; erfc(36/sqrt(92)/sqrt 2) itself is 1.7455002670346e-4
  // (python3 math.erfc), 4e-7 relative from the stored value, so use scipy's own tolerance.
  EXPECT_NEAR(r.p, 0.00017455009626808976, 1e-6 * 0.00017455009626808976);
  // same file: tau-b of two heavily tied vectors is 0.85895569 (7 significant digits given).
  const KendallResult t = kendall_tau({1, 2, 2, 4, 4, 6, 6, 8, 9, 9}, {1, 2, 4, 4, 4, 4, 8, 8, 8, 10});
  EXPECT_NEAR(t.tau, 0.85895569, 5e-9);
  // same file: kendalltau([1, 1, 2], [1, 1, 2]) tau-b = 1.0
  EXPECT_DOUBLE_EQ(kendall_tau({1, 1, 2}, {1, 1, 2}).tau, 1.0);
}

TEST(Kendall, PerfectAndReversed) {
  const V x = {0.1, 0.5, 0.2, 0.9, 0.3, 0.7};
  V rev;
  for (double v : x) rev.push_back(-v);
  const KendallResult same = kendall_tau(x, x);
  const KendallResult opposite = kendall_tau(x, rev);
  EXPECT_DOUBLE_EQ(same.tau, 1.0);
  EXPECT_DOUBLE_EQ(opposite.tau, -1.0);
  // p depends on |S| only: symmetric in the sign of the association
  EXPECT_DOUBLE_EQ(same.p, opposite.p);
  EXPECT_LT(same.p, 0.05);
  const KendallResult a = kendall_tau({1, 2, 3, 4, 5}, {2, 1, 4, 3, 5});
  const KendallResult b = kendall_tau({1, 2, 3, 4, 5}, {-2, -1, -4, -3, -5});
  EXPECT_DOUBLE_EQ(a.tau, -b.tau);
  EXPECT_DOUBLE_EQ(a.p, b.p);
  EXPECT_GT(a.tau, 0.0);
}

TEST(Kendall, InvariantUnderMonotoneTransforms) {
  const V x = {0.3, 1.2, -0.5, 2.0, 0.9, 0.9, 4.1, -1.0};
  const V y = {1.0, 0.2, 0.4, 3.0, 3.0, -2.0, 5.0, 0.1};
  const KendallResult base = kendall_tau(x, y);
  V ex, cy;
  for (double v : x) ex.push_back(std::exp(v));
  for (double v : y) cy.push_back(v * v * v * 10.0 + 7.0);
  const KendallResult t = kendall_tau(ex, cy);
  EXPECT_DOUBLE_EQ(t.tau, base.tau);
  EXPECT_DOUBLE_EQ(t.p, base.p);
  // and swapping the arguments does not change anything
  const KendallResult s = kendall_tau(y, x);
  EXPECT_DOUBLE_EQ(s.tau, base.tau);
  EXPECT_DOUBLE_EQ(s.p, base.p);
  // a decreasing transform flips the sign
  V neg;
  for (double v : x) neg.push_back(-std::exp(v));
  EXPECT_DOUBLE_EQ(kendall_tau(neg, y).tau, -base.tau);
}

TEST(Kendall, DegenerateInputsGiveNaN) {
  EXPECT_TRUE(std::isnan(kendall_tau({2, 2, 2}, {1, 2, 3}).tau));
  EXPECT_TRUE(std::isnan(kendall_tau({2, 2, 2}, {1, 2, 3}).p));
  EXPECT_TRUE(std::isnan(kendall_tau({1, 2, 3}, {5, 5, 5}).tau));
  EXPECT_TRUE(std::isnan(kendall_tau({}, {}).tau));
  EXPECT_TRUE(std::isnan(kendall_tau({1.0}, {2.0}).tau));
  EXPECT_TRUE(std::isnan(kendall_tau({1, 2, 3}, {1, 2}).tau));
  EXPECT_TRUE(std::isnan(kendall_tau({1, NAN, 3}, {1, 2, 3}).tau));
  EXPECT_EQ(kendall_tau({1, 2, 3}, {1, 2, 3}).n, 3);
}

TEST(Kendall, TwoPoints) {
  // n = 2, no ties: tau = +-1, var = 2*1*9/18 = 1, z = 1, p = erfc(1/sqrt 2) = 0.3173105078629141.
  const KendallResult r = kendall_tau({0.0, 1.0}, {5.0, 3.0});
  EXPECT_DOUBLE_EQ(r.tau, -1.0);
  EXPECT_NEAR(r.p, 0.31731050786291415, 1e-12);
}

TEST(Kendall, PValueInUnitIntervalAndShrinksWithN) {
  // Same perfect agreement, more points -> smaller p.
  double prev = 1.0;
  for (int n = 3; n <= 30; ++n) {
    V a;
    for (int i = 0; i < n; ++i) a.push_back(i * 0.5);
    const KendallResult r = kendall_tau(a, a);
    ASSERT_GE(r.p, 0.0);
    ASSERT_LE(r.p, 1.0);
    EXPECT_LT(r.p, prev) << "n=" << n;
    prev = r.p;
  }
  // zero association: S = 0 -> p = 1 (scipy test_kendalltau: x=[5,2,1,3,6,4,7,8], y=[5,2,6,3,1,8,7,4]
  // has tau 0; p is 1 for any method since z = 0)
  const KendallResult z = kendall_tau({5, 2, 1, 3, 6, 4, 7, 8}, {5, 2, 6, 3, 1, 8, 7, 4});
  EXPECT_NEAR(z.tau, 0.0, 1e-15);
  EXPECT_NEAR(z.p, 1.0, 1e-15);
}

}  // namespace
}  // namespace attnlab
