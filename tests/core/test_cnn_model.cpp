// The localisation CNN end to end: gradient of the loss w.r.t. every parameter and the input (double, tiny
// network, CBAM everywhere, each head), the CAM identity for GAP, config parsing, and a short seeded
// training run that must reach a stated accuracy on held-out images.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "gradcheck.h"
#include "model/cnn_model.h"
#include "nn/loss.h"
#include "train/cnn_trainer.h"

namespace attnlab {
namespace {

using test::expect_gradient;
using test::random_mat;

CnnConfig tiny_config(PoolHead head, bool residual = false) {
  CnnConfig cfg;
  cfg.residual = residual;  // channels 3 -> 3 -> 4 -> 4: identity shortcuts at stages 1 and 3, a projection at 2
  cfg.image_size = 8;
  cfg.num_classes = 3;
  cfg.widths = {3, 4, 4};
  cfg.pool = {true, false, true};
  cfg.cbam = {true, true, true};
  cfg.cbam_reduction = 2;
  cfg.head = head;
  cfg.lse_r = 2.0;
  return cfg;
}

// The analytic gradient of the cross-entropy w.r.t. every trained parameter and the input, against central
// differences (conv biases are absent; a BN-followed conv still has a real weight gradient).
void expect_cnn_gradients(const std::string& what, const CnnConfig& cfg, CnnParams<double>& p, Mat<double>& x,
                          const std::vector<int>& labels) {
  auto loss = [&] {
    CnnCache<double> c;
    cnn_forward(cfg, p, x, true, c);
    Mat<double> d;
    return weighted_cross_entropy<double>(c.logits, labels, {}, d);
  };
  CnnCache<double> c;
  cnn_forward(cfg, p, x, true, c);
  Mat<double> dlogits, dx;
  weighted_cross_entropy<double>(c.logits, labels, {}, dlogits);
  CnnParams<double> g;
  g.resize(cfg);
  g.set_zero();  // resize puts BN's gamma at 1
  cnn_backward(cfg, p, c, dlogits, &g, &dx);
  auto pn = p.trained();
  auto gn = g.trained();
  ASSERT_EQ(pn.size(), gn.size());
  for (size_t i = 0; i < pn.size(); ++i) expect_gradient(what + " " + pn[i].name, *pn[i].mat, *gn[i].mat, loss, 1e-6, 2e-6);
  expect_gradient(what + " input", x, dx, loss, 1e-6, 2e-6);
}

void check_model_gradient(PoolHead head, bool residual = false) {
  const CnnConfig cfg = tiny_config(head, residual);
  ASSERT_EQ(cfg.check(), "");
  Rng rng(5);
  CnnParams<double> p;
  p.init(cfg, rng);
  for (auto& np : p.trained())  // move BN / biases off their defaults so every path is exercised
    if (np.name.find("bn.") != std::string::npos) *np.mat = random_mat(np.mat->rows(), 1, rng).array() + 1.0;
  Mat<double> x = random_mat(cfg.input_shape().size(), 3, rng, 1.0);
  expect_cnn_gradients(pool_head_name(head), cfg, p, x, {0, 2, 1});
}

TEST(CnnModel, GradientGap) { check_model_gradient(PoolHead::Gap); }
TEST(CnnModel, GradientGmp) { check_model_gradient(PoolHead::Gmp); }
TEST(CnnModel, GradientLse) { check_model_gradient(PoolHead::Lse); }
TEST(CnnModel, GradientResidualGap) { check_model_gradient(PoolHead::Gap, true); }

TEST(CnnModel, GradientResidualWithoutCbam) {
  CnnConfig cfg = tiny_config(PoolHead::Gap, true);
  cfg.cbam = {false, false, false};
  Rng rng(6);
  CnnParams<double> p;
  p.init(cfg, rng);
  ASSERT_EQ(p.stages[0].sc_conv.w.size(), 0);  // 3 -> 3: identity
  ASSERT_EQ(p.stages[1].sc_conv.w.rows(), 3);  // 3 -> 4: a 1x1 projection [Cin x Cout]
  Mat<double> x = random_mat(cfg.input_shape().size(), 2, rng, 1.0);
  expect_cnn_gradients("residual", cfg, p, x, {2, 1});
}

TEST(CnnModel, ResidualStagesByHand) {
  // One residual stage whose conv and projection are zero: BN of a constant is beta, so the stage output is
  // ReLU(beta_branch + beta_shortcut) everywhere; with an identity shortcut it is ReLU(beta + x).
  CnnConfig cfg;
  cfg.image_size = 4;
  cfg.in_channels = 2;
  cfg.num_classes = 2;
  cfg.widths = {2};
  cfg.pool = {false};
  cfg.cbam = {false};
  cfg.residual = true;
  ASSERT_FALSE(cfg.has_projection(0));  // 2 -> 2: identity
  CnnParams<double> p;
  p.resize(cfg);
  EXPECT_EQ(p.stages[0].sc_conv.w.size(), 0);
  p.stages[0].bn.beta << 0.5, -2.0;
  Rng rng(3);
  const Mat<double> x = random_mat(32, 1, rng, 1.0);
  CnnCache<double> c;
  cnn_forward(cfg, p, x, false, c);
  for (int q = 0; q < 16; ++q) {
    EXPECT_NEAR(c.features()(q, 0), std::max(0.0, 0.5 + x(q, 0)), 1e-12);
    EXPECT_NEAR(c.features()(16 + q, 0), std::max(0.0, -2.0 + x(16 + q, 0)), 1e-12);
  }
  cfg.widths = {3};  // 2 -> 3: a projection
  ASSERT_TRUE(cfg.has_projection(0));
  p.resize(cfg);
  EXPECT_EQ(p.stages[0].sc_conv.w.rows(), 2);
  EXPECT_EQ(p.stages[0].sc_conv.w.cols(), 3);
  p.stages[0].bn.beta << 0.5, -2.0, 1.0;
  p.stages[0].sc_bn.beta << 0.25, 1.0, -3.0;
  cnn_forward(cfg, p, x, false, c);
  for (int q = 0; q < 16; ++q) {
    EXPECT_NEAR(c.features()(q, 0), 0.75, 1e-12);
    EXPECT_NEAR(c.features()(16 + q, 0), 0.0, 1e-12);
    EXPECT_NEAR(c.features()(32 + q, 0), 0.0, 1e-12);
  }
}

TEST(CnnModel, CamAveragesToTheGapLogit) {
  CnnConfig cfg;  // default 64x64 network, GAP head
  cfg.image_size = 32;
  Rng rng(8);
  CnnParams<float> p;
  p.init(cfg, rng);
  p.fc.b = random_mat(cfg.num_classes, 1, rng).cast<float>();
  const Mat<float> x = random_mat(cfg.input_shape().size(), 2, rng).cast<float>();
  CnnCache<float> c;
  cnn_forward(cfg, p, x, false, c);
  EXPECT_EQ(cfg.feature_shape(), (FeatureShape{64, 8, 8}));
  for (int b = 0; b < 2; ++b)
    for (int k = 0; k < cfg.num_classes; ++k) {
      const std::vector<float> cam = cnn_cam(cfg, p, c, b, k);
      ASSERT_EQ(cam.size(), 64u);
      double mean = 0;
      for (float v : cam) mean += v;
      mean /= cam.size();
      EXPECT_NEAR(mean + p.fc.b(k, 0), c.logits(k, b), 1e-4);
    }
}

TEST(CnnModel, CbamPlacementParsing) {
  std::vector<bool> v;
  ASSERT_TRUE(parse_cbam_placement("none", 3, &v));
  EXPECT_EQ(v, (std::vector<bool>{false, false, false}));
  ASSERT_TRUE(parse_cbam_placement("all", 3, &v));
  EXPECT_EQ(v, (std::vector<bool>{true, true, true}));
  ASSERT_TRUE(parse_cbam_placement("stage2", 3, &v));
  EXPECT_EQ(v, (std::vector<bool>{false, true, false}));
  ASSERT_TRUE(parse_cbam_placement("stage1,stage3", 3, &v));
  EXPECT_EQ(cbam_placement_name(v), "stage1,stage3");
  EXPECT_FALSE(parse_cbam_placement("stage4", 3, &v));
  EXPECT_FALSE(parse_cbam_placement("stage", 3, &v));
  EXPECT_FALSE(parse_cbam_placement("everywhere", 3, &v));
  EXPECT_EQ(cbam_placement_name({true, true, true}), "all");
  EXPECT_EQ(cbam_placement_name({false, false, false}), "none");
}

TEST(CnnModel, ConfigChecks) {
  CnnConfig cfg;
  EXPECT_EQ(cfg.check(), "");
  cfg.cbam = {true};
  EXPECT_NE(cfg.check(), "");
  cfg = {};
  cfg.lse_r = 0;
  EXPECT_NE(cfg.check().find("lse_r"), std::string::npos);
}

// A short native training run on a small fixed seed: 3 classes (circle, square, triangle), 32x32, the default
// widths. The task is not easy for a small net (a PyTorch model of the same architecture and recipe learns
// it at the same slow pace), so the bar is modest: well above chance (1/3) after 15,000 images.
CnnConfig small_cnn_config() {
  CnnConfig cfg;
  cfg.image_size = 32;
  cfg.num_classes = 3;
  return cfg;
}

CnnTrainOptions small_options() {
  CnnTrainOptions o;
  o.epochs = 3;
  o.train_size = 5000;
  o.val_size = 300;
  o.seed = 1;
  o.lr = 0.05;
  return o;
}

TEST(CnnTraining, ShortRunReachesStatedAccuracy) {
  const CnnConfig cfg = small_cnn_config();
  const CnnTrainOptions o = small_options();
  Rng rng(o.seed);
  CnnParams<float> p;
  p.init(cfg, rng);
  std::string error;
  int epochs_seen = 0;
  const auto history = train_cnn(cfg, p, o, [&](const CnnTrainProgress& pr) {
    epochs_seen += pr.epoch_done;
    if (pr.epoch_done)
      std::printf("epoch %d train loss %.4f acc %.3f val acc %.3f\n", pr.stats.epoch, pr.stats.train_loss,
                  pr.stats.train_accuracy, pr.stats.val_accuracy);
    return true;
  }, &error);
  ASSERT_EQ(error, "");
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(epochs_seen, 3);
  EXPECT_LT(history.back().train_loss, history.front().train_loss);
  ShapesConfig test_data;
  test_data.image_size = cfg.image_size;
  test_data.num_classes = cfg.num_classes;
  const CnnEvalResult r = evaluate_cnn(cfg, p, ShapesDataset(test_data, 99, Split::Test, 300));
  std::printf("test accuracy %.3f on %d images\n", r.accuracy, r.n);
  EXPECT_GE(r.accuracy, 0.5) << "test accuracy";
  EXPECT_GE(history.back().val_accuracy, 0.5) << "validation accuracy";
  EXPECT_GT(r.energy_in_mask, 0.0);
  EXPECT_LE(r.energy_in_mask, 1.0);
}

TEST(CnnTraining, DeterministicPerSeedAndStepSizeIndependent) {
  const CnnConfig cfg = small_cnn_config();
  CnnTrainOptions o = small_options();
  o.epochs = 1;
  o.train_size = 96;
  o.val_size = 32;
  o.optimizer = "adam";  // the SGD path runs in ShortRunReachesStatedAccuracy
  o.lr = 1e-3;
  Rng r1(o.seed), r2(o.seed);
  CnnParams<float> a, b;
  a.init(cfg, r1);
  b.init(cfg, r2);
  CnnTrainingRun run_a(cfg, a, o), run_b(cfg, b, o);
  while (!run_a.done()) run_a.step(1);
  while (!run_b.done()) run_b.step(100);
  CnnParams<float> fa = run_a.params(), fb = run_b.params();
  auto pa = fa.trained(), pb = fb.trained();
  for (size_t i = 0; i < pa.size(); ++i) EXPECT_EQ(*pa[i].mat, *pb[i].mat) << pa[i].name;
  EXPECT_EQ(run_a.history().back().val_accuracy, run_b.history().back().val_accuracy);
}

TEST(CnnTraining, RecalibratedBatchNormMatchesBatchStatistics) {
  // After recalibrating on one batch, eval mode on that batch equals training mode on it (up to the
  // unbiased-variance factor count / (count - 1), count = 8 * 32 * 32 for the first stage).
  CnnConfig cfg = small_cnn_config();
  cfg.cbam = {false, true, false};
  Rng rng(2);
  CnnParams<float> p;
  p.init(cfg, rng);
  ShapesConfig d;
  d.image_size = cfg.image_size;
  d.num_classes = cfg.num_classes;
  const ShapesDataset ds(d, 5, Split::Train, 8);
  const std::vector<int> idx = {0, 1, 2, 3, 4, 5, 6, 7};
  recalibrate_batch_norm(cfg, p, ds, {idx});
  Mat<float> x;
  std::vector<int> labels;
  ds.batch(idx, x, labels);
  CnnCache<float> train_mode, eval_mode;
  cnn_forward(cfg, p, x, true, train_mode);
  cnn_forward(cfg, p, x, false, eval_mode);
  EXPECT_LT((train_mode.logits - eval_mode.logits).cwiseAbs().maxCoeff(), 2e-3);
  EXPECT_GT(train_mode.logits.cwiseAbs().maxCoeff(), 1e-2);  // not trivially zero
  // and before recalibration (running statistics at their initial 0 / 1) the two differ clearly
  CnnParams<float> fresh;
  Rng rng2(2);
  fresh.init(cfg, rng2);
  cnn_forward(cfg, fresh, x, false, eval_mode);
  EXPECT_GT((train_mode.logits - eval_mode.logits).cwiseAbs().maxCoeff(), 1e-2);
}

TEST(CnnTraining, BadOptionsAreReported) {
  CnnConfig cfg = small_cnn_config();
  CnnTrainOptions o = small_options();
  o.optimizer = "rmsprop";
  CnnParams<float> p;
  p.resize(cfg);
  CnnTrainingRun run(cfg, p, o);
  EXPECT_TRUE(run.done());
  EXPECT_NE(run.error().find("optimizer"), std::string::npos);
  o = small_options();
  o.data.confounder = 2;
  EXPECT_NE(check_cnn_train_options(cfg, o).find("confounder"), std::string::npos);
}

}  // namespace
}  // namespace attnlab
