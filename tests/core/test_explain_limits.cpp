// The explanation's limits (issue 13, "unbounded memory"): every request is cut to kMaxExplainTokens tokens,
// with the cut reported (truncated, num_tokens_total) the way a max_tokens cut is; leave-one-out and integrated
// gradients run in chunks of kExplainBatchTokens tokens and give the values of one sequence at a time.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "explain/explain_text.h"
#include "explain/importance.h"
#include "tiny_text_model.h"

namespace attnlab {
namespace {

TextModel tiny_model(uint64_t seed = 5) {
  return test::tiny_text_model({{"good", "bad", "film", "a", "very", "not"}, AttentionKind::Tanh, 6, 5, seed, 1.5f});
}

std::string words(int n) {
  static const char* kWords[] = {"good", "bad", "film", "a", "very", "not", "unseen"};
  std::string s;
  for (int i = 0; i < n; ++i) s += std::string(kWords[(i * 5 + i / 7) % 7]) + " ";
  return s;
}

TEST(ExplainLimits, EveryRequestIsCutToTheCapWithTheCutReported) {
  const TextModel m = tiny_model();
  const std::string text = words(kMaxExplainTokens * 3);
  for (int max_tokens : {0, -1, kMaxExplainTokens + 1, 100000}) {
    const PreparedText p = prepare_text(m, text, max_tokens);
    EXPECT_EQ(p.tokens.size(), static_cast<size_t>(kMaxExplainTokens)) << "max_tokens " << max_tokens;
    EXPECT_EQ(p.ids.size(), p.tokens.size());
    EXPECT_TRUE(p.truncated);
    EXPECT_EQ(p.num_tokens_total, kMaxExplainTokens * 3);
  }
  // below the cap: as asked
  const PreparedText p10 = prepare_text(m, text, 10);
  EXPECT_EQ(p10.tokens.size(), 10u);
  EXPECT_TRUE(p10.truncated);
  const PreparedText all = prepare_text(m, words(kMaxExplainTokens), 0);
  EXPECT_EQ(all.tokens.size(), static_cast<size_t>(kMaxExplainTokens));
  EXPECT_FALSE(all.truncated);
  // a prediction is one forward pass: it keeps every token
  const TextModel& mm = m;
  const auto cut = predict_text(mm, words(kMaxExplainTokens + 500), kMaxExplainTokens);
  const auto whole = predict_text(mm, words(kMaxExplainTokens + 500), 0);
  ASSERT_EQ(whole.size(), 2u);
  EXPECT_NE(cut[1], whole[1]) << "predict_text with 0 must not be cut";
}

TEST(ExplainLimits, AnExplanationOfAHugeTextIsCutAndComplete) {
  const TextModel m = tiny_model();
  ExplainOptions o;
  o.max_tokens = 0;  // "no cut" asked
  o.ig_steps = 4;
  const TokenExplanation e = explain_text(m, words(20000), o);
  const size_t n = static_cast<size_t>(kMaxExplainTokens);
  ASSERT_EQ(e.tokens.size(), n);
  EXPECT_TRUE(e.truncated);
  EXPECT_EQ(e.num_tokens_total, 20000);
  for (const auto* v : {&e.attention, &e.gradient, &e.leave_one_out, &e.integrated_gradients}) {
    ASSERT_EQ(v->size(), n);
    for (double x : *v) ASSERT_TRUE(std::isfinite(x));
  }
  const std::string json = explanation_json(e);
  EXPECT_NE(json.find("\"truncated\":true"), std::string::npos);
  EXPECT_NE(json.find("\"num_tokens_total\":20000"), std::string::npos);
}

// Leave-one-out over more tokens than one chunk holds equals the shortened inputs run one at a time.
TEST(ExplainLimits, ChunkedLeaveOneOutEqualsOneSequenceAtATime) {
  const TextModel m = tiny_model(9);
  const PreparedText p = prepare_text(m, words(300), 0);  // 300 × 299 tokens: 11 chunks of 27 sequences
  ASSERT_GT(300L * 299L, 2 * kExplainBatchTokens);
  ExplainInput in;
  in.cfg = &m.config;
  in.params = &m.params;
  in.ids = p.ids;
  in.target = 1;
  const std::vector<double> loo = leave_one_out_importance(in);
  ASSERT_EQ(loo.size(), 300u);
  TextCache<float> full;
  text_forward_ids(m.config, m.params, TextBatch::from_sequences({p.ids}), full);
  const double p_full = class_probability(m.config, full.logits, 0, 1);
  double max_diff = 0;
  for (size_t t = 0; t < p.ids.size(); t += 13) {
    std::vector<int> ids = p.ids;
    ids.erase(ids.begin() + static_cast<long>(t));
    TextCache<float> c;
    text_forward_ids(m.config, m.params, TextBatch::from_sequences({ids}), c);
    max_diff = std::max(max_diff, std::abs(loo[t] - std::abs(p_full - class_probability(m.config, c.logits, 0, 1))));
  }
  EXPECT_LT(max_diff, 1e-6);
}

// Integrated gradients in chunks keep completeness: the attributions sum to p(x) − p(baseline).
TEST(ExplainLimits, ChunkedIntegratedGradientsStayComplete) {
  const TextModel m = tiny_model(3);
  ExplainOptions o;
  o.max_tokens = 0;
  o.ig_steps = 200;  // 201 path points × 400 tokens: 10 chunks
  const TokenExplanation e = explain_text(m, words(400), o);
  ASSERT_EQ(e.integrated_gradients.size(), 400u);
  ASSERT_GT(201L * 400L, 4 * kExplainBatchTokens);
  EXPECT_NEAR(e.ig_sum, e.ig_target, 2e-3 + 0.02 * std::abs(e.ig_target));
}

}  // namespace
}  // namespace attnlab
