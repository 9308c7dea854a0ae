// Importance measures on small random models: invariants and closed forms.
#include <gtest/gtest.h>

#include <numeric>

#include "explain/importance.h"
#include "nn/embedding.h"

namespace attnlab {
namespace {

struct Fixture {
  TextConfig cfg;
  TextParams<float> params;
  explicit Fixture(AttentionKind kind, uint64_t seed = 11) {
    cfg.attention = kind;
    cfg.vocab_size = 20;
    cfg.embedding_dim = 6;
    cfg.hidden_dim = 5;
    Rng rng(seed);
    params.init(cfg, rng);
    for (Mat<float>* m : params.list()) *m *= 1.5f;
  }
  ExplainInput input(std::vector<int> ids, int target = 1) const {
    ExplainInput in;
    in.cfg = &cfg;
    in.params = &params;
    in.ids = std::move(ids);
    in.target = target;
    return in;
  }
};

const std::vector<int> kExplainIds = {3, 7, 2, 19, 5, 5, 11};

TEST(Attention, SumsToOneOnRealTokensAndZeroOnPadding) {
  for (AttentionKind kind : {AttentionKind::Tanh, AttentionKind::Dot, AttentionKind::Uniform}) {
    Fixture f(kind);
    TextCache<float> c;
    text_forward_ids(f.cfg, f.params, TextBatch::from_sequences({{2, 3, 4, 5, 6}, {7, 8}, {9, 10, 11}}), c);
    const std::vector<int> len = {5, 2, 3};
    for (int b = 0; b < 3; ++b) {
      EXPECT_NEAR(c.attention.alpha.col(b).head(len[b]).sum(), 1.0, 1e-6);
      for (int t = len[b]; t < 5; ++t) EXPECT_EQ(c.attention.alpha(t, b), 0.f);
      if (kind == AttentionKind::Uniform)
        for (int t = 0; t < len[b]; ++t) EXPECT_EQ(c.attention.alpha(t, b), 1.f / float(len[b]));
    }
  }
}

TEST(Attention, ImportanceMatchesTheModelsWeights) {
  Fixture f(AttentionKind::Tanh);
  const auto a = attention_importance(f.input(kExplainIds));
  ASSERT_EQ(a.size(), kExplainIds.size());
  EXPECT_NEAR(std::accumulate(a.begin(), a.end(), 0.0), 1.0, 1e-6);
  EXPECT_GT(*std::max_element(a.begin(), a.end()) - *std::min_element(a.begin(), a.end()), 1e-3);
}

// p_target as a function of the embedded input, in double precision, with optionally frozen attention.
double probability(const Fixture& f, const Mat<double>& x, int target, const Mat<double>* alpha) {
  const TextParams<double> p = f.params.cast<double>();
  TextCache<double> c;
  text_forward(f.cfg, p, x, {static_cast<int>(x.cols())}, c, alpha);
  const double p1 = 1.0 / (1.0 + std::exp(-c.logits(0, 0)));
  return target == 1 ? p1 : 1.0 - p1;
}

TEST(Gradient, IsAbsoluteDirectionalDerivativeWithAttentionFrozenNormalised) {
  for (AttentionKind kind : {AttentionKind::Tanh, AttentionKind::Dot}) {
    Fixture f(kind);
    const auto g = gradient_importance(f.input(kExplainIds, 0));
    Mat<double> x;
    embedding_forward(f.params.embedding.cast<double>().eval(), kExplainIds, x);
    TextCache<double> c;
    const TextParams<double> pd = f.params.cast<double>();
    text_forward(f.cfg, pd, x, {static_cast<int>(kExplainIds.size())}, c);
    const Mat<double> alpha = c.attention.alpha;
    // d/de p(x with token t scaled by (1+e)) at e=0 equals grad_t . x_t.
    std::vector<double> expected;
    const double h = 1e-5;
    for (size_t t = 0; t < kExplainIds.size(); ++t) {
      Mat<double> xp = x, xm = x;
      xp.col(t) *= 1 + h;
      xm.col(t) *= 1 - h;
      expected.push_back(std::abs((probability(f, xp, 0, &alpha) - probability(f, xm, 0, &alpha)) / (2 * h)));
    }
    const double sum = std::accumulate(expected.begin(), expected.end(), 0.0);
    for (size_t t = 0; t < kExplainIds.size(); ++t) EXPECT_NEAR(g[t], expected[t] / sum, 2e-4) << "token " << t;
    EXPECT_NEAR(std::accumulate(g.begin(), g.end(), 0.0), 1.0, 1e-9);
  }
}

TEST(LeaveOneOut, EqualsSeparateForwardPassesWithoutEachToken) {
  Fixture f(AttentionKind::Dot);
  const auto loo = leave_one_out_importance(f.input(kExplainIds));
  TextCache<float> c;
  text_forward_ids(f.cfg, f.params, TextBatch::from_sequences({kExplainIds}), c);
  const double p = class_probability(f.cfg, c.logits, 0, 1);
  for (size_t t = 0; t < kExplainIds.size(); ++t) {
    std::vector<int> ids = kExplainIds;
    ids.erase(ids.begin() + t);
    text_forward_ids(f.cfg, f.params, TextBatch::from_sequences({ids}), c);
    EXPECT_NEAR(loo[t], std::abs(p - class_probability(f.cfg, c.logits, 0, 1)), 1e-6);
  }
}

TEST(LeaveOneOut, SingleTokenComparesWithTheEmptyInput) {
  Fixture f(AttentionKind::Tanh);
  const auto loo = leave_one_out_importance(f.input({4}));
  TextCache<float> c;
  text_forward_ids(f.cfg, f.params, TextBatch::from_sequences({{4}}), c);
  const double p = class_probability(f.cfg, c.logits, 0, 1);
  const double p_empty = 1.0 / (1.0 + std::exp(-double(f.params.decoder.b(0, 0))));
  EXPECT_NEAR(loo[0], std::abs(p - p_empty), 1e-6);
}

TEST(IntegratedGradients, CompletenessSumEqualsProbabilityDifferenceFromBaseline) {
  for (AttentionKind kind : {AttentionKind::Tanh, AttentionKind::Dot, AttentionKind::Uniform}) {
    Fixture f(kind);
    ExplainInput in = f.input(kExplainIds, 1);
    in.ig_steps = 300;
    const auto ig = integrated_gradients_importance(in);
    Mat<double> x;
    embedding_forward(f.params.embedding.cast<double>().eval(), kExplainIds, x);
    const double gap = probability(f, x, 1, nullptr) - probability(f, Mat<double>::Zero(x.rows(), x.cols()), 1, nullptr);
    EXPECT_NEAR(std::accumulate(ig.begin(), ig.end(), 0.0), gap, 1e-4 + 1e-3 * std::abs(gap)) << attention_name(kind);
    EXPECT_GT(std::abs(gap), 1e-3);  // the check must have something to check
  }
}

}  // namespace
}  // namespace attnlab

