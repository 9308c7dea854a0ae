// Transformer layers against central finite differences (double, small sizes): LayerNorm, GELU, multi-head
// self-attention (learned with a key-padding mask, uniform, imposed [CLS] row), and the whole encoder through
// the text-model interface (padding, a cut input, an empty input, dropout with a fixed seed, imposed alpha), and the
// [CLS]-query-only mode of the last layer (TransformerRun::logits_only, self_attention.h first_query_only).
#include "gradcheck.h"
#include "model/text_model.h"
#include "nn/gelu.h"
#include "nn/layer_norm.h"
#include "nn/self_attention.h"

namespace attnlab {
namespace {

using test::expect_gradient;
using test::random_mat;

TEST(TransformerGradCheck, LayerNorm) {
  Rng rng(11);
  LayerNormParams<double> p{random_mat(5, 1, rng) + Mat<double>::Ones(5, 1), random_mat(5, 1, rng)};
  Mat<double> x = random_mat(5, 4, rng, 1.0);
  const Mat<double> r = random_mat(5, 4, rng);
  auto loss = [&] {
    Mat<double> y;
    LayerNormCache<double> c;
    layer_norm_forward(p, x, y, c);
    return (y.array() * r.array()).sum();
  };
  Mat<double> y, dx;
  LayerNormCache<double> c;
  layer_norm_forward(p, x, y, c);
  LayerNormParams<double> g{Mat<double>::Zero(5, 1), Mat<double>::Zero(5, 1)};
  layer_norm_backward(p, c, r, &g, &dx);
  expect_gradient("gamma", p.gamma, g.gamma, loss);
  expect_gradient("beta", p.beta, g.beta, loss);
  expect_gradient("x", x, dx, loss);
  // Each normalised column has mean 0 and (biased) variance ~1.
  EXPECT_NEAR(c.xhat.col(0).mean(), 0.0, 1e-12);
  EXPECT_NEAR(c.xhat.col(0).squaredNorm() / 5, 1.0, 1e-4);
}

TEST(TransformerGradCheck, Gelu) {
  Rng rng(12);
  Mat<double> x = random_mat(3, 4, rng, 2.0);
  const Mat<double> r = random_mat(3, 4, rng);
  auto loss = [&] {
    Mat<double> y;
    gelu_forward(x, y);
    return (y.array() * r.array()).sum();
  };
  Mat<double> dx;
  gelu_backward(x, r, dx);
  expect_gradient("x", x, dx, loss);
  EXPECT_NEAR(gelu(1.0), 0.8413447460685429, 1e-12);  // 1 · Φ(1)
  EXPECT_NEAR(gelu(-3.0), -3.0 * 0.0013498980316301, 1e-12);
}

MhaParams<double> random_mha(int d, Rng& rng) {
  MhaParams<double> p;
  for (LinearParams<double>* l : {&p.q, &p.k, &p.v, &p.o}) {
    l->w = random_mat(d, d, rng);
    l->b = random_mat(d, 1, rng);
  }
  return p;
}

MhaParams<double> zero_mha(int d) {
  MhaParams<double> p;
  for (LinearParams<double>* l : {&p.q, &p.k, &p.v, &p.o}) {
    l->w = Mat<double>::Zero(d, d);
    l->b = Mat<double>::Zero(d, 1);
  }
  return p;
}

// first_query: the [CLS]-query-only mode (out [d x B]); besides the numeric gradients it must equal the full
// forward's position-0 columns and the full backward's gradients for a d_out that is zero elsewhere.
void check_mha(bool uniform, bool imposed, uint64_t seed, bool first_query = false) {
  constexpr int d = 4, H = 2, S = 4;
  const std::vector<int> n = {4, 2, 3};
  const int B = 3;
  Rng rng(seed);
  MhaParams<double> p = random_mha(d, rng);
  Mat<double> x = random_mat(d, B * S, rng, 1.0);
  Mat<double> alpha = random_mat(S - 1, B, rng).cwiseAbs();
  Mat<double> r = random_mat(d, first_query ? B : B * S, rng);
  if (!first_query)
    for (int b = 0; b < B; ++b)  // loss only on real positions
      for (int s = n[b]; s < S; ++s) r.col(b * S + s).setZero();
  auto loss = [&] {
    MhaCache<double> c;
    Mat<double> out;
    mha_forward<double>(p, H, x, n, S, uniform, imposed ? &alpha : nullptr, c, out, nullptr, first_query);
    return (out.array() * r.array()).sum();
  };
  MhaCache<double> c;
  Mat<double> out, dx, d_alpha;
  mha_forward<double>(p, H, x, n, S, uniform, imposed ? &alpha : nullptr, c, out, nullptr, first_query);
  ASSERT_EQ(out.cols(), first_query ? B : B * S);
  // Rows of P sum to 1 on real queries (except an imposed row 0), padded keys get exactly 0.
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h) {
      const Mat<double>& P = c.probs[b * H + h];
      for (int i = imposed ? 1 : 0; i < (first_query ? 1 : n[b]); ++i) EXPECT_NEAR(P.row(i).sum(), 1.0, 1e-12);
      for (int j = n[b]; j < S; ++j) EXPECT_EQ(P.col(j).cwiseAbs().sum(), 0.0);
    }
  MhaParams<double> g = zero_mha(d);
  mha_backward<double>(p, x, c, r, false, &g, &dx, nullptr, imposed ? &d_alpha : nullptr);
  if (first_query) {
    MhaCache<double> cf;
    Mat<double> full, dxf, d_alpha_f;
    mha_forward<double>(p, H, x, n, S, uniform, imposed ? &alpha : nullptr, cf, full);
    Mat<double> rf = Mat<double>::Zero(d, B * S);
    for (int b = 0; b < B; ++b) {
      rf.col(b * S) = r.col(b);
      EXPECT_LT((out.col(b) - full.col(b * S)).cwiseAbs().maxCoeff(), 1e-12);
      for (int h = 0; h < H; ++h) {
        EXPECT_LT((c.probs[b * H + h].row(0) - cf.probs[b * H + h].row(0)).cwiseAbs().maxCoeff(), 1e-12);
        // The other query rows are not computed (the full forward's are, on sequences longer than [CLS]).
        EXPECT_EQ(c.probs[b * H + h].bottomRows(S - 1).cwiseAbs().sum(), 0.0);
        EXPECT_GT(cf.probs[b * H + h].row(1).sum(), 0.5);
      }
    }
    MhaParams<double> gf = zero_mha(d);
    mha_backward<double>(p, x, cf, rf, false, &gf, &dxf, nullptr, imposed ? &d_alpha_f : nullptr);
    EXPECT_LT((dx - dxf).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LT((g.v.w - gf.v.w).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LT((g.o.w - gf.o.w).cwiseAbs().maxCoeff(), 1e-12);
    if (!uniform) EXPECT_LT((g.q.w - gf.q.w).cwiseAbs().maxCoeff() + (g.k.w - gf.k.w).cwiseAbs().maxCoeff(), 1e-12);
    if (imposed) EXPECT_LT((d_alpha - d_alpha_f).cwiseAbs().maxCoeff(), 1e-12);
  }
  if (!uniform) {
    expect_gradient("q.w", p.q.w, g.q.w, loss);
    expect_gradient("q.b", p.q.b, g.q.b, loss);
    expect_gradient("k.w", p.k.w, g.k.w, loss);
  }
  expect_gradient("v.w", p.v.w, g.v.w, loss);
  expect_gradient("v.b", p.v.b, g.v.b, loss);
  expect_gradient("o.w", p.o.w, g.o.w, loss);
  expect_gradient("o.b", p.o.b, g.o.b, loss);
  expect_gradient("x", x, dx, loss);
  if (imposed) {
    Mat<double> d_alpha_real = d_alpha;
    for (int b = 0; b < B; ++b)
      for (int t = n[b] - 1; t < S - 1; ++t) {
        EXPECT_EQ(d_alpha(t, b), 0.0);  // padding has no weight
        d_alpha_real(t, b) = 0;
      }
    expect_gradient("alpha", alpha, d_alpha_real, loss);
  }
}

TEST(TransformerGradCheck, MultiHeadAttentionMasked) { check_mha(false, false, 13); }
TEST(TransformerGradCheck, MultiHeadAttentionUniform) { check_mha(true, false, 14); }
TEST(TransformerGradCheck, MultiHeadAttentionImposedClsRow) { check_mha(false, true, 15); }
TEST(TransformerGradCheck, MultiHeadAttentionFirstQueryOnly) { check_mha(false, false, 17, true); }
TEST(TransformerGradCheck, MultiHeadAttentionFirstQueryOnlyUniform) { check_mha(true, false, 18, true); }
TEST(TransformerGradCheck, MultiHeadAttentionFirstQueryOnlyImposed) { check_mha(false, true, 19, true); }

TEST(TransformerGradCheck, SoftmaxIsSafeForHugeScores) {
  constexpr int d = 2;
  Rng rng(16);
  MhaParams<double> p = random_mha(d, rng);
  p.q.w *= 1e6;  // scores ~1e6: exp would overflow without the row maximum
  const Mat<double> x = random_mat(d, 3, rng, 1.0);
  MhaCache<double> c;
  Mat<double> out;
  mha_forward<double>(p, 1, x, {3}, 3, false, nullptr, c, out);
  EXPECT_TRUE(out.allFinite());
  EXPECT_NEAR(c.probs[0].row(0).sum(), 1.0, 1e-12);
}

struct TinyModel {
  TextConfig cfg;
  TextParams<double> p;
};

TinyModel tiny_transformer(uint64_t seed, int layers = 2, int classes = 2) {
  TinyModel m;
  m.cfg.encoder = EncoderKind::Transformer;
  m.cfg.attention = AttentionKind::Dot;
  m.cfg.vocab_size = 7;
  m.cfg.embedding_dim = 4;
  m.cfg.hidden_dim = 4;
  m.cfg.layers = layers;
  m.cfg.heads = 2;
  m.cfg.ffn_dim = 6;
  m.cfg.max_len = 3;
  m.cfg.num_classes = classes;
  Rng rng(seed);
  m.p.init(m.cfg, rng);
  // Non-trivial LayerNorm affine parameters and larger embeddings so every path matters.
  for (auto& [name, mat] : m.p.named())
    if (name.find("ln") != std::string::npos || name.find("position") != std::string::npos ||
        name == "transformer.cls")
      *mat += random_mat(mat->rows(), mat->cols(), rng, 0.3);
  return m;
}

void check_model(TinyModel& m, double dropout, bool impose, bool detach = false, bool logits_only = false) {
  const std::vector<int> lengths = {4, 2, 0};  // 4 > max_len 3: cut; 0: [CLS] alone
  const int B = 3, T = 4;
  Rng rng(21);
  Mat<double> x = random_mat(m.cfg.embedding_dim, T * B, rng, 1.0);
  Mat<double> alpha = random_mat(T, B, rng).cwiseAbs();
  const Mat<double> r = random_mat(m.cfg.outputs(), B, rng);
  auto forward = [&](TextCache<double>& c) {
    c.run.dropout = dropout;
    c.run.seed = 5;
    c.run.logits_only = logits_only;
    text_forward(m.cfg, m.p, x, lengths, c, impose ? &alpha : nullptr);
  };
  auto loss = [&] {
    TextCache<double> c;
    forward(c);
    return (c.logits.array() * r.array()).sum();
  };
  TextCache<double> c;
  forward(c);
  EXPECT_TRUE(c.transformer.truncated);
  TextParams<double> g;
  g.resize(m.cfg);
  g.set_zero();
  Mat<double> dx, d_alpha;
  BackwardOptions opts;
  opts.detach_attention = detach;
  text_backward<double>(m.cfg, m.p, c, r, opts, &g, &dx, impose ? &d_alpha : nullptr);
  // The cut token (t = 3 of sequence 0) and padding get no gradient.
  EXPECT_EQ(dx.col(3 * B + 0).cwiseAbs().sum(), 0.0);
  if (detach) return;  // (checked against the numeric gradient below only without detaching)
  auto named = m.p.named();
  auto gnamed = g.named();
  for (size_t i = 0; i < named.size(); ++i) {
    if (named[i].first == "embedding.weight") continue;  // not used by text_forward (embedded x given)
    // The bias of K shifts a whole score row by q·b (softmax-invariant): its gradient is 0 by construction.
    if (named[i].first.find("attention.k.bias") != std::string::npos) {
      EXPECT_LT(gnamed[i].second->cwiseAbs().maxCoeff(), 1e-12);
      continue;
    }
    // A uniform model has no scores: its Q / K weights get no gradient.
    if (m.cfg.attention == AttentionKind::Uniform &&
        (named[i].first.find("attention.q.") != std::string::npos ||
         named[i].first.find("attention.k.") != std::string::npos)) {
      EXPECT_EQ(gnamed[i].second->cwiseAbs().maxCoeff(), 0.0);
      continue;
    }
    expect_gradient(named[i].first, *named[i].second, *gnamed[i].second, loss, 1e-6, 2e-6);
  }
  expect_gradient("x", x, dx, loss, 1e-6, 2e-6);
  if (impose) {
    Mat<double> real = d_alpha;
    real.row(3).setZero();  // the cut token
    for (int t = 0; t < T; ++t) {
      if (t >= 2) real(t, 1) = 0;
      real(t, 2) = 0;
    }
    expect_gradient("alpha", alpha, real, loss, 1e-6, 2e-6);
  }
}

TEST(TransformerGradCheck, EncoderBinary) {
  TinyModel m = tiny_transformer(31);
  check_model(m, 0.0, false);
}

TEST(TransformerGradCheck, EncoderMultiClassOneLayer) {
  TinyModel m = tiny_transformer(32, 1, 3);
  check_model(m, 0.0, false);
}

TEST(TransformerGradCheck, EncoderWithDropout) {
  TinyModel m = tiny_transformer(33);
  check_model(m, 0.25, false);
}

TEST(TransformerGradCheck, EncoderImposedAlpha) {
  TinyModel m = tiny_transformer(34);
  check_model(m, 0.0, true);
}

TEST(TransformerGradCheck, EncoderLogitsOnly) {
  TinyModel m = tiny_transformer(37);
  check_model(m, 0.0, false, false, true);
}

TEST(TransformerGradCheck, EncoderLogitsOnlyImposedAlpha) {
  TinyModel m = tiny_transformer(38);
  check_model(m, 0.0, true, false, true);
}

// TransformerRun::logits_only computes the last layer's [CLS] query alone: logits, alpha, the input gradient
// (plain and detached) and every parameter gradient equal the full forward's to rounding; the last layer's
// other attention rows are then zero (the full forward's are not: the mode really skips them).
TEST(TransformerGradCheck, LogitsOnlyEqualsTheFullForward) {
  for (const bool uniform : {false, true}) {
    TinyModel m = tiny_transformer(39, 2, 3);
    if (uniform) m.cfg.attention = AttentionKind::Uniform;
    const std::vector<int> lengths = {3, 1, 2};
    Rng rng(4);
    const Mat<double> x = random_mat(4, 3 * 3, rng, 1.0);
    const Mat<double> r = random_mat(m.cfg.outputs(), 3, rng);
    TextCache<double> full, fast;
    fast.run.logits_only = true;
    text_forward(m.cfg, m.p, x, lengths, full);
    text_forward(m.cfg, m.p, x, lengths, fast);
    EXPECT_LT((full.logits - fast.logits).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LT((full.transformer.alpha - fast.transformer.alpha).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_EQ(fast.transformer.layers[1].attn.ctx.cols(), 3);
    EXPECT_EQ(fast.transformer.probs(1, 0, 0).row(1).cwiseAbs().sum(), 0.0);
    EXPECT_GT(full.transformer.probs(1, 0, 0).row(1).sum(), 0.5);
    for (const bool detach : {false, true}) {
      BackwardOptions opts;
      opts.detach_attention = detach;
      TextParams<double> gf, gs;
      for (TextParams<double>* g : {&gf, &gs}) {
        g->resize(m.cfg);
        g->set_zero();
      }
      Mat<double> dxf, dxs;
      text_backward<double>(m.cfg, m.p, full, r, opts, &gf, &dxf);
      text_backward<double>(m.cfg, m.p, fast, r, opts, &gs, &dxs);
      EXPECT_LT((dxf - dxs).cwiseAbs().maxCoeff(), 1e-12);
      auto a = gf.named(), b = gs.named();
      for (size_t i = 0; i < a.size(); ++i)
        EXPECT_LT((*a[i].second - *b[i].second).cwiseAbs().maxCoeff(), 1e-12) << a[i].first;
    }
  }
}

TEST(TransformerGradCheck, EncoderUniform) {
  TinyModel m = tiny_transformer(35);
  m.cfg.attention = AttentionKind::Uniform;
  check_model(m, 0.0, false);
}

// Detaching the attention probabilities changes nothing for a uniform model (no scores) and changes the input
// gradient of a learned one.
TEST(TransformerGradCheck, DetachAttention) {
  TinyModel m = tiny_transformer(36);
  m.cfg.attention = AttentionKind::Uniform;
  const std::vector<int> lengths = {3};
  Rng rng(3);
  const Mat<double> x = random_mat(4, 3, rng, 1.0);
  TextCache<double> c;
  text_forward(m.cfg, m.p, x, lengths, c);
  const Mat<double> r = Mat<double>::Ones(1, 1);
  Mat<double> a, b;
  BackwardOptions detach;
  detach.detach_attention = true;
  text_backward<double>(m.cfg, m.p, c, r, {}, nullptr, &a);
  text_backward<double>(m.cfg, m.p, c, r, detach, nullptr, &b);
  EXPECT_LT((a - b).cwiseAbs().maxCoeff(), 1e-15);
  m.cfg.attention = AttentionKind::Dot;
  text_forward(m.cfg, m.p, x, lengths, c);
  text_backward<double>(m.cfg, m.p, c, r, {}, nullptr, &a);
  text_backward<double>(m.cfg, m.p, c, r, detach, nullptr, &b);
  EXPECT_GT((a - b).cwiseAbs().maxCoeff(), 1e-6);
}

}  // namespace
}  // namespace attnlab
