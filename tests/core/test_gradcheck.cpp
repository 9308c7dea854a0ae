// Every backward pass against central finite differences (double precision, small sizes).
#include "gradcheck.h"
#include "model/text_model.h"
#include "nn/embedding.h"
#include "nn/loss.h"

namespace attnlab {
namespace {

using test::expect_gradient;
using test::random_mat;
using test::zero_padding;

constexpr int E = 3, H = 4, STEPS = 4;
const std::vector<int> kLengths = {4, 2, 3};
constexpr int B = 3;


TEST(GradCheck, Lstm) {
  Rng rng(1);
  LstmParams<double> p;
  p.w_ih = random_mat(4 * H, E, rng);
  p.w_hh = random_mat(4 * H, H, rng);
  p.bias = random_mat(4 * H, 1, rng);
  Mat<double> x = random_mat(E, STEPS * B, rng);
  const Mat<double> r = random_mat(H, STEPS * B, rng);
  auto loss = [&] {
    LstmCache<double> c;
    lstm_forward(p, x, B, STEPS, c);
    return (c.out.array() * r.array()).sum();
  };
  LstmCache<double> c;
  lstm_forward(p, x, B, STEPS, c);
  LstmParams<double> g;
  g.resize(E, H);
  Mat<double> dx;
  lstm_backward(p, x, c, r, &g, &dx);
  expect_gradient("w_ih", p.w_ih, g.w_ih, loss);
  expect_gradient("w_hh", p.w_hh, g.w_hh, loss);
  expect_gradient("bias", p.bias, g.bias, loss);
  expect_gradient("x", x, dx, loss);
}

TEST(GradCheck, BiLstmWithMasks) {
  Rng rng(2);
  BiLstmParams<double> p;
  for (LstmParams<double>* l : {&p.fwd, &p.bwd}) {
    l->w_ih = random_mat(4 * H, E, rng);
    l->w_hh = random_mat(4 * H, H, rng);
    l->bias = random_mat(4 * H, 1, rng);
  }
  Mat<double> x = random_mat(E, STEPS * B, rng);
  const Mat<double> r = zero_padding(random_mat(2 * H, STEPS * B, rng), kLengths);
  auto loss = [&] {
    BiLstmCache<double> c;
    bilstm_forward(p, x, kLengths, STEPS, c);
    return (c.out.array() * r.array()).sum();
  };
  BiLstmCache<double> c;
  bilstm_forward(p, x, kLengths, STEPS, c);
  BiLstmParams<double> g;
  g.fwd.resize(E, H);
  g.bwd.resize(E, H);
  Mat<double> dx;
  bilstm_backward(p, x, c, r, &g, &dx);
  expect_gradient("fwd.w_ih", p.fwd.w_ih, g.fwd.w_ih, loss);
  expect_gradient("fwd.w_hh", p.fwd.w_hh, g.fwd.w_hh, loss);
  expect_gradient("fwd.bias", p.fwd.bias, g.fwd.bias, loss);
  expect_gradient("bwd.w_ih", p.bwd.w_ih, g.bwd.w_ih, loss);
  expect_gradient("bwd.w_hh", p.bwd.w_hh, g.bwd.w_hh, loss);
  expect_gradient("bwd.bias", p.bwd.bias, g.bwd.bias, loss);
  expect_gradient("x", x, dx, loss);
  // Padding never reaches real positions: its input gradient is zero.
  EXPECT_EQ(zero_padding(dx, kLengths), dx);
}

TEST(BiLstm, PaddingDoesNotChangeRealOutputsAndMatchesUnpaddedRun) {
  Rng rng(3);
  BiLstmParams<double> p;
  for (LstmParams<double>* l : {&p.fwd, &p.bwd}) {
    l->w_ih = random_mat(4 * H, E, rng);
    l->w_hh = random_mat(4 * H, H, rng);
    l->bias = random_mat(4 * H, 1, rng);
  }
  Mat<double> x = random_mat(E, STEPS * B, rng);
  BiLstmCache<double> padded;
  bilstm_forward(p, x, kLengths, STEPS, padded);
  // Sequence b=1 (length 2) alone, no padding.
  Mat<double> x1(E, 2);
  x1.col(0) = x.col(0 * B + 1);
  x1.col(1) = x.col(1 * B + 1);
  BiLstmCache<double> alone;
  bilstm_forward(p, x1, {2}, 2, alone);
  for (int t = 0; t < 2; ++t)
    EXPECT_LT((alone.out.col(t) - padded.out.col(t * B + 1)).cwiseAbs().maxCoeff(), 1e-12);
  // The backward direction's state at t=0 must have read both real tokens, not padding: changing a
  // padded input leaves every real output unchanged.
  Mat<double> x2 = x;
  x2.col(3 * B + 1) += Vec<double>::Ones(E);
  BiLstmCache<double> changed;
  bilstm_forward(p, x2, kLengths, STEPS, changed);
  EXPECT_EQ(zero_padding(changed.out, kLengths), zero_padding(padded.out, kLengths));
}

class AttentionGradCheck : public ::testing::TestWithParam<AttentionKind> {};

TEST_P(AttentionGradCheck, ContextGradients) {
  const AttentionKind kind = GetParam();
  Rng rng(4);
  AttentionParams<double> p;
  if (kind == AttentionKind::Tanh) {
    p.w1 = random_mat(H, 2 * H, rng);
    p.b1 = random_mat(H, 1, rng);
    p.v = random_mat(1, H, rng, 1.0);
  } else if (kind == AttentionKind::Dot) {
    p.v = random_mat(1, 2 * H, rng, 1.0);
  }
  Mat<double> h = random_mat(2 * H, STEPS * B, rng, 1.0);
  const Mat<double> r = random_mat(2 * H, B, rng);
  auto loss = [&] {
    AttentionCache<double> c;
    attention_forward(kind, p, h, kLengths, STEPS, c);
    return (c.context.array() * r.array()).sum();
  };
  AttentionCache<double> c;
  attention_forward(kind, p, h, kLengths, STEPS, c);
  AttentionParams<double> g{Mat<double>::Zero(p.w1.rows(), p.w1.cols()), Mat<double>::Zero(p.b1.rows(), 1),
                            Mat<double>::Zero(p.v.rows(), p.v.cols())};
  Mat<double> dh = Mat<double>::Zero(h.rows(), h.cols());
  Mat<double> d_alpha;
  attention_backward(kind, p, h, kLengths, STEPS, c, r, false, dh, &g, &d_alpha);
  // Only real columns of h matter; padded columns must get zero gradient.
  expect_gradient("h", h, dh, loss);
  EXPECT_EQ(zero_padding(dh, kLengths), dh);
  if (kind == AttentionKind::Tanh) {
    expect_gradient("w1", p.w1, g.w1, loss);
    expect_gradient("b1", p.b1, g.b1, loss);
  }
  if (kind != AttentionKind::Uniform) expect_gradient("v", p.v, g.v, loss);
  // dL/dalpha against imposed weights.
  Mat<double> alpha = c.alpha;
  auto loss_alpha = [&] {
    AttentionCache<double> c2;
    attention_forward(kind, p, h, kLengths, STEPS, c2, &alpha);
    return (c2.context.array() * r.array()).sum();
  };
  expect_gradient("alpha", alpha, d_alpha, loss_alpha);
}

INSTANTIATE_TEST_SUITE_P(Kinds, AttentionGradCheck,
                         ::testing::Values(AttentionKind::Tanh, AttentionKind::Dot, AttentionKind::Uniform),
                         [](const auto& info) { return std::string(attention_name(info.param)); });

TEST(GradCheck, WeightedBceAndCrossEntropy) {
  Rng rng(5);
  Mat<double> z = random_mat(1, 5, rng, 2.0);
  const std::vector<int> y = {1, 0, 1, 1, 0};
  Mat<double> d;
  weighted_bce_with_logits<double>(z, y, 0.7, d);
  Mat<double> scratch;
  expect_gradient("bce", z, d, [&] { return weighted_bce_with_logits<double>(z, y, 0.7, scratch); });
  Mat<double> z3 = random_mat(3, 4, rng, 2.0);
  const std::vector<int> y3 = {2, 0, 1, 2};
  const std::vector<double> w = {0.5, 2.0, 1.5};
  weighted_cross_entropy<double>(z3, y3, w, d);
  expect_gradient("ce", z3, d, [&] { return weighted_cross_entropy<double>(z3, y3, w, scratch); });
}

TEST(Loss, BceMatchesClosedForm) {
  Mat<double> z(1, 2);
  z << 0.3, -1.2;
  Mat<double> d;
  const double loss = weighted_bce_with_logits<double>(z, {1, 0}, 2.0, d);
  const double expected = 2.0 * -std::log(1 / (1 + std::exp(-0.3))) + -std::log(1 - 1 / (1 + std::exp(1.2)));
  EXPECT_NEAR(loss, expected, 1e-12);
}

class ModelGradCheck : public ::testing::TestWithParam<std::tuple<AttentionKind, int, EncoderKind>> {};

TEST_P(ModelGradCheck, AllParametersAndEmbeddings) {
  TextConfig cfg;
  cfg.attention = std::get<0>(GetParam());
  cfg.num_classes = std::get<1>(GetParam());
  cfg.encoder = std::get<2>(GetParam());
  cfg.vocab_size = 7;
  cfg.embedding_dim = E;
  cfg.hidden_dim = H;
  Rng rng(6);
  TextParams<double> p;
  p.init(cfg, rng);
  for (Mat<double>* m : p.list()) *m *= 2.0;  // larger weights: non-trivial gradients
  const TextBatch batch = TextBatch::from_sequences({{2, 3, 4, 5}, {6, 1}, {3, 3, 2}});
  const std::vector<int> labels = cfg.num_classes == 2 ? std::vector<int>{1, 0, 1} : std::vector<int>{2, 0, 1};
  auto loss = [&] {
    TextCache<double> c;
    text_forward_ids(cfg, p, batch, c);
    Mat<double> d;
    return cfg.outputs() == 1 ? weighted_bce_with_logits<double>(c.logits, labels, 1.3, d)
                              : weighted_cross_entropy<double>(c.logits, labels, {1.0, 0.8, 1.2}, d);
  };
  TextCache<double> c;
  text_forward_ids(cfg, p, batch, c);
  Mat<double> d_logits;
  if (cfg.outputs() == 1) weighted_bce_with_logits<double>(c.logits, labels, 1.3, d_logits);
  else weighted_cross_entropy<double>(c.logits, labels, {1.0, 0.8, 1.2}, d_logits);
  TextParams<double> g;
  g.resize(cfg);
  Mat<double> dx;
  text_backward(cfg, p, c, d_logits, {}, &g, &dx);
  embedding_backward(batch.ids, dx, g.embedding);
  auto pn = p.named();
  auto gn = g.named();
  ASSERT_EQ(pn.size(), gn.size());
  for (size_t i = 0; i < pn.size(); ++i) {
    if (pn[i].first == "embedding.weight") {
      // <pad> (column 0) only appears at padded positions, whose gradient must be exactly zero.
      EXPECT_EQ(gn[i].second->col(0).cwiseAbs().maxCoeff(), 0.0);
    }
    expect_gradient(pn[i].first, *pn[i].second, *gn[i].second, loss);
  }
}

INSTANTIATE_TEST_SUITE_P(KindsAndClasses, ModelGradCheck,
                         ::testing::Combine(::testing::Values(AttentionKind::Tanh, AttentionKind::Dot,
                                                              AttentionKind::Uniform),
                                            ::testing::Values(2, 3),
                                            ::testing::Values(EncoderKind::BiLstm, EncoderKind::Mlp)),
                         [](const auto& info) {
                           return std::string(attention_name(std::get<0>(info.param))) + "_" +
                                  std::to_string(std::get<1>(info.param)) + "classes_" +
                                  (std::get<2>(info.param) == EncoderKind::Mlp ? "mlp" : "bilstm");
                         });

TEST(GradCheck, ImposedAttentionGetsNoScoreGradientButTheRestIsExact) {
  TextConfig cfg;
  cfg.vocab_size = 7;
  cfg.embedding_dim = E;
  cfg.hidden_dim = H;
  cfg.encoder = EncoderKind::Mlp;
  Rng rng(8);
  TextParams<double> p;
  p.init(cfg, rng);
  for (Mat<double>* m : p.list()) *m *= 2.0;
  const TextBatch batch = TextBatch::from_sequences({{2, 3, 4}, {5, 6}});
  Mat<double> alpha(3, 2);
  alpha << 0.2, 0.7, 0.5, 0.3, 0.3, 0.0;  // imposed weights, zero on the padded step
  auto loss = [&] {
    TextCache<double> c;
    text_forward_ids(cfg, p, batch, c, &alpha);
    Mat<double> d;
    return weighted_bce_with_logits<double>(c.logits, {1, 0}, 1.0, d);
  };
  TextCache<double> c;
  text_forward_ids(cfg, p, batch, c, &alpha);
  Mat<double> d_logits;
  weighted_bce_with_logits<double>(c.logits, {1, 0}, 1.0, d_logits);
  TextParams<double> g;
  g.resize(cfg);
  Mat<double> dx;
  text_backward(cfg, p, c, d_logits, {}, &g, &dx);
  EXPECT_EQ(g.attention.w1.cwiseAbs().maxCoeff(), 0.0);  // scores were never computed
  expect_gradient("mlp.w", p.mlp.w, g.mlp.w, loss);
  expect_gradient("decoder.w", p.decoder.w, g.decoder.w, loss);
}

TEST(GradCheck, DetachedAttentionIsTheGradientWithAlphaHeldConstant) {
  TextConfig cfg;
  cfg.vocab_size = 7;
  cfg.embedding_dim = E;
  cfg.hidden_dim = H;
  Rng rng(7);
  TextParams<double> p;
  p.init(cfg, rng);
  for (Mat<double>* m : p.list()) *m *= 2.0;
  const TextBatch batch = TextBatch::from_sequences({{2, 3, 4, 5, 6}});
  Mat<double> x;
  embedding_forward(p.embedding, batch.ids, x);
  TextCache<double> c;
  text_forward(cfg, p, x, batch.lengths, c);
  const Mat<double> frozen = c.attention.alpha;
  auto logit = [&] {
    TextCache<double> c2;
    text_forward(cfg, p, x, batch.lengths, c2, &frozen);
    return c2.logits(0, 0);
  };
  Mat<double> dx_detached, dx_full;
  text_backward<double>(cfg, p, c, Mat<double>::Ones(1, 1), {true}, nullptr, &dx_detached);
  text_backward<double>(cfg, p, c, Mat<double>::Ones(1, 1), {false}, nullptr, &dx_full);
  expect_gradient("x (alpha frozen)", x, dx_detached, logit);
  EXPECT_GT((dx_full - dx_detached).cwiseAbs().maxCoeff(), 1e-6);  // the score path does contribute
}

}  // namespace
}  // namespace attnlab
