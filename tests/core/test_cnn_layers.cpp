// CNN layers of the localization lab: every backward pass against central finite differences (double, small
// sizes), forward passes against direct loops, and the optimiser update against its formula.
#include <cmath>

#include "gradcheck.h"
#include "nn/batch_norm.h"
#include "nn/cbam.h"
#include "nn/conv2d.h"
#include "nn/loss.h"
#include "nn/mil_pooling.h"
#include "nn/pooling.h"
#include "nn/sgd.h"

namespace attnlab {
namespace {

using test::expect_gradient;
using test::random_mat;

// Direct convolution (7 nested loops) as the forward reference.
Mat<double> naive_conv(const Conv2dSpec& s, const Conv2dParams<double>& p, const FeatureShape& in,
                       const Mat<double>& x) {
  const FeatureShape out = conv2d_output_shape(s, in);
  Mat<double> y = Mat<double>::Zero(out.size(), x.cols());
  for (Eigen::Index b = 0; b < x.cols(); ++b)
    for (int o = 0; o < s.out_c; ++o)
      for (int oy = 0; oy < out.h; ++oy)
        for (int ox = 0; ox < out.w; ++ox) {
          double acc = p.b.size() ? p.b(o, 0) : 0.0;
          for (int c = 0; c < s.in_c; ++c)
            for (int i = 0; i < s.k; ++i)
              for (int j = 0; j < s.k; ++j) {
                const int iy = oy * s.stride - s.pad + i, ix = ox * s.stride - s.pad + j;
                if (iy < 0 || iy >= in.h || ix < 0 || ix >= in.w) continue;
                // PyTorch layout [Cout, Cin, k, k] row-major = our w memory
                const double w = p.w.data()[((o * s.in_c + c) * s.k + i) * s.k + j];
                acc += w * x(c * in.hw() + iy * in.w + ix, b);
              }
          y(o * out.hw() + oy * out.w + ox, b) = acc;
        }
  return y;
}

void check_conv(const Conv2dSpec& s, const FeatureShape& in, uint64_t seed) {
  Rng rng(seed);
  Conv2dParams<double> p;
  p.resize(s);
  p.w = random_mat(p.w.rows(), p.w.cols(), rng);
  if (s.bias) p.b = random_mat(s.out_c, 1, rng);
  Mat<double> x = random_mat(in.size(), 2, rng);
  const FeatureShape out = conv2d_output_shape(s, in);
  ASSERT_GT(out.c, 0);
  Mat<double> y;
  conv2d_forward(s, p, in, x, y);
  EXPECT_LT((y - naive_conv(s, p, in, x)).cwiseAbs().maxCoeff(), 1e-12);
  const Mat<double> r = random_mat(out.size(), 2, rng);
  auto loss = [&] {
    Mat<double> yy;
    conv2d_forward(s, p, in, x, yy);
    return (yy.array() * r.array()).sum();
  };
  Conv2dParams<double> g;
  g.resize(s);
  Mat<double> dx;
  conv2d_backward(s, p, in, x, r, &g, &dx);
  expect_gradient("conv w", p.w, g.w, loss);
  if (s.bias) expect_gradient("conv b", p.b, g.b, loss);
  expect_gradient("conv x", x, dx, loss);
}

TEST(CnnLayers, Conv2dSamePadding) { check_conv({2, 3, 3, 1, 1, true}, {2, 5, 6}, 11); }
TEST(CnnLayers, Conv2dStride2NoPaddingNoBias) { check_conv({3, 2, 3, 2, 0, false}, {3, 7, 6}, 12); }
TEST(CnnLayers, Conv2dStride2Padding2) { check_conv({2, 2, 5, 2, 2, true}, {2, 6, 5}, 13); }

TEST(CnnLayers, Conv2dOutputShapeRejectsBadSpecs) {
  EXPECT_EQ(conv2d_output_shape({3, 4, 3, 1, 1}, {3, 8, 8}), (FeatureShape{4, 8, 8}));
  EXPECT_EQ(conv2d_output_shape({3, 4, 3, 2, 1}, {3, 8, 8}), (FeatureShape{4, 4, 4}));
  EXPECT_EQ(conv2d_output_shape({3, 4, 5, 1, 0}, {3, 4, 4}).c, 0);  // kernel larger than the input
  EXPECT_EQ(conv2d_output_shape({2, 4, 3, 1, 1}, {3, 8, 8}).c, 0);  // channel mismatch
}

void check_batch_norm(bool training) {
  Rng rng(21);
  const FeatureShape sh{3, 3, 4};
  BatchNormParams<double> p;
  p.resize(sh.c);
  p.gamma = random_mat(sh.c, 1, rng).array() + 1.0;
  p.beta = random_mat(sh.c, 1, rng);
  p.running_mean = random_mat(sh.c, 1, rng);
  p.running_var = random_mat(sh.c, 1, rng).array().abs() + 0.5;
  Mat<double> x = random_mat(sh.size(), 3, rng);
  x.array() += 0.7;
  const Mat<double> r = random_mat(sh.size(), 3, rng);
  auto loss = [&] {
    Mat<double> y;
    BatchNormCache<double> c;
    batch_norm_forward(p, sh, x, training, y, c, static_cast<BatchNormParams<double>*>(nullptr));
    return (y.array() * r.array()).sum();
  };
  Mat<double> y, dx;
  BatchNormCache<double> c;
  batch_norm_forward(p, sh, x, training, y, c, static_cast<BatchNormParams<double>*>(nullptr));
  BatchNormParams<double> g;
  g.resize(sh.c);
  g.gamma.setZero();
  g.running_var.setZero();
  batch_norm_backward(p, sh, c, r, &g, &dx);
  expect_gradient("bn gamma", p.gamma, g.gamma, loss);
  expect_gradient("bn beta", p.beta, g.beta, loss);
  expect_gradient("bn x", x, dx, loss);
}

TEST(CnnLayers, BatchNormTrainGradient) { check_batch_norm(true); }
TEST(CnnLayers, BatchNormEvalGradient) { check_batch_norm(false); }

TEST(CnnLayers, BatchNormStatistics) {
  Rng rng(22);
  const FeatureShape sh{2, 2, 3};
  BatchNormParams<double> p;
  p.resize(sh.c);
  Mat<double> x = random_mat(sh.size(), 4, rng);
  x.array() += 2.0;
  Mat<double> y;
  BatchNormCache<double> c;
  batch_norm_forward(p, sh, x, true, y, c, &p);
  for (int ch = 0; ch < sh.c; ++ch) {
    std::vector<double> v;
    for (int b = 0; b < 4; ++b)
      for (int q = 0; q < sh.hw(); ++q) v.push_back(x(ch * sh.hw() + q, b));
    double mean = 0, var = 0;
    for (double a : v) mean += a;
    mean /= v.size();
    for (double a : v) var += (a - mean) * (a - mean);
    // normalised output: mean 0, (biased) variance 1 (up to eps)
    double ym = 0, yv = 0;
    for (int b = 0; b < 4; ++b) ym += y.col(b).segment(ch * sh.hw(), sh.hw()).sum();
    ym /= v.size();
    for (int b = 0; b < 4; ++b) yv += (y.col(b).segment(ch * sh.hw(), sh.hw()).array() - ym).square().sum();
    yv /= v.size();
    EXPECT_NEAR(ym, 0.0, 1e-12);
    EXPECT_NEAR(yv, var / v.size() / (var / v.size() + 1e-5), 1e-9);
    // running stats: momentum 0.1 from (0, 1), variance unbiased
    EXPECT_NEAR(p.running_mean(ch, 0), 0.1 * mean, 1e-12);
    EXPECT_NEAR(p.running_var(ch, 0), 0.9 + 0.1 * var / (v.size() - 1), 1e-12);
  }
  // eval mode uses the running statistics
  Mat<double> ye;
  batch_norm_forward(p, sh, x, false, ye, c, &p);
  EXPECT_NEAR(ye(0, 0), (x(0, 0) - p.running_mean(0, 0)) / std::sqrt(p.running_var(0, 0) + 1e-5), 1e-12);
}

TEST(CnnLayers, ReluGradient) {
  Rng rng(31);
  Mat<double> x = random_mat(20, 3, rng);
  for (Eigen::Index i = 0; i < x.size(); ++i)  // keep away from the kink
    if (std::abs(x.data()[i]) < 1e-3) x.data()[i] = 0.1;
  const Mat<double> r = random_mat(20, 3, rng);
  auto loss = [&] {
    Mat<double> y;
    relu_forward(x, y);
    return (y.array() * r.array()).sum();
  };
  Mat<double> y, dx;
  relu_forward(x, y);
  EXPECT_EQ(y.minCoeff(), 0.0);
  relu_backward(y, r, dx);
  expect_gradient("relu x", x, dx, loss);
}

void check_pool(bool max_pool, const PoolSpec& s, const FeatureShape& in) {
  Rng rng(41);
  Mat<double> x = random_mat(in.size(), 2, rng);
  const FeatureShape out = pool_output_shape(s, in);
  ASSERT_GT(out.c, 0);
  const Mat<double> r = random_mat(out.size(), 2, rng);
  auto fwd = [&](Mat<double>& y, std::vector<int>& am) {
    if (max_pool) max_pool_forward(s, in, x, y, am);
    else avg_pool_forward(s, in, x, y);
  };
  auto loss = [&] {
    Mat<double> y;
    std::vector<int> am;
    fwd(y, am);
    return (y.array() * r.array()).sum();
  };
  Mat<double> y, dx;
  std::vector<int> am;
  fwd(y, am);
  // forward against a direct window loop
  for (int c = 0; c < in.c; ++c)
    for (int oy = 0; oy < out.h; ++oy)
      for (int ox = 0; ox < out.w; ++ox) {
        double m = -1e300, sum = 0;
        for (int i = 0; i < s.k; ++i)
          for (int j = 0; j < s.k; ++j) {
            const double v = x(c * in.hw() + (oy * s.stride + i) * in.w + ox * s.stride + j, 1);
            m = std::max(m, v);
            sum += v;
          }
        EXPECT_DOUBLE_EQ(y(c * out.hw() + oy * out.w + ox, 1), max_pool ? m : sum / (s.k * s.k));
      }
  if (max_pool) max_pool_backward(s, in, am, r, dx);
  else avg_pool_backward(s, in, r, dx);
  expect_gradient(max_pool ? "maxpool x" : "avgpool x", x, dx, loss);
}

TEST(CnnLayers, MaxPool2x2) { check_pool(true, {2, 2}, {2, 4, 6}); }
TEST(CnnLayers, MaxPoolOverlapping3x3Stride2) { check_pool(true, {3, 2}, {2, 7, 5}); }
TEST(CnnLayers, AvgPool2x2) { check_pool(false, {2, 2}, {2, 4, 6}); }
TEST(CnnLayers, AvgPoolOverlapping3x3Stride2) { check_pool(false, {3, 2}, {2, 7, 5}); }

void check_cbam(bool channel, bool spatial, int kernel) {
  Rng rng(51);
  CbamSpec spec;
  spec.channels = 6;
  spec.reduction = 2;
  spec.channel = channel;
  spec.spatial = spatial;
  spec.kernel = kernel;
  const FeatureShape sh{6, 4, 5};
  CbamParams<double> p;
  p.resize(spec);
  if (channel) {
    p.fc1.w = random_mat(spec.hidden(), 6, rng, 0.8);
    p.fc1.b = random_mat(spec.hidden(), 1, rng);
    p.fc2.w = random_mat(6, spec.hidden(), rng, 0.8);
    p.fc2.b = random_mat(6, 1, rng);
  }
  if (spatial) {
    p.conv.w = random_mat(p.conv.w.rows(), 1, rng, 0.3);
    p.conv.b = random_mat(1, 1, rng);
  }
  Mat<double> x = random_mat(sh.size(), 2, rng, 1.0);
  const Mat<double> r = random_mat(sh.size(), 2, rng);
  auto loss = [&] {
    Mat<double> y;
    CbamCache<double> c;
    cbam_forward(spec, p, sh, x, y, c);
    return (y.array() * r.array()).sum();
  };
  Mat<double> y, dx;
  CbamCache<double> c;
  cbam_forward(spec, p, sh, x, y, c);
  if (spatial) {
    ASSERT_EQ(c.ms.rows(), sh.hw());
    EXPECT_GT(c.ms.minCoeff(), 0.0);
    EXPECT_LT(c.ms.maxCoeff(), 1.0);
  }
  CbamParams<double> g;
  g.resize(spec);
  cbam_backward(spec, p, sh, x, c, r, &g, dx);
  if (channel) {
    expect_gradient("cbam fc1.w", p.fc1.w, g.fc1.w, loss);
    expect_gradient("cbam fc1.b", p.fc1.b, g.fc1.b, loss);
    expect_gradient("cbam fc2.w", p.fc2.w, g.fc2.w, loss);
    expect_gradient("cbam fc2.b", p.fc2.b, g.fc2.b, loss);
  }
  if (spatial) {
    expect_gradient("cbam conv.w", p.conv.w, g.conv.w, loss);
    expect_gradient("cbam conv.b", p.conv.b, g.conv.b, loss);
  }
  expect_gradient("cbam x", x, dx, loss);
}

TEST(CnnLayers, CbamChannelAndSpatial7x7) { check_cbam(true, true, 7); }
TEST(CnnLayers, CbamChannelOnly) { check_cbam(true, false, 7); }
TEST(CnnLayers, CbamSpatialOnly3x3) { check_cbam(false, true, 3); }

TEST(CnnLayers, CbamSpatialMapIsSigmoidOfConvOverMaxAndMean) {
  // The forward by hand: with only spatial attention and a 1x1 kernel, Ms = sigmoid(a max + b mean + c).
  CbamSpec spec;
  spec.channels = 3;
  spec.channel = false;
  spec.kernel = 1;
  CbamParams<double> p;
  p.resize(spec);
  p.conv.w << 0.7, -0.4;  // max, mean
  p.conv.b << 0.2;
  Rng rng(52);
  const FeatureShape sh{3, 2, 2};
  const Mat<double> x = random_mat(sh.size(), 1, rng, 1.0);
  Mat<double> y;
  CbamCache<double> c;
  cbam_forward(spec, p, sh, x, y, c);
  for (int q = 0; q < 4; ++q) {
    const double a = x(q, 0), b = x(4 + q, 0), d = x(8 + q, 0);
    const double z = 0.7 * std::max({a, b, d}) - 0.4 * (a + b + d) / 3 + 0.2;
    const double ms = 1 / (1 + std::exp(-z));
    EXPECT_NEAR(c.ms(q, 0), ms, 1e-12);
    EXPECT_NEAR(y(4 + q, 0), b * ms, 1e-12);
  }
}

void check_global_pool(PoolHead head, double r) {
  Rng rng(61);
  const FeatureShape sh{3, 3, 4};
  Mat<double> x = random_mat(sh.size(), 2, rng, 1.0);
  const Mat<double> dp = random_mat(3, 2, rng);
  auto loss = [&] {
    Mat<double> pooled;
    GlobalPoolCache<double> c;
    global_pool_forward(head, r, sh, x, pooled, c);
    return (pooled.array() * dp.array()).sum();
  };
  Mat<double> pooled, dx;
  GlobalPoolCache<double> c;
  global_pool_forward(head, r, sh, x, pooled, c);
  // forward against the definitions
  for (int b = 0; b < 2; ++b)
    for (int ch = 0; ch < 3; ++ch) {
      const auto plane = x.col(b).segment(ch * sh.hw(), sh.hw());
      double want = plane.mean();
      if (head == PoolHead::Gmp) want = plane.maxCoeff();
      if (head == PoolHead::Lse) want = std::log((plane.array() * r).exp().mean()) / r;
      EXPECT_NEAR(pooled(ch, b), want, 1e-12);
    }
  global_pool_backward(head, r, sh, c, dp, dx);
  expect_gradient(std::string("pool ") + pool_head_name(head), x, dx, loss);
}

TEST(CnnLayers, GapGradient) { check_global_pool(PoolHead::Gap, 0); }
TEST(CnnLayers, GmpGradient) { check_global_pool(PoolHead::Gmp, 0); }
TEST(CnnLayers, LseGradientSmallR) { check_global_pool(PoolHead::Lse, 0.5); }
TEST(CnnLayers, LseGradientLargeR) { check_global_pool(PoolHead::Lse, 8.0); }

TEST(CnnLayers, LseInterpolatesBetweenGapAndGmp) {
  Rng rng(62);
  const FeatureShape sh{1, 4, 4};
  const Mat<double> x = random_mat(sh.size(), 1, rng, 1.0);
  Mat<double> p;
  GlobalPoolCache<double> c;
  global_pool_forward(PoolHead::Lse, 1e-4, sh, x, p, c);
  EXPECT_NEAR(p(0, 0), x.mean(), 1e-3);
  global_pool_forward(PoolHead::Lse, 1e4, sh, x, p, c);  // stable at large r (no overflow)
  EXPECT_NEAR(p(0, 0), x.maxCoeff(), 1e-3);
  EXPECT_TRUE(std::isfinite(p(0, 0)));
  EXPECT_TRUE(c.weights.allFinite());
}

TEST(CnnLayers, PoolHeadNames) {
  PoolHead h;
  for (const char* name : {"gap", "gmp", "lse"}) {
    ASSERT_TRUE(parse_pool_head(name, &h));
    EXPECT_STREQ(pool_head_name(h), name);
  }
  EXPECT_FALSE(parse_pool_head("max", &h));
}

TEST(CnnLayers, SoftmaxCrossEntropyGradient) {
  Rng rng(71);
  Mat<double> z = random_mat(4, 3, rng, 1.0);
  const std::vector<int> labels = {2, 0, 3};
  auto loss = [&] {
    Mat<double> d;
    return weighted_cross_entropy<double>(z, labels, {}, d);
  };
  Mat<double> d;
  weighted_cross_entropy<double>(z, labels, {}, d);
  expect_gradient("ce logits", z, d, loss);
}

TEST(CnnLayers, SgdMomentumFollowsItsFormula) {
  Mat<double> theta(2, 1), g(2, 1);
  theta << 1.0, -2.0;
  SgdOptions o;
  o.lr = 0.1;
  o.momentum = 0.9;
  o.weight_decay = 0.01;
  Sgd<double> sgd(o, {&theta});
  // step 1: v = g + wd theta; theta -= lr v
  g << 0.5, 0.25;
  const Mat<double> t0 = theta;
  Mat<double> v = g + 0.01 * t0;
  sgd.step({&theta}, {&g});
  EXPECT_LT((theta - (t0 - 0.1 * v)).cwiseAbs().maxCoeff(), 1e-15);
  // step 2: v = mu v + g + wd theta
  const Mat<double> t1 = theta;
  g << -1.0, 2.0;
  v = 0.9 * v + g + 0.01 * t1;
  sgd.step({&theta}, {&g});
  EXPECT_LT((theta - (t1 - 0.1 * v)).cwiseAbs().maxCoeff(), 1e-15);
}

TEST(CnnLayers, SgdMinimisesAQuadratic) {
  Mat<double> theta(3, 1);
  theta << 3.0, -1.0, 2.0;
  Sgd<double> sgd({0.1, 0.9, 0.0, false}, {&theta});
  Mat<double> g;
  for (int i = 0; i < 200; ++i) {
    g = 2 * theta;  // d/dtheta |theta|^2
    sgd.step({&theta}, {&g});
  }
  EXPECT_LT(theta.norm(), 1e-3);
}

}  // namespace
}  // namespace attnlab
