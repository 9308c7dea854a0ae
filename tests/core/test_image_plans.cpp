// Tests for the perturbation plans (core/explain/image: Score-CAM, RISE, occlusion) and the faithfulness
// plans (core/metrics/deletion_insertion) on fake "networks" (lambdas standing in for ONNX Runtime) whose
// outputs are hand-computable; every plan must give identical results for any batch split and order.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "explain/image/plan.h"
#include "image/map_ops.h"
#include "metrics/deletion_insertion.h"
#include "nn/rng.h"

namespace attnlab {
namespace {

// A fake network: n planar images [3, h, w] -> logits [n, C].
using Net = std::function<std::vector<float>(const float* images, int n, int h, int w)>;

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

// Runs a plan to completion with the given batch sizes (cycled); reverse = batches fed last-first.
void run(ImagePlan& plan, const Net& net, std::vector<int> batches, bool reverse = false) {
  std::vector<std::pair<int, int>> chunks;
  for (int start = 0, b = 0; start < plan.count(); ++b) {
    const int n = std::min(batches[b % batches.size()], plan.count() - start);
    chunks.push_back({start, n});
    start += n;
  }
  if (reverse) std::reverse(chunks.begin(), chunks.end());
  const size_t size = static_cast<size_t>(3) * plan.height() * plan.width();
  for (auto [start, n] : chunks) {
    ASSERT_FALSE(plan.done());
    std::vector<float> in(size * n);
    plan.inputs(start, n, in.data());
    const std::vector<float> logits = net(in.data(), n, plan.height(), plan.width());
    const int classes = static_cast<int>(logits.size() / n);
    ASSERT_EQ(plan.accept(start, n, logits.data(), classes), "");
  }
  ASSERT_TRUE(plan.done());
}

// Runs fresh plans from `make` with several batch splits and checks result() / result_json() agree exactly.
void expect_split_invariant(const std::function<std::unique_ptr<ImagePlan>()>& make, const Net& net) {
  auto ref = make();
  run(*ref, net, {1000000});
  for (auto [batches, reverse] : {std::pair{std::vector<int>{1}, false}, std::pair{std::vector<int>{3, 1, 7}, true},
                                  std::pair{std::vector<int>{2}, true}}) {
    auto p = make();
    run(*p, net, batches, reverse);
    EXPECT_EQ(p->result(), ref->result());
    EXPECT_EQ(p->result_json(), ref->result_json());
  }
}

// logits [s, 0] with s = mean over pixels of (R − 128) / 100: P(class 0) = sigmoid(s).
std::vector<float> mean_red_net(const float* images, int n, int h, int w) {
  std::vector<float> logits;
  const size_t hw = static_cast<size_t>(h) * w;
  for (int i = 0; i < n; ++i) {
    double s = 0;
    for (size_t q = 0; q < hw; ++q) s += images[i * 3 * hw + q] - 128.0;
    logits.push_back(static_cast<float>(s / hw / 100));
    logits.push_back(0.f);
  }
  return logits;
}

TEST(ImagePlans, ScoreCamHandComputed) {
  const int h = 4, w = 4;
  const std::vector<float> image(3 * h * w, 228.f);  // masked input = 128 + 100 m, so s = mean(m)
  // K = 4 channels of 2×2: A0 = 2 (constant -> m = 0 -> w = σ(0)); A1 = [[0,1],[0,1]] -> upsampled columns
  // 0, .25, .75, 1 -> mean(m) = .5; A2 = [[1,1],[1,0]] -> m = 1 − r_y r_x -> mean .75; A3 = −4 (constant).
  const std::vector<float> features = {2, 2, 2, 2, 0, 1, 0, 1, 1, 1, 1, 0, -4, -4, -4, -4};
  std::string error;
  auto plan = make_score_cam_plan(image, h, w, features, 2, 2, 0, &error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->count(), 4);
  EXPECT_TRUE(plan->result().empty());  // not done yet
  run(*plan, mean_red_net, {4});
  const double w0 = 0.5, w1 = sigmoid(0.5), w2 = sigmoid(0.75), w3 = 0.5;
  std::vector<float> small(4);
  for (int p = 0; p < 4; ++p)
    small[p] = static_cast<float>(
        std::max(0.0, w0 * features[p] + w1 * features[4 + p] + w2 * features[8 + p] + w3 * features[12 + p]));
  EXPECT_EQ(small[0], 0.f);  // ReLU cut: 1 + σ(.75) − 2 < 0
  EXPECT_GT(small[1], 0.f);
  const std::vector<float> want = upsample_bilinear(small.data(), 2, 2, h, w);
  const std::vector<float> got = plan->result();
  ASSERT_EQ(got.size(), want.size());
  for (size_t q = 0; q < want.size(); ++q) EXPECT_NEAR(got[q], want[q], 1e-6) << q;
  EXPECT_NEAR(plan->probability(1), w1, 1e-6);
  EXPECT_NEAR(plan->probability(2), w2, 1e-6);
  expect_split_invariant([&] { return make_score_cam_plan(image, h, w, features, 2, 2, 0, &error); }, mean_red_net);
}

// A channel that is zero everywhere adds w_k · 0 whatever its pass gives: the plan skips it (its count is the other
// channels) and its map is the hand-computed one of every channel; result_json says how many channels there were.
// Negative control: the pass a skipped channel would have had is not its neighbour's (the inputs shift by one).
TEST(ImagePlans, ScoreCamSkipsZeroChannels) {
  const int h = 4, w = 4;
  const std::vector<float> image(3 * h * w, 228.f);
  // A0 = [[0,1],[0,1]], A1 = 0 everywhere, A2 = [[1,1],[1,0]], A3 = 0 everywhere
  const std::vector<float> features = {0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0};
  std::string error;
  auto plan = make_score_cam_plan(image, h, w, features, 2, 2, 0, &error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->count(), 2);
  run(*plan, mean_red_net, {2});
  const double w0 = sigmoid(0.5), w2 = sigmoid(0.75);
  EXPECT_NEAR(plan->probability(0), w0, 1e-6);  // input 0 masks with A0
  EXPECT_NEAR(plan->probability(1), w2, 1e-6);  // input 1 masks with A2, not the zero A1
  EXPECT_GT(std::abs(plan->probability(1) - 0.5), 0.1);  // a zero channel's mask (m = 0) would give σ(0)
  std::vector<float> small(4);
  for (int p = 0; p < 4; ++p) small[p] = static_cast<float>(std::max(0.0, w0 * features[p] + w2 * features[8 + p]));
  const std::vector<float> want = upsample_bilinear(small.data(), 2, 2, h, w);
  const std::vector<float> got = plan->result();
  ASSERT_EQ(got.size(), want.size());
  for (size_t q = 0; q < want.size(); ++q) EXPECT_NEAR(got[q], want[q], 1e-6) << q;
  EXPECT_EQ(plan->result_json(), "{\"count\":2,\"channels\":4,\"class_index\":0}");
  // every channel zero: nothing to run, the map is zero
  auto none = make_score_cam_plan(image, h, w, std::vector<float>(16, 0.f), 2, 2, 0, &error);
  ASSERT_TRUE(none) << error;
  EXPECT_EQ(none->count(), 0);
  EXPECT_TRUE(none->done());
  for (float v : none->result()) EXPECT_EQ(v, 0.f);
}

TEST(ImagePlans, RiseIsSeededAndMasksAverageP) {
  const int h = 16, w = 16;
  Rng rng(2);
  std::vector<float> image(3 * h * w);
  for (float& v : image) v = static_cast<float>(rng.uniform(0, 255));
  std::string error;
  auto a = make_rise_plan(image, h, w, 0, 400, 4, 0.3, 17, &error);
  auto b = make_rise_plan(image, h, w, 0, 400, 4, 0.3, 17, &error);
  auto c = make_rise_plan(image, h, w, 0, 400, 4, 0.3, 18, &error);
  ASSERT_TRUE(a && b && c) << error;
  EXPECT_EQ(rise_mask(*a, 5), rise_mask(*b, 5));
  EXPECT_NE(rise_mask(*a, 5), rise_mask(*c, 5));
  double sum = 0;
  for (int i = 0; i < a->count(); ++i)
    for (float v : rise_mask(*a, i)) {
      ASSERT_TRUE(v >= 0 && v <= 1);
      sum += v;
    }
  EXPECT_NEAR(sum / (a->count() * h * w), 0.3, 0.02);
  std::vector<float> in1(3 * h * w), in2(3 * h * w);
  a->inputs(7, 1, in1.data());
  b->inputs(7, 1, in2.data());
  EXPECT_EQ(in1, in2);
  // masked in model space: 128 + m (x − 128)
  const std::vector<float> m = rise_mask(*a, 7);
  EXPECT_NEAR(in1[2 * h * w + 9], 128 + m[9] * (image[2 * h * w + 9] - 128), 1e-4);
}

TEST(ImagePlans, RiseFindsTheOnePixelTheNetworkReads) {
  // The network reads only pixel (10, 5) of the red channel: P = sigmoid((x − 128) / 4).
  const int h = 16, w = 16, qy = 10, qx = 5;
  std::vector<float> image(3 * h * w, 255.f);
  Net net = [&](const float* images, int n, int hh, int ww) {
    std::vector<float> logits;
    for (int i = 0; i < n; ++i) {
      logits.push_back(static_cast<float>((images[i * 3 * hh * ww + qy * ww + qx] - 128) / 4));
      logits.push_back(0.f);
    }
    return logits;
  };
  std::string error;
  auto plan = make_rise_plan(image, h, w, 0, 1000, 4, 0.5, 3, &error);
  ASSERT_TRUE(plan) << error;
  run(*plan, net, {64});
  const std::vector<float> map = plan->result();
  const size_t best = std::max_element(map.begin(), map.end()) - map.begin();
  EXPECT_LE(std::abs(static_cast<int>(best / w) - qy), 1);
  EXPECT_LE(std::abs(static_cast<int>(best % w) - qx), 1);
  expect_split_invariant([&] { return make_rise_plan(image, h, w, 0, 50, 4, 0.5, 3, &error); }, net);
}

TEST(ImagePlans, OcclusionFindsTheOnlyInformativeWindow) {
  // 12×12 grey-ish image, bright pixel at (5, 5); the network's logit is (R(5,5) − 128)/10 = 10 there.
  const int h = 12, w = 12;
  std::vector<float> image(3 * h * w, 60.f);
  image[5 * w + 5] = 228.f;
  Net net = [&](const float* images, int n, int hh, int ww) {
    std::vector<float> logits;
    for (int i = 0; i < n; ++i) {
      logits.push_back(static_cast<float>((images[i * 3 * hh * ww + 5 * ww + 5] - 128) / 10));
      logits.push_back(0.f);
    }
    return logits;
  };
  std::string error;
  auto plan = make_occlusion_plan(image, h, w, 0, 4, 4, &error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->count(), 1 + 9);
  run(*plan, net, {4});
  const std::vector<float> map = plan->result();
  const double drop = sigmoid(10) - 0.5;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const bool in = y >= 4 && y < 8 && x >= 4 && x < 8;
      EXPECT_NEAR(map[y * w + x], in ? drop : 0.0, 1e-6) << x << "," << y;
    }
  // overlapping windows (stride 2): pixel (5, 5) is covered only by windows that all hide it
  auto dense = make_occlusion_plan(image, h, w, 0, 4, 2, &error);
  run(*dense, net, {5});
  const std::vector<float> dm = dense->result();
  EXPECT_EQ(std::max_element(dm.begin(), dm.end()) - dm.begin(), 4 * w + 4);  // first pixel with full drop
  EXPECT_NEAR(dm[5 * w + 5], drop, 1e-6);
  EXPECT_NEAR(dm[0], 0.0, 1e-6);
  expect_split_invariant([&] { return make_occlusion_plan(image, h, w, 0, 4, 2, &error); }, net);
}

// 10×10 image; bright (255) pixels at indices i % 5 == 0 (20 of 100), others 0. The network counts the
// remaining bright pixels k (red > 200): logits [log(k + 1), log(21 − k)] -> P(class 0) = (k + 1) / 22.
struct BrightWorld {
  int h = 10, w = 10;
  std::vector<float> image, good, bad;
  BrightWorld() : image(300, 0.f), good(100, 0.f), bad(100, 1.f) {
    for (int i = 0; i < 100; i += 5) {
      for (int c = 0; c < 3; ++c) image[c * 100 + i] = 255.f;
      good[i] = 1;
      bad[i] = 0;
    }
  }
  static std::vector<float> net(const float* images, int n, int, int) {
    std::vector<float> logits;
    for (int i = 0; i < n; ++i) {
      int k = 0;
      for (int q = 0; q < 100; ++q) k += images[i * 300 + q] > 200;
      logits.push_back(static_cast<float>(std::log(k + 1.0)));
      logits.push_back(static_cast<float>(std::log(21.0 - k)));
    }
    return logits;
  }
};

TEST(ImagePlans, DeletionCurveHasTheKnownAuc) {
  BrightWorld bw;
  std::string error;
  auto plan = make_curve_plan(CurveKind::Deletion, bw.image, bw.h, bw.w, bw.good, 0, 10, &error);
  ASSERT_TRUE(plan) << error;
  EXPECT_EQ(plan->count(), 11);
  run(*plan, BrightWorld::net, {3});
  const auto j = nlohmann::json::parse(plan->result_json());
  // k = 20, 10, 0, 0, … -> P = 21/22, 11/22, 1/22 …; AUC = 0.1 (16 + 6 + 8) / 22 = 3/22
  EXPECT_NEAR(j["auc"].get<double>(), 3.0 / 22, 1e-6);
  EXPECT_NEAR(j["y"][1].get<double>(), 11.0 / 22, 1e-6);
  EXPECT_NEAR(j["x"][10].get<double>(), 1.0, 1e-12);
  EXPECT_EQ(j["x"].size(), 11u);
  // the worst ranking (bright pixels last): k = 20 at steps 0–8, then 10, 0 -> AUC = 0.1 (8·21 + 16 + 6) / 22
  auto worst = make_curve_plan(CurveKind::Deletion, bw.image, bw.h, bw.w, bw.bad, 0, 10, &error);
  run(*worst, BrightWorld::net, {11});
  EXPECT_NEAR(nlohmann::json::parse(worst->result_json())["auc"].get<double>(), 0.1 * (8 * 21 + 16 + 6) / 22, 1e-6);
  // deleted pixels become grey 128
  std::vector<float> in(300);
  plan->inputs(1, 1, in.data());
  EXPECT_EQ(in[0], 128.f);
  EXPECT_EQ(in[100 + 55], 255.f);  // bright pixel 55 is the 12th in order, not yet deleted
  expect_split_invariant([&] { return make_curve_plan(CurveKind::Deletion, bw.image, bw.h, bw.w, bw.good, 0, 10, &error); },
                         BrightWorld::net);
}

TEST(ImagePlans, InsertionCurveHasTheKnownAuc) {
  BrightWorld bw;
  std::string error;
  auto plan = make_curve_plan(CurveKind::Insertion, bw.image, bw.h, bw.w, bw.good, 0, 10, &error);
  ASSERT_TRUE(plan) << error;
  run(*plan, BrightWorld::net, {2});
  const auto j = nlohmann::json::parse(plan->result_json());
  // start = blur (no pixel > 200) -> k = 0, 10, 20, 20 … -> AUC = 0.1 (6 + 16 + 8·21) / 22
  EXPECT_NEAR(j["y"][0].get<double>(), 1.0 / 22, 1e-6);
  EXPECT_NEAR(j["auc"].get<double>(), 0.1 * (6 + 16 + 8 * 21) / 22, 1e-6);
  std::vector<float> in(300);
  plan->inputs(0, 1, in.data());
  const std::vector<float> blurred = gaussian_blur(bw.image.data(), 3, 10, 10, 5.0, 11);
  EXPECT_EQ(in, blurred);
  expect_split_invariant(
      [&] { return make_curve_plan(CurveKind::Insertion, bw.image, bw.h, bw.w, bw.good, 0, 10, &error); },
      BrightWorld::net);
}

TEST(ImagePlans, ExplanationMaskGivesOriginalAndMaskedProbabilities) {
  const int h = 4, w = 4;
  const std::vector<float> image(3 * h * w, 228.f);
  std::vector<float> saliency(h * w, 0.f);
  saliency[0] = 2;  // min–max -> m = 1 at pixel 0, 0 elsewhere -> mean(m) = 1/16
  std::string error;
  auto plan = make_explanation_mask_plan(image, h, w, saliency, 0, &error);
  ASSERT_TRUE(plan) << error;
  run(*plan, mean_red_net, {1});
  const auto j = nlohmann::json::parse(plan->result_json());
  const double p = sigmoid(1.0), q = sigmoid(1.0 / 16);
  EXPECT_NEAR(j["original"].get<double>(), p, 1e-6);
  EXPECT_NEAR(j["masked"].get<double>(), q, 1e-6);
  EXPECT_NEAR(j["drop"].get<double>(), (p - q) / p, 1e-6);
  EXPECT_FALSE(j["increase"].get<bool>());
}

TEST(ImagePlans, BadParametersAndAcceptErrors) {
  const std::vector<float> image(3 * 8 * 8, 0.f);
  std::string error;
  EXPECT_FALSE(make_rise_plan(image, 8, 8, 0, 10, 9, 0.5, 1, &error));
  EXPECT_NE(error.find("cells"), std::string::npos);
  EXPECT_FALSE(make_occlusion_plan(image, 8, 8, 0, 9, 1, &error));
  EXPECT_NE(error.find("window"), std::string::npos);
  EXPECT_FALSE(make_curve_plan(CurveKind::Deletion, image, 8, 8, std::vector<float>(10), 0, 4, &error));
  EXPECT_NE(error.find("saliency must have h·w = 64"), std::string::npos) << error;
  auto plan = make_occlusion_plan(image, 8, 8, 3, 4, 4, &error);
  ASSERT_TRUE(plan);
  const std::vector<float> logits(2, 0.f);
  EXPECT_NE(plan->accept(0, 1, logits.data(), 2).find("class index 3"), std::string::npos);
  const std::vector<float> l4(4, 0.f);
  EXPECT_EQ(plan->count(), 5);
  EXPECT_NE(plan->accept(5, 1, l4.data(), 4).find("outside"), std::string::npos);
  const std::vector<float> nan4 = {0, 0, 0, 0, 0, NAN, 0, 0};  // input 1 bad: input 0 is not kept either
  EXPECT_NE(plan->accept(0, 2, nan4.data(), 4).find("not finite"), std::string::npos);
  EXPECT_EQ(plan->accepted(), 0);
}

TEST(ImagePlans, TrapezoidAuc) {
  EXPECT_NEAR(trapezoid_auc({0, 0.5, 1}, {1, 0, 1}), 0.5, 1e-12);
  EXPECT_NEAR(trapezoid_auc({0, 1}, {0.2, 0.2}), 0.2, 1e-12);
}

}  // namespace
}  // namespace attnlab