// On a trained model the path alpha*x can switch sharply (for this SST test sentence p(negative) drops from
// 0.997 to 0.05 between alpha = 0.125 and 0.15 within less than 1/4000 of the path); a uniform 50-step grid
// then gives a sum of +0.21 against p(x) - p(0) = -0.76. With adaptive segments completeness holds.
#include "explain/explain_text.h"
#include "onnx_test_util.h"

namespace attnlab {
namespace {

// IG on the shipped sst2-tanh for one sentence: the attributions' sum within `tolerance` (relative) of p(x) - p(0).
void expect_complete_on_shipped_tanh(const std::string& text, double tolerance = 0.03) {
  const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/models/text/sst2-tanh/";
  const std::string config = test::read_text(dir + "config.json"), weights = test::read_text(dir + "model.safetensors");
  if (config.empty()) GTEST_SKIP() << "no shipped model at " << dir;
  TextModel model;
  std::string error;
  ASSERT_TRUE(load_text_model(config, reinterpret_cast<const uint8_t*>(weights.data()), weights.size(), &model, &error))
      << error;
  const auto e = explain_text(model, text, {});
  EXPECT_GT(std::abs(e.ig_target), 0.5);
  EXPECT_NEAR(e.ig_sum, e.ig_target, tolerance * std::abs(e.ig_target));
}

TEST(IntegratedGradients, CompletenessHoldsOnASharpPathOfTheShippedModel) {
  expect_complete_on_shipped_tanh(
      "gangs of new york is an unapologetic mess , whose only saving grace is that it ends by blowing just about "
      "everything up .");
}

// SST-2 test line 34 on the same model: along the path p jumps from 0.004 to 0.88 between alpha = 0.125647 and
// 0.125648 (the BiLSTM's state switches; the logit moves by 7.5 within ~1e-6 of alpha, slope 5.7e5 there). With
// bisection stopped at segments of 1e-6 the sum was 0.107 against p(x) - p(0) = 0.999 (89 % off); segments down to
// 1e-9 (below float's spacing of alpha there) bring it to 1.6 % with the default 50 steps.
// What is left there is float rounding at the jump, so it depends on how each path point is computed: 1.6 % where
// this was written, 3.3 % natively (g++ -march=native, AMD) and 5.7 % under CI's clang ASan build once integrated
// gradients split its points into 8 batches for the threads (importance.h explain_parts). The bound is therefore
// 10 %: it still fails on the regression this guards against (the 89 % miss) without depending on the rounding.
TEST(IntegratedGradients, CompletenessHoldsAcrossAJumpNarrowerThanAMillionthOfThePath) {
  expect_complete_on_shipped_tanh(
      "an enthralling , playful film that constantly frustrates our desire to know the ` truth ' about this man , "
      "while deconstructing the very format of the biography in a manner that derrida would doubtless give his "
      "blessing to .",
      0.10);
}

}  // namespace
}  // namespace attnlab
