// Tests for core/nn/gap_linear_head and the feature-map methods of core/explain/image: gradient check of
// the head's backward (double, central differences), hand-computed CAM / Grad-CAM / Grad-CAM++ on a K=2,
// 2×2 example, and the property CAM = Grad-CAM up to the positive scale 1/(h·w) for a GAP + linear head.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "explain/image/image_method.h"
#include "gradcheck.h"
#include "nn/gap_linear_head.h"
#include "nn/rng.h"

namespace attnlab {
namespace {

TEST(ImageHead, ForwardHandComputed) {
  // K=2, 2×2 maps, C=2. GAP = [(1+2+3+4)/4, (0+1+1+0)/4] = [2.5, 0.5].
  GapLinearHead<float> head;
  head.classes = 2;
  head.channels = 2;
  head.weight = {1, -2, 0.5f, 1};
  head.bias = {0.1f, -0.2f};
  const std::vector<float> f = {1, 2, 3, 4, 0, 1, 1, 0};
  std::vector<float> logits(2);
  head.forward(f.data(), 1, 4, logits.data());
  EXPECT_NEAR(logits[0], 2.5 - 1.0 + 0.1, 1e-6);
  EXPECT_NEAR(logits[1], 1.25 + 0.5 - 0.2, 1e-6);
  const std::vector<float> p = softmax_rows(logits.data(), 1, 2);
  EXPECT_NEAR(p[0], 1.0 / (1.0 + std::exp(1.55 - 1.6)), 1e-6);
  EXPECT_NEAR(p[0] + p[1], 1.0, 1e-6);
}

TEST(ImageHead, BackwardGradientCheck) {
  Rng rng(7);
  const int n = 2, k = 3, hw = 4, c = 5;
  GapLinearHead<double> head;
  head.classes = c;
  head.channels = k;
  Mat<double> w = test::random_mat(c * k, 1, rng), b = test::random_mat(c, 1, rng);
  Mat<double> f = test::random_mat(n * k * hw, 1, rng), r = test::random_mat(n * c, 1, rng);
  // loss = Σ logits ∘ r, so dlogits = r.
  auto loss = [&]() {
    head.weight.assign(w.data(), w.data() + w.size());
    head.bias.assign(b.data(), b.data() + b.size());
    std::vector<double> logits(n * c);
    head.forward(f.data(), n, hw, logits.data());
    double s = 0;
    for (int i = 0; i < n * c; ++i) s += logits[i] * r.data()[i];
    return s;
  };
  loss();
  Mat<double> df(n * k * hw, 1), dw(c * k, 1), db(c, 1);
  head.backward(f.data(), n, hw, r.data(), df.data(), dw.data(), db.data());
  test::expect_gradient("features", f, df, loss);
  test::expect_gradient("weight", w, dw, loss);
  test::expect_gradient("bias", b, db, loss);
}

struct Tiny {
  GapLinearHead<float> head;
  std::vector<float> f = {1, 2, 3, 4, 0, 1, 1, 0};  // F_0 = [[1,2],[3,4]], F_1 = [[0,1],[1,0]]
  Tiny() {
    head.classes = 2;
    head.channels = 2;
    head.weight = {1, -2, 0.5f, 1};
    head.bias = {0, 0};
  }
  FeatureMapsView view() const { return {f.data(), 2, 2, 2}; }
};

void expect_map(const std::vector<float>& got, const std::vector<double>& want, double tol = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "position " << i;
}

TEST(ImageMaps, CamHandComputed) {
  Tiny t;
  // class 0: 1·F0 − 2·F1 = [[1,0],[1,4]]; class 1: 0.5·F0 + F1 = [[0.5,2],[2.5,2]]
  expect_map(cam_map(t.view(), t.head, 0, {}), {1, 0, 1, 4});
  expect_map(cam_map(t.view(), t.head, 1, {}), {0.5, 2, 2.5, 2});
  // raw: negative values are kept
  t.f = {1, 0, 0, 0, 1, 1, 1, 1};
  expect_map(cam_map(t.view(), t.head, 0, {}), {-1, -2, -2, -2});
}

TEST(ImageMaps, GradCamHandComputed) {
  Tiny t;
  // α = W[c]/(h·w): class 0 -> [0.25, -0.5]; map = ReLU(0.25 F0 − 0.5 F1) = [[0.25, 0], [0.25, 1]]
  expect_map(grad_cam_map(t.view(), t.head, 0, {}), {0.25, 0, 0.25, 1});
}

TEST(ImageMaps, GradCamPlusPlusHandComputed) {
  Tiny t;
  // class 0: g0 = 0.25, ΣF0 = 10 -> a = g²/(2g² + 10 g³) = 1/4.5, w0 = 4 · 0.25/4.5; g1 = −0.5 -> w1 = 0.
  // map = F0 / 4.5
  expect_map(grad_cam_plus_plus_map(t.view(), t.head, 0, {}), {1 / 4.5, 2 / 4.5, 3 / 4.5, 4 / 4.5});
  // class 1: g0 = 0.125 -> a = 1/(2 + 1.25), w0 = 0.5/3.25; g1 = 0.25, ΣF1 = 2 -> a = 1/2.5, w1 = 0.4.
  const double w0 = 0.5 / 3.25, w1 = 0.4;
  expect_map(grad_cam_plus_plus_map(t.view(), t.head, 1, {}), {w0, 2 * w0 + w1, 3 * w0 + w1, 4 * w0});
}

TEST(ImageMaps, CamEqualsGradCamTimesPositions) {
  Rng rng(11);
  for (int trial = 0; trial < 20; ++trial) {
    const int k = 1 + static_cast<int>(rng.below(16)), h = 1 + static_cast<int>(rng.below(7)),
              w = 1 + static_cast<int>(rng.below(7)), c = 1 + static_cast<int>(rng.below(10));
    GapLinearHead<float> head;
    head.classes = c;
    head.channels = k;
    for (int i = 0; i < c * k; ++i) head.weight.push_back(static_cast<float>(rng.normal()));
    for (int i = 0; i < c; ++i) head.bias.push_back(static_cast<float>(rng.normal()));
    std::vector<float> f(static_cast<size_t>(k) * h * w);
    for (float& v : f) v = static_cast<float>(std::max(0.0, rng.normal()));  // ReLU-like features
    const FeatureMapsView view{f.data(), k, h, w};
    const int cls = static_cast<int>(rng.below(c));
    const std::vector<float> cam = cam_map(view, head, cls, {});
    const std::vector<float> gc = grad_cam_map(view, head, cls, {});
    ASSERT_EQ(cam.size(), gc.size());
    for (size_t p = 0; p < cam.size(); ++p)
      EXPECT_NEAR(gc[p] * h * w, std::max(0.f, cam[p]), 1e-4 * (1 + std::abs(cam[p])))
          << "trial " << trial << " position " << p;
  }
}

TEST(ImageMaps, RandomIsSeededAndRegistryKnowsEveryMethod) {
  Tiny t;
  const std::vector<float> a = random_map(t.view(), t.head, 0, {5}), b = random_map(t.view(), t.head, 1, {5}),
                           c = random_map(t.view(), t.head, 0, {6});
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  for (float v : a) EXPECT_TRUE(v >= 0 && v < 1);
  EXPECT_EQ(image_method_names(), (std::vector<std::string>{"cam", "gradcam", "gradcampp", "random"}));
  for (const std::string& name : image_method_names()) EXPECT_NE(find_image_method(name), nullptr) << name;
  EXPECT_EQ(find_image_method("nope"), nullptr);
  // Inconsistent inputs -> empty map.
  EXPECT_TRUE(cam_map(t.view(), t.head, 2, {}).empty());
  FeatureMapsView bad = t.view();
  bad.k = 3;
  EXPECT_TRUE(grad_cam_map(bad, t.head, 0, {}).empty());
}

TEST(ImageHead, RandomizedKeepsShapesAndStatistics) {
  Rng rng(3);
  GapLinearHead<float> head;
  head.classes = 50;
  head.channels = 40;
  for (int i = 0; i < 2000; ++i) head.weight.push_back(static_cast<float>(0.2 + 0.05 * rng.normal()));
  for (int i = 0; i < 50; ++i) head.bias.push_back(static_cast<float>(rng.normal()));
  const GapLinearHead<float> r = randomized_head(head, 9);
  ASSERT_EQ(r.weight.size(), head.weight.size());
  ASSERT_EQ(r.bias.size(), head.bias.size());
  EXPECT_NE(r.weight, head.weight);
  double mean = 0;
  for (float v : r.weight) mean += v;
  EXPECT_NEAR(mean / r.weight.size(), 0.2, 0.01);
  EXPECT_EQ(randomized_head(head, 9).weight, r.weight);
}

}  // namespace
}  // namespace attnlab
