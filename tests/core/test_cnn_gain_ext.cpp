// GAIN_ext (train/gain_ext_loss.h): the upsampling matrix against the upsampler, the per-map loss by hand, its
// gradient w.r.t. the map and the whole training step's gradient w.r.t. every parameter (central differences,
// double; plain and residual networks, with and without the attention-mining term), the seeded choice of
// mask-carrying images, the option checks, and a few SGD steps on the term alone lowering it.
#include <gtest/gtest.h>

#include <cmath>

#include "gradcheck.h"
#include "image/map_ops.h"
#include "nn/loss.h"
#include "nn/sgd.h"
#include "train/cnn_trainer.h"
#include "train/gain_ext_loss.h"

namespace attnlab {
namespace {

using test::random_mat;

double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

TEST(CnnGainExt, UpsampleMatrixIsTheUpsampler) {
  const Mat<double> U = bilinear_upsample_matrix<double>(3, 4, 7, 9);  // non-integer ratios
  ASSERT_EQ(U.rows(), 63);
  ASSERT_EQ(U.cols(), 12);
  Rng rng(1);
  std::vector<float> m(12);
  Vec<double> v(12);
  for (int j = 0; j < 12; ++j) v(j) = m[j] = float(rng.normal());
  const std::vector<float> up = upsample_bilinear(m.data(), 3, 4, 7, 9);
  const Vec<double> u = U * v;
  for (int q = 0; q < 63; ++q) EXPECT_NEAR(u(q), up[q], 1e-6) << q;
  for (int q = 0; q < 63; ++q) EXPECT_NEAR(U.row(q).sum(), 1.0, 1e-6);  // convex weights
}

TEST(CnnGainExt, MapLossByHand) {
  // U = identity (2x2 -> 2x2), map {0, 1, 2, 4}: A = {0, 1/4, 1/2, 1}; mask {0, 0, 1, 1}.
  const Mat<double> U = bilinear_upsample_matrix<double>(2, 2, 2, 2);
  EXPECT_NEAR((U - Mat<double>::Identity(4, 4)).cwiseAbs().maxCoeff(), 0.0, 1e-12);
  Vec<double> cam(4);
  cam << 0, 1, 2, 4;
  const uint8_t mask[4] = {0, 0, 1, 1};
  GainExtOptions o;
  const double t0 = sigmoid(-5), t1 = sigmoid(-2.5), t2 = 0.5, t3 = sigmoid(5);
  const double want = (t0 * t0 + t1 * t1 + (t2 - 1) * (t2 - 1) + (t3 - 1) * (t3 - 1)) / 4;
  Vec<double> d;
  EXPECT_NEAR(gain_ext_map_loss<double>(U, cam, mask, o, &d), want, 1e-12);
  // Scale and shift invariance (min-max normalisation): 3 cam - 7 gives the same loss, gradient / 3.
  Vec<double> d3;
  EXPECT_NEAR(gain_ext_map_loss<double>(U, (3 * cam.array() - 7).matrix(), mask, o, &d3), want, 1e-12);
  EXPECT_NEAR((d3 * 3 - d).cwiseAbs().maxCoeff(), 0.0, 1e-12);
  EXPECT_NEAR(d.sum(), 0.0, 1e-12);  // shift invariance: the gradient sums to zero
  // A constant map: A = 0, T = sigmoid(-5) everywhere, no gradient.
  Vec<double> flat = Vec<double>::Constant(4, 2.0), df;
  EXPECT_NEAR(gain_ext_map_loss<double>(U, flat, mask, o, &df),
              (2 * t0 * t0 + 2 * (t0 - 1) * (t0 - 1)) / 4, 1e-12);
  EXPECT_EQ(df.cwiseAbs().maxCoeff(), 0.0);
}

TEST(CnnGainExt, MapLossGradient) {
  const Mat<double> U = bilinear_upsample_matrix<double>(3, 3, 8, 8);
  Rng rng(2);
  Mat<double> cam = random_mat(9, 1, rng, 1.0);
  std::vector<uint8_t> mask(64, 0);
  for (int y = 2; y < 6; ++y)
    for (int x = 1; x < 5; ++x) mask[y * 8 + x] = 1;
  GainExtOptions o;
  o.omega = 4;  // a softer sigmoid keeps the finite differences well inside one linear piece of min / max
  Vec<double> d;
  gain_ext_map_loss<double>(U, cam, mask.data(), o, &d);
  test::expect_gradient("map", cam, d, [&] {
    return gain_ext_map_loss<double>(U, cam, mask.data(), o, static_cast<Vec<double>*>(nullptr));
  }, 1e-6, 1e-7);
  // Negative control: the gradient with the normalisation's min and max held constant (what a detached
  // normalisation would give) misses the numeric one — the check above sees the min / max routing.
  const Vec<double> u = U * cam;
  const double lo = u.minCoeff(), span = u.maxCoeff() - lo;
  Vec<double> gu(64);
  for (int q = 0; q < 64; ++q) {
    const double t = sigmoid(o.omega * ((u(q) - lo) / span - o.sigma));
    gu(q) = 2 * (t - mask[q]) / 64 * o.omega * t * (1 - t) / span;
  }
  const Vec<double> detached = U.transpose() * gu;
  EXPECT_GT((detached - d).cwiseAbs().maxCoeff(), 1e-3);
}

CnnConfig tiny_config(bool residual) {
  CnnConfig cfg;
  cfg.image_size = 8;
  cfg.num_classes = 3;
  cfg.widths = {3, 4, 4};
  cfg.pool = {true, false, false};
  cfg.cbam = {false, true, true};
  cfg.cbam_reduction = 2;
  cfg.residual = residual;  // channels 3 -> 3 -> 4 -> 4: identity shortcuts at stages 1 and 3, a projection at 2
  return cfg;
}

std::vector<std::vector<uint8_t>> test_masks(const CnnConfig& cfg, const std::vector<bool>& carries) {
  const int S = cfg.image_size;
  std::vector<std::vector<uint8_t>> masks(carries.size());
  for (size_t b = 0; b < carries.size(); ++b) {
    if (!carries[b]) continue;
    masks[b].assign(S * S, 0);
    for (int y = 1 + int(b); y < 5 + int(b); ++y)
      for (int x = 2; x < 6; ++x) masks[b][y * S + x] = 1;
  }
  return masks;
}

void check_step_gradient(bool residual, double am_weight) {
  const CnnConfig cfg = tiny_config(residual);
  ASSERT_EQ(cfg.check(), "");
  Rng rng(12);
  CnnParams<double> p;
  p.init(cfg, rng);
  const Mat<double> x = random_mat(cfg.input_shape().size(), 3, rng, 1.0);
  const std::vector<int> labels = {0, 2, 1};
  const auto masks = test_masks(cfg, {true, false, true});
  const FeatureShape fs = cfg.feature_shape();
  const Mat<double> U = bilinear_upsample_matrix<double>(fs.h, fs.w, cfg.image_size, cfg.image_size);
  AttentionMiningOptions am;
  am.weight = am_weight;
  GainExtOptions ext;
  ext.weight = 3.0;
  ext.omega = 4.0;
  CnnCache<double> c0;
  CnnParams<double> g;
  g.resize(cfg);
  g.set_zero();
  const GainLosses l = gain_gradients<double>(cfg, p, x, labels, masks, am, ext, U, c0, nullptr, &g);
  EXPECT_EQ(l.masked, 2);
  EXPECT_GT(l.ext, 0.0);
  // The attention-mining erasure at the current weights, then held constant (its contract).
  CnnCache<double> cx;
  cnn_forward(cfg, p, x, true, cx);
  const Mat<double> xs = attention_mining_erase(cfg, p, cx, x, labels, am, static_cast<Mat<double>*>(nullptr));
  auto loss = [&] {
    CnnCache<double> a;
    cnn_forward(cfg, p, x, true, a);
    Mat<double> d;
    double total = weighted_cross_entropy<double>(a.logits, labels, {}, d) / 3.0;
    // L_e from cnn_cam's definition (not gain_ext_gradients): mean over the two masked images.
    for (int b : {0, 2}) {
      Eigen::Map<const Mat<double>> f(a.features().col(b).data(), fs.hw(), fs.c);
      const Vec<double> cam = f * p.fc.w.row(labels[b]).transpose();
      total += ext.weight / 2 * gain_ext_map_loss<double>(U, cam, masks[b].data(), ext, nullptr);
    }
    if (am.weight > 0) {
      CnnCache<double> e;
      cnn_forward(cfg, p, xs, true, e);
      total += am.weight * true_class_probability_loss<double>(e.logits, labels, d);
    }
    return total;
  };
  EXPECT_NEAR(loss(), l.classification + l.ext + am.weight * l.mining, 1e-12);
  auto pn = p.trained();
  auto gn = g.trained();
  for (size_t i = 0; i < pn.size(); ++i)
    test::expect_gradient("gain_ext " + pn[i].name, *pn[i].mat, *gn[i].mat, loss, 1e-6, 2e-6);
}

TEST(CnnGainExt, StepGradientPlain) { check_step_gradient(false, 0.0); }
TEST(CnnGainExt, StepGradientResidualWithAttentionMining) { check_step_gradient(true, 1.5); }

TEST(CnnGainExt, NoMaskNoTerm) {
  // Without mask-carrying images the step is the plain cross-entropy step, to the bit.
  const CnnConfig cfg = tiny_config(false);
  Rng rng(13);
  CnnParams<double> p;
  p.init(cfg, rng);
  const Mat<double> x = random_mat(cfg.input_shape().size(), 2, rng, 1.0);
  const std::vector<int> labels = {1, 0};
  const FeatureShape fs = cfg.feature_shape();
  const Mat<double> U = bilinear_upsample_matrix<double>(fs.h, fs.w, 8, 8);
  GainExtOptions ext;
  ext.weight = 5;
  CnnCache<double> c;
  CnnParams<double> g, g0;
  g.resize(cfg);
  g.set_zero();
  g0 = g;
  const GainLosses l = gain_gradients<double>(cfg, p, x, labels, {{}, {}}, {}, ext, U, c, nullptr, &g);
  EXPECT_EQ(l.ext, 0.0);
  EXPECT_EQ(l.masked, 0);
  attention_mining_gradients<double>(cfg, p, x, labels, {}, c, nullptr, &g0);
  auto a = g.trained(), b = g0.trained();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(*a[i].mat, *b[i].mat) << a[i].name;
}

TEST(CnnGainExt, MaskCarriersAreSeededAndCounted) {
  auto count = [](const std::vector<uint8_t>& v) {
    int k = 0;
    for (uint8_t c : v) k += c;
    return k;
  };
  const auto a = gain_ext_mask_carriers(8000, 0.02, 1);
  EXPECT_EQ(a.size(), 8000u);
  EXPECT_EQ(count(a), 160);
  EXPECT_EQ(a, gain_ext_mask_carriers(8000, 0.02, 1));
  EXPECT_NE(a, gain_ext_mask_carriers(8000, 0.02, 2));
  EXPECT_EQ(count(gain_ext_mask_carriers(8000, 0.1, 1)), 800);
  EXPECT_EQ(count(gain_ext_mask_carriers(100, 0.001, 1)), 1);  // at least one
  EXPECT_EQ(count(gain_ext_mask_carriers(100, 0.0, 1)), 0);
  EXPECT_EQ(count(gain_ext_mask_carriers(100, 1.0, 1)), 100);
}

TEST(CnnGainExt, TrainerChecksTheOptions) {
  CnnConfig cfg;
  CnnTrainOptions o;
  o.ext_weight = 1;
  EXPECT_NE(check_cnn_train_options(cfg, o).find("ext_fraction"), std::string::npos);
  o.ext_fraction = 0.1;
  EXPECT_EQ(check_cnn_train_options(cfg, o), "");
  o.ext_fraction = 1.5;
  EXPECT_NE(check_cnn_train_options(cfg, o).find("ext_fraction"), std::string::npos);
  o.ext_fraction = 0.1;
  o.ext_weight = -1;
  EXPECT_NE(check_cnn_train_options(cfg, o).find("ext_weight"), std::string::npos);
}

TEST(CnnGainExt, SgdOnTheTermAloneLowersIt) {
  // The term is a loss the network can fit: 30 plain SGD steps on L_e alone (no cross-entropy), on three
  // images with masks, lower it (a sign error in the backward would raise it).
  const CnnConfig cfg = tiny_config(false);
  Rng rng(14);
  CnnParams<double> p;
  p.init(cfg, rng);
  const Mat<double> x = random_mat(cfg.input_shape().size(), 3, rng, 1.0);
  const std::vector<int> labels = {0, 1, 2};
  const auto masks = test_masks(cfg, {true, true, true});
  const FeatureShape fs = cfg.feature_shape();
  const Mat<double> U = bilinear_upsample_matrix<double>(fs.h, fs.w, 8, 8);
  GainExtOptions ext;
  ext.weight = 1;
  auto ext_loss_and_grad = [&](CnnParams<double>* g) {
    CnnCache<double> c;
    cnn_forward(cfg, p, x, true, c);
    Mat<double> dfeat, zero = Mat<double>::Zero(cfg.num_classes, 3);
    const double l = gain_ext_gradients<double>(cfg, p, c, labels, masks, ext, U, &dfeat, g);
    if (g) cnn_backward(cfg, p, c, zero, g, static_cast<Mat<double>*>(nullptr), &dfeat);
    return l;
  };
  const double before = ext_loss_and_grad(nullptr);
  Sgd<double> sgd(SgdOptions{0.5, 0.0, 0.0, false}, p.list());
  for (int k = 0; k < 30; ++k) {
    CnnParams<double> g;
    g.resize(cfg);
    g.set_zero();
    ext_loss_and_grad(&g);
    sgd.step(p.list(), g.list());
  }
  const double after = ext_loss_and_grad(nullptr);
  EXPECT_LT(after, 0.8 * before) << before << " -> " << after;
}

}  // namespace
}  // namespace attnlab
