// Localisation lab experiments (issue 5): adversarial erasing's pure pieces on hand-made maps (answers worked
// out by hand in the comments), the erasing loop's invariants on a small random CNN, and the probe maps of
// experiment 5 (prediction = predict_cnn, GAP's class map averages to the logit minus the bias), and the
// GAIN-style attention-mining remedy: its soft mask and erasing by hand, the gradient of its loss (central
// differences, double, the mask held constant as the contract says), and its effect on one training step.
#include <gtest/gtest.h>

#include <cmath>

#include "experiments/cnn_attention_mining.h"
#include "experiments/cnn_erasing.h"
#include "experiments/cnn_formation.h"
#include "gradcheck.h"
#include "nn/loss.h"
#include "train/cnn_trainer.h"

namespace attnlab {
namespace {

TEST(CnnExperiments, TopRegionThresholdsTheNormalisedMap) {
  // {0,1,2,3} normalises to {0, 1/3, 2/3, 1}: >= 0.5 keeps the last two.
  EXPECT_EQ(cam_top_region({0, 1, 2, 3}, {0, 0, 0, 0}, 0.5), (std::vector<uint8_t>{0, 0, 1, 1}));
  // With the 3 erased, the rest {0,1,2} normalises to {0, 0.5, 1}: 1 and 2 kept (0.5 >= 0.5), 3 not again.
  EXPECT_EQ(cam_top_region({0, 1, 2, 3}, {0, 0, 0, 1}, 0.5), (std::vector<uint8_t>{0, 1, 1, 0}));
  // Negative values and threshold 1: only the maximum (-1 of {-3,-1,-2}).
  EXPECT_EQ(cam_top_region({-3, -1, -2}, {0, 0, 0}, 1.0), (std::vector<uint8_t>{0, 1, 0}));
  // A flat remainder selects everything left; nothing left selects nothing.
  EXPECT_EQ(cam_top_region({5, 5, 9}, {0, 0, 1}, 0.9), (std::vector<uint8_t>{1, 1, 0}));
  EXPECT_EQ(cam_top_region({5, 5}, {1, 1}, 0.5), (std::vector<uint8_t>{0, 0}));
  // Mismatched sizes: empty region of the map's size.
  EXPECT_EQ(cam_top_region({1, 2}, {0}, 0.5), (std::vector<uint8_t>{0, 0}));
}

TEST(CnnExperiments, EraseRegionWritesEveryChannel) {
  std::vector<float> img = {1, 2, 3, 4, 5, 6};  // 2 channels x 3 pixels
  erase_region(img, 2, {0, 1, 1}, 0.5f);
  EXPECT_EQ(img, (std::vector<float>{1, 0.5f, 0.5f, 4, 0.5f, 0.5f}));
}

TEST(CnnExperiments, RecallAndPrecisionByHand) {
  const std::vector<uint8_t> uni = {1, 1, 1, 0, 0, 0}, mask = {0, 1, 1, 1, 1, 0};
  EXPECT_DOUBLE_EQ(mask_recall(uni, mask), 2.0 / 4.0);     // 2 of the 4 mask pixels covered
  EXPECT_DOUBLE_EQ(mask_precision(uni, mask), 2.0 / 3.0);  // 2 of the 3 union pixels on the object
  EXPECT_EQ(mask_recall(uni, {0, 0, 0, 0, 0, 0}), 0.0);
  EXPECT_EQ(mask_precision({0, 0, 0, 0, 0, 0}, mask), 0.0);
}

CnnConfig small_config() {
  CnnConfig cfg;
  cfg.image_size = 16;
  cfg.num_classes = 3;
  cfg.widths = {4, 6};
  cfg.pool = {true, false};
  cfg.cbam = {false, true};
  cfg.cbam_reduction = 2;
  return cfg;
}

ShapesConfig small_data(const CnnConfig& cfg) {
  ShapesConfig d;
  d.image_size = cfg.image_size;
  d.num_classes = cfg.num_classes;
  return d;
}

TEST(CnnExperiments, ErasingGrowsTheUnionAndStartsFromTheCleanAccuracy) {
  const CnnConfig cfg = small_config();
  ASSERT_EQ(cfg.check(), "");
  Rng rng(3);
  CnnParams<float> p;
  p.init(cfg, rng);
  const ShapesDataset data(small_data(cfg), 7, Split::Test, 20);
  CnnErasingOptions o;
  o.steps = 4;
  o.batch_size = 7;  // batches of 7, 7, 6
  const CnnErasingResult r = run_cnn_erasing(cfg, p, data, o);
  ASSERT_EQ(r.recall.size(), 4u);
  EXPECT_EQ(r.n, 20);
  EXPECT_NEAR(r.still_correct[0], evaluate_cnn(cfg, p, data).accuracy, 1e-12);
  EXPECT_NEAR(r.union_area[0], r.step_area[0], 1e-12);
  for (int k = 1; k < 4; ++k) {
    EXPECT_GE(r.recall[k], r.recall[k - 1]);
    EXPECT_GE(r.union_area[k], r.union_area[k - 1]);
    EXPECT_NEAR(r.union_area[k], r.union_area[k - 1] + r.step_area[k], 1e-9);  // regions are disjoint
  }
  for (int k = 0; k < 4; ++k) {
    EXPECT_GT(r.step_area[k], 0.0);  // the maximum of the remaining pixels is always selected
    EXPECT_LE(r.recall[k], 1.0);
    EXPECT_LE(r.precision[k], 1.0);
  }
  // Threshold 0 erases everything left at step 1: the union is the whole image, recall 1.
  o.threshold = 0.0;
  const CnnErasingResult all = run_cnn_erasing(cfg, p, data, o);
  EXPECT_NEAR(all.union_area[0], 1.0, 1e-12);
  EXPECT_NEAR(all.recall[0], 1.0, 1e-12);
}

TEST(CnnExperiments, ProbeMapsMatchPredictionAndGapIdentity) {
  const CnnConfig cfg = small_config();
  Rng rng(4);
  CnnParams<float> p;
  p.init(cfg, rng);
  const ShapesDataset data(small_data(cfg), 2, Split::Test, 5);
  Mat<float> x;
  std::vector<int> labels;
  data.batch({0, 1, 2, 3, 4}, x, labels);
  const CnnProbeMaps pm = cnn_probe_maps(cfg, p, x, labels);
  ASSERT_EQ(pm.probes.size(), 5u);
  EXPECT_EQ(pm.h, 8);
  EXPECT_EQ(pm.w, 8);
  const std::vector<int> pred = predict_cnn(cfg, p, x);
  CnnCache<float> cache;
  cnn_forward(cfg, p, x, false, cache);
  for (int b = 0; b < 5; ++b) {
    const CnnProbeMap& m = pm.probes[b];
    EXPECT_EQ(m.label, labels[b]);
    EXPECT_EQ(m.predicted, pred[b]);
    ASSERT_EQ(m.cam.size(), 64u);
    double mean = 0;
    for (float v : m.cam) mean += v / 64.0;
    EXPECT_NEAR(mean + p.fc.b(labels[b], 0), cache.logits(labels[b], b), 1e-4);
    ASSERT_EQ(m.cbam.size(), 2u);
    EXPECT_TRUE(m.cbam[0].empty());
    EXPECT_EQ(m.cbam[1].size(), 64u);  // stage 2 has CBAM, before its (absent) pool: 8x8
  }
  EXPECT_TRUE(cnn_probe_maps(cfg, p, x, {0, 1}).probes.empty());  // label count mismatch
}

CnnConfig tiny_config() {
  CnnConfig cfg;
  cfg.image_size = 8;
  cfg.num_classes = 3;
  cfg.widths = {3, 4};
  cfg.pool = {true, false};
  cfg.cbam = {false, true};
  cfg.cbam_reduction = 2;
  return cfg;
}

TEST(CnnExperiments, AttentionMiningSoftMaskAndErasing) {
  const CnnConfig cfg = tiny_config();
  Rng rng(8);
  CnnParams<double> p;
  p.init(cfg, rng);
  const Mat<double> x = test::random_mat(cfg.input_shape().size(), 2, rng, 1.0);
  const std::vector<int> labels = {1, 2};
  CnnCache<double> cache;
  cnn_forward(cfg, p, x, true, cache);
  AttentionMiningOptions o;
  o.fill = 0.25;
  Mat<double> masks;
  const Mat<double> xs = attention_mining_erase(cfg, p, cache, x, labels, o, &masks);
  ASSERT_EQ(masks.rows(), 64);
  // The normalised map runs from 0 to 1, so T runs from sigmoid(10 * -0.5) to sigmoid(10 * 0.5).
  const double lo = 1 / (1 + std::exp(5.0)), hi = 1 / (1 + std::exp(-5.0));
  for (int b = 0; b < 2; ++b) {
    EXPECT_NEAR(masks.col(b).minCoeff(), lo, 1e-6);
    EXPECT_NEAR(masks.col(b).maxCoeff(), hi, 1e-6);
    for (int c = 0; c < 3; ++c)
      for (int q = 0; q < 64; ++q)
        EXPECT_NEAR(xs(c * 64 + q, b), x(c * 64 + q, b) + masks(q, b) * (0.25 - x(c * 64 + q, b)), 1e-12);
  }
}

TEST(CnnExperiments, TrueClassProbabilityLossGradient) {
  Rng rng(9);
  Mat<double> z = test::random_mat(4, 3, rng, 2.0);
  const std::vector<int> labels = {0, 3, 2};
  Mat<double> d;
  const double loss = true_class_probability_loss<double>(z, labels, d);
  const Mat<double> prob = softmax_columns<double>(z);
  EXPECT_NEAR(loss, (prob(0, 0) + prob(3, 1) + prob(2, 2)) / 3, 1e-12);
  test::expect_gradient("p_y", z, d, [&] {
    Mat<double> dd;
    return true_class_probability_loss<double>(z, labels, dd);
  }, 1e-6, 1e-7);
}

TEST(CnnExperiments, AttentionMiningGradientWithConstantMask) {
  const CnnConfig cfg = tiny_config();
  Rng rng(10);
  CnnParams<double> p;
  p.init(cfg, rng);
  const Mat<double> x = test::random_mat(cfg.input_shape().size(), 3, rng, 1.0);
  const std::vector<int> labels = {0, 2, 1};
  AttentionMiningOptions o;
  o.weight = 2.0;
  CnnCache<double> c0;
  CnnParams<double> g;
  g.resize(cfg);
  g.set_zero();
  const AttentionMiningLosses l = attention_mining_gradients<double>(cfg, p, x, labels, o, c0, nullptr, &g);
  EXPECT_GT(l.mining, 0.0);
  // The erased batch at the current weights, then held constant while the weights move.
  CnnCache<double> cx;
  cnn_forward(cfg, p, x, true, cx);
  const Mat<double> xs = attention_mining_erase(cfg, p, cx, x, labels, o, static_cast<Mat<double>*>(nullptr));
  auto loss = [&] {
    CnnCache<double> a, b;
    cnn_forward(cfg, p, x, true, a);
    cnn_forward(cfg, p, xs, true, b);
    Mat<double> d;
    const double ce = weighted_cross_entropy<double>(a.logits, labels, {}, d) / 3.0;
    return ce + o.weight * true_class_probability_loss<double>(b.logits, labels, d);
  };
  EXPECT_NEAR(loss(), l.classification + o.weight * l.mining, 1e-12);
  auto pn = p.trained();
  auto gn = g.trained();
  for (size_t i = 0; i < pn.size(); ++i) test::expect_gradient("am " + pn[i].name, *pn[i].mat, *gn[i].mat, loss, 1e-6, 2e-6);
  // weight 0: no second pass, plain cross-entropy gradients.
  CnnParams<double> g0;
  g0.resize(cfg);
  g0.set_zero();
  o.weight = 0;
  const AttentionMiningLosses l0 = attention_mining_gradients<double>(cfg, p, x, labels, o, c0, nullptr, &g0);
  EXPECT_EQ(l0.mining, 0.0);
  EXPECT_NEAR(l0.classification, l.classification, 1e-12);
}

TEST(CnnExperiments, BackgroundClassRateIsAccuracyWhenBackgroundsFollowTheClass) {
  const CnnConfig cfg = small_config();
  Rng rng(11);
  CnnParams<float> p;
  p.init(cfg, rng);
  ShapesConfig d = small_data(cfg);
  d.confounder = 1.0;  // background kind == class for every image
  const ShapesDataset data(d, 5, Split::Test, 30);
  for (int i = 0; i < 30; ++i) {
    EXPECT_EQ(data.spec(i).label, data.example(i).label);
    EXPECT_EQ(data.spec(i).background, data.spec(i).label);
  }
  const CnnEvalResult r = evaluate_cnn(cfg, p, data);
  EXPECT_DOUBLE_EQ(r.background_class_rate, r.accuracy);
  // Count by hand on a de-correlated split.
  const ShapesDataset free(small_data(cfg), 5, Split::Test, 30);
  Mat<float> x;
  std::vector<int> labels;
  std::vector<int> idx(30);
  for (int i = 0; i < 30; ++i) idx[i] = i;
  free.batch(idx, x, labels);
  const std::vector<int> pred = predict_cnn(cfg, p, x);
  double hits = 0;
  for (int i = 0; i < 30; ++i) hits += pred[i] == free.spec(i).background;
  EXPECT_DOUBLE_EQ(evaluate_cnn(cfg, p, free).background_class_rate, hits / 30);
}

TEST(CnnExperiments, TrainerRejectsBadAttentionMiningOptions) {
  CnnConfig cfg;
  CnnTrainOptions o;
  o.attention_mining = -1;
  EXPECT_NE(check_cnn_train_options(cfg, o).find("attention_mining"), std::string::npos);
  o.attention_mining = 1;
  EXPECT_EQ(check_cnn_train_options(cfg, o), "");
}

}  // namespace
}  // namespace attnlab
