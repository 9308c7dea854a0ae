// AttnLRP, CP-LRP, value zeroing and ALTI on the core's transformer: parity with a PyTorch re-implementation of
// the papers' definitions (tests/fixtures/propagation/make-fixture.py, double precision) with negative controls,
// conservation on a bias-free model, and the new backward pieces against their closed forms / finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "explain/context_mixing.h"
#include "explain/lrp_relevance.h"
#include "model/text_checkpoint.h"
#include "nn/gelu.h"
#include "nn/layer_norm.h"

namespace attnlab {
namespace {

using nlohmann::json;

json load_fixture() {
  std::ifstream f(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/propagation/tiny-transformer.json");
  std::stringstream ss;
  ss << f.rdbuf();
  return json::parse(ss.str());
}

struct Fixture {
  TextConfig cfg;
  TextParams<double> params;
  json cases;
};

Fixture fixture() {
  const json j = load_fixture();
  Fixture fx;
  fx.cfg.encoder = EncoderKind::Transformer;
  fx.cfg.attention = AttentionKind::Dot;
  fx.cfg.embedding_dim = fx.cfg.hidden_dim = j["config"]["embedding_dim"];
  fx.cfg.heads = j["config"]["heads"];
  fx.cfg.ffn_dim = j["config"]["ffn_dim"];
  fx.cfg.layers = j["config"]["layers"];
  fx.cfg.vocab_size = j["config"]["vocab_size"];
  fx.cfg.max_len = j["config"]["max_len"];
  fx.cfg.num_classes = 2;
  fx.params.resize(fx.cfg);
  int filled = 0;
  for (auto& [name, mat] : fx.params.named()) {
    if (!j["params"].contains(name)) continue;
    const json& t = j["params"][name];
    EXPECT_EQ(mat->rows(), t["shape"][0].get<int>()) << name;
    EXPECT_EQ(mat->cols(), t["shape"][1].get<int>()) << name;
    const std::vector<double> data = t["data"];
    for (Eigen::Index r = 0; r < mat->rows(); ++r)
      for (Eigen::Index c = 0; c < mat->cols(); ++c) (*mat)(r, c) = data[static_cast<size_t>(r * mat->cols() + c)];
    ++filled;
  }
  EXPECT_EQ(filled, static_cast<int>(j["params"].size()));
  fx.cases = j["cases"];
  return fx;
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

PropagationRule rule_of(const std::string& name) {
  if (name == "attnlrp") return PropagationRule::AttnLrp;
  if (name == "cp_lrp") return PropagationRule::CpLrp;
  return PropagationRule::Gradient;
}

TEST(PropagationRules, MatchTheTorchReferenceInDoublePrecision) {
  const Fixture fx = fixture();
  int checked = 0;
  for (const json& c : fx.cases) {
    const std::vector<int> ids = c["ids"];
    for (int target : {1, 0})
      for (const std::string rule : {"gradient", "attnlrp", "cp_lrp"}) {
        const json& want = c[rule + "_" + std::to_string(target)];
        const LrpRelevance got = transformer_relevance(fx.cfg, fx.params, ids, target, rule_of(rule));
        const std::string what = rule + " target " + std::to_string(target) + " ids " + c["ids"].dump();
        EXPECT_LT(max_abs_diff(got.tokens, want["tokens"]), 1e-10) << what;
        EXPECT_NEAR(got.cls, want["cls"].get<double>(), 1e-10) << what;
        EXPECT_NEAR(got.positions, want["positions"].get<double>(), 1e-10) << what;
        EXPECT_NEAR(got.logit, want["logit"].get<double>(), 1e-10) << what;
        ++checked;
      }
  }
  EXPECT_EQ(checked, 18);
}

TEST(PropagationRules, NegativeControlsMissTheReference) {
  const Fixture fx = fixture();
  const json& c = fx.cases[1];
  const std::vector<int> ids = c["ids"];
  // The plain gradient is not AttnLRP, and AttnLRP is not CP-LRP: each rule's values are its own.
  EXPECT_GT(max_abs_diff(transformer_relevance(fx.cfg, fx.params, ids, 1, PropagationRule::Gradient).tokens,
                         c["attnlrp_1"]["tokens"]), 1e-2);
  EXPECT_GT(max_abs_diff(transformer_relevance(fx.cfg, fx.params, ids, 1, PropagationRule::AttnLrp).tokens,
                         c["cp_lrp_1"]["tokens"]), 1e-2);
  // A model one weight of 1e-3 away misses every reference by more than the parity tolerance.
  Fixture moved = fixture();
  moved.params.transformer.layers[0].attn.v.w(0, 0) += 1e-3;
  for (const std::string rule : {"gradient", "attnlrp", "cp_lrp"})
    EXPECT_GT(max_abs_diff(transformer_relevance(moved.cfg, moved.params, ids, 1, rule_of(rule)).tokens,
                           c[rule + "_1"]["tokens"]), 1e-8) << rule;
  EXPECT_GT(max_abs_diff(mixing_rollout(value_zeroing_layers(moved.cfg, moved.params, ids)), c["value_zeroing"]), 1e-8);
  EXPECT_GT(max_abs_diff(mixing_rollout(alti_layers(moved.cfg, moved.params, ids)), c["alti"]), 1e-8);
}

TEST(ContextMixing, MatchesTheTorchReferenceInDoublePrecision) {
  const Fixture fx = fixture();
  for (const json& c : fx.cases) {
    const std::vector<int> ids = c["ids"];
    EXPECT_LT(max_abs_diff(mixing_rollout(value_zeroing_layers(fx.cfg, fx.params, ids)), c["value_zeroing"]), 1e-10)
        << c["ids"].dump();
    EXPECT_LT(max_abs_diff(mixing_rollout(alti_layers(fx.cfg, fx.params, ids)), c["alti"]), 1e-10) << c["ids"].dump();
  }
}

TEST(ContextMixing, LayersAreRowStochasticAndTheFloatMethodsAgree) {
  const Fixture fx = fixture();
  const std::vector<int> ids = fx.cases[1]["ids"];
  for (const auto& layers : {value_zeroing_layers(fx.cfg, fx.params, ids), alti_layers(fx.cfg, fx.params, ids)}) {
    ASSERT_EQ(layers.size(), 2u);
    EXPECT_EQ(layers[0].rows(), 7);  // every position below the last layer
    EXPECT_EQ(layers[1].rows(), 1);  // [CLS] only in the last
    for (const auto& c : layers)
      for (Eigen::Index i = 0; i < c.rows(); ++i) {
        EXPECT_NEAR(c.row(i).sum(), 1.0, 1e-12);
        EXPECT_GE(c.row(i).minCoeff(), 0.0);
      }
  }
  const TextParams<float> pf = fx.params.cast<float>();
  ExplainInput in;
  in.cfg = &fx.cfg;
  in.params = &pf;
  in.ids = ids;
  EXPECT_LT(max_abs_diff(value_zeroing_importance(in), fx.cases[1]["value_zeroing"]), 1e-4);
  EXPECT_LT(max_abs_diff(alti_importance(in), fx.cases[1]["alti"]), 1e-5);
  EXPECT_LT(max_abs_diff(attnlrp_importance(in), fx.cases[1]["attnlrp_1"]["tokens"]), 1e-4);
  EXPECT_LT(max_abs_diff(cp_lrp_importance(in), fx.cases[1]["cp_lrp_1"]["tokens"]), 1e-4);
}

// The fixture's model with every bias and LayerNorm beta set to 0: nothing can absorb relevance but the softmax.
TextParams<double> bias_free(TextParams<double> p) {
  for (auto& [name, mat] : p.named())
    if (name.size() > 4 && (name.compare(name.size() - 4, 4, "bias") == 0)) mat->setZero();
  return p;
}

// Σ over softmax rows of (relevance entering the softmax's outputs − relevance its rule passes to the scores):
// Σ_ij P_ij dP_ij − Σ_ij z_ij dZ_ij, dZ = P ⊙ (dP − Σ_k P_ik dP_ik), z = the scaled scores — computed here from
// the forward cache and the propagated dP, independently of the backward's own arithmetic.
double softmax_absorbed(const TextConfig& cfg, const TextParams<double>& p, const std::vector<int>& ids, int target) {
  TextCache<double> cache;
  text_forward_ids(cfg, p, TextBatch::from_sequences({ids}), cache);
  Mat<double> d_logits = Mat<double>::Constant(1, 1, target == 1 ? 1.0 : -1.0);
  std::vector<std::vector<Mat<double>>> d_probs;
  TransformerBackwardOptions opts;
  opts.rule = PropagationRule::AttnLrp;
  transformer_backward<double>(cfg, p.transformer, p.decoder, cache.transformer, d_logits, opts, nullptr, nullptr,
                               nullptr, &d_probs);
  const auto& tc = cache.transformer;
  const int n = tc.n[0], dk = cfg.embedding_dim / cfg.heads;
  double absorbed = 0;
  for (size_t l = 0; l < tc.layers.size(); ++l)
    for (int h = 0; h < cfg.heads; ++h) {
      const Mat<double> P = tc.probs(static_cast<int>(l), 0, h).topLeftCorner(n, n);
      const Mat<double> dP = d_probs[l][h].topLeftCorner(n, n);
      const auto& a = tc.layers[l].attn;
      for (int i = 0; i < n; ++i) {
        const double rowdot = P.row(i).dot(dP.row(i));
        for (int j = 0; j < n; ++j) {
          const double z = a.q.col(i).segment(h * dk, dk).dot(a.k.col(j).segment(h * dk, dk)) / std::sqrt(double(dk));
          absorbed += P(i, j) * dP(i, j) - z * P(i, j) * (dP(i, j) - rowdot);
        }
      }
    }
  return absorbed;
}

TEST(PropagationRules, ConserveTheLogitOnABiasFreeModel) {
  const Fixture fx = fixture();
  const TextParams<double> p = bias_free(fx.params);
  for (const json& c : fx.cases) {
    const std::vector<int> ids = c["ids"];
    for (int target : {1, 0}) {
      const LrpRelevance cp = transformer_relevance(fx.cfg, p, ids, target, PropagationRule::CpLrp);
      EXPECT_GT(std::abs(cp.logit), 1e-2);
      EXPECT_NEAR(cp.unexplained(), 0.0, 1e-12 * std::max(1.0, std::abs(cp.logit))) << c["ids"].dump();
      const LrpRelevance at = transformer_relevance(fx.cfg, p, ids, target, PropagationRule::AttnLrp);
      const double absorbed = softmax_absorbed(fx.cfg, p, ids, target);
      EXPECT_NEAR(at.unexplained(), absorbed, 1e-12 * std::max(1.0, std::abs(at.logit))) << c["ids"].dump();
      // Negative control: the plain gradient × input is not conservative on the same model.
      const LrpRelevance gr = transformer_relevance(fx.cfg, p, ids, target, PropagationRule::Gradient);
      EXPECT_GT(std::abs(gr.unexplained()), 1e-3) << c["ids"].dump();
    }
  }
  // With the biases back, the missing part is reported (not zero) and finite.
  const LrpRelevance biased = transformer_relevance(fx.cfg, fx.params, fx.cases[0]["ids"].get<std::vector<int>>(), 1,
                                                    PropagationRule::CpLrp);
  EXPECT_TRUE(std::isfinite(biased.unexplained()));
  EXPECT_GT(std::abs(biased.unexplained()), 1e-3);
}

TEST(PropagationRules, HeldScaleLayerNormBackwardIsTheFrozenScaleDerivative) {
  // y = gamma ⊙ (x - mean(x)) · r0 + beta with r0 frozen at x0: central differences in double.
  const int d = 6;
  LayerNormParams<double> p{Mat<double>::Random(d, 1) + Mat<double>::Ones(d, 1), Mat<double>::Random(d, 1)};
  Mat<double> x0 = Mat<double>::Random(d, 2) * 2.0, w = Mat<double>::Random(d, 2);
  Mat<double> y;
  LayerNormCache<double> cache;
  layer_norm_forward(p, x0, y, cache);
  Mat<double> dx;
  layer_norm_backward<double>(p, cache, w, nullptr, &dx, true);
  auto frozen = [&](const Mat<double>& x) {
    double s = 0;
    for (Eigen::Index c = 0; c < x.cols(); ++c) {
      const Vec<double> cen = x.col(c).array() - x.col(c).mean();
      s += (w.col(c).array() * (p.gamma.col(0).array() * cen.array() * cache.rstd(c) + p.beta.col(0).array())).sum();
    }
    return s;
  };
  for (Eigen::Index i = 0; i < x0.size(); ++i) {
    Mat<double> a = x0, b = x0;
    a.data()[i] += 1e-6;
    b.data()[i] -= 1e-6;
    EXPECT_NEAR(dx.data()[i], (frozen(a) - frozen(b)) / 2e-6, 1e-8);
  }
  // Negative control: the true LayerNorm gradient differs.
  Mat<double> dx_true;
  layer_norm_backward<double>(p, cache, w, nullptr, &dx_true);
  EXPECT_GT((dx_true - dx).cwiseAbs().maxCoeff(), 1e-3);
}

TEST(PropagationRules, GeluIdentityRulePassesRelevanceUnchanged) {
  Mat<double> x(1, 5), dy(1, 5), dx;
  x << -3.0, -0.5, 0.0, 0.7, 2.5;
  dy << 1.0, -2.0, 0.5, 3.0, -1.0;
  gelu_identity_backward(x, dy, dx);
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(x(i) * dx(i), gelu(x(i)) * dy(i), 1e-15);  // x · r_in = gelu(x) · r_out
    EXPECT_NEAR(dx(i), dy(i) * 0.5 * std::erfc(-x(i) / std::sqrt(2.0)), 1e-15);  // Φ(x), also at x = 0
  }
}

}  // namespace
}  // namespace attnlab
