// Integrated gradients on a user's ONNX transformer (onnx_text_integrated_gradients, explain/integrated_gradients_path.h)
// and the session helpers the CLI and the page share (onnx_text_session.h), on the BERT-shaped fixture
// (tests/fixtures/onnx-text/bert-sst2) and, for the baseline policy, the shipped stories260K. Completeness is IG's closed-form property: the attributions add up to
// p(x) − p(baseline), where p(baseline) is the model run on all-zero token embeddings (checked here by an independent
// forward_from). Parity with the native path's IG row is tests/node/onnx_text_parity.test.mjs.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "explain/onnx_text/onnx_text_explain.h"
#include "explain/onnx_text/onnx_text_session.h"
#include "parallel/parallel_for.h"
#include "text/subword_tokenizer.h"

namespace {

using namespace attnlab;

std::string bert_file(const std::string& name) {
  std::ifstream in(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/onnx-text/bert-sst2/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

OnnxTextModel& bert() {
  static OnnxTextModel* m = [] {
    auto* model = new OnnxTextModel;
    const std::string b = bert_file("model.onnx");
    std::string err;
    EXPECT_TRUE(model->load(reinterpret_cast<const uint8_t*>(b.data()), b.size(), "", &err)) << err;
    return model;
  }();
  return *m;
}

// "a gorgeous , witty , seductive movie ." with [CLS] … [SEP] (reference.json's first case)
const std::vector<int> kIds = {101, 1037, 9882, 1010, 25591, 1010, 23182, 3185, 1012, 102};

TEST(OnnxTextIg, AttributionsAddUpToTheChangeFromTheZeroEmbeddingBaseline) {
  OnnxTextModel& m = bert();
  std::string err;
  ASSERT_TRUE(m.run(kIds, &err)) << err;
  const std::vector<float> logits = m.logits();
  const int target = 1;
  const double p1 = onnx_text_probability(logits, target);
  // p(baseline), independently: the token embeddings replaced by zeros.
  onnx::Tensor<float> zero = *m.executor().value(m.embedding_value());
  std::fill(zero.f.begin(), zero.f.end(), 0.f);
  ASSERT_TRUE(m.executor().forward_from(m.embedding_value(), zero, &err)) << err;
  const double p0 = onnx_text_probability(m.current_logits(), target);

  OnnxIgBaseline zero_baseline;
  zero_baseline.mode = "zero";
  OnnxIgResult r;
  ASSERT_TRUE(onnx_text_integrated_gradients(m, kIds, target, 50, zero_baseline, &r, &err)) << err;
  const std::vector<double>& ig = r.values;
  ASSERT_EQ(ig.size(), kIds.size());
  EXPECT_NEAR(r.target, p1 - p0, 1e-6);
  EXPECT_EQ(r.token, -1);
  const double sum = std::accumulate(ig.begin(), ig.end(), 0.0);
  EXPECT_EQ(sum, r.sum);
  EXPECT_GT(std::abs(p1 - p0), 0.05);                // a change worth attributing
  EXPECT_NEAR(sum, p1 - p0, 5e-3) << "sum " << sum << " vs " << p1 - p0;  // the path rule: 1e-3 per bisected segment
  // The model is left on the explained input.
  EXPECT_EQ(m.current_logits(), logits);
  // Negative control: the other class's attributions are the negatives (p_0 = 1 − p_1 for two classes), not these.
  OnnxIgResult r0;
  ASSERT_TRUE(onnx_text_integrated_gradients(m, kIds, 0, 50, zero_baseline, &r0, &err)) << err;
  const std::vector<double>& other = r0.values;
  double gap = 0;
  for (size_t t = 0; t < ig.size(); ++t) {
    EXPECT_NEAR(other[t], -ig[t], 1e-4);
    gap = std::max(gap, std::abs(other[t] - ig[t]));
  }
  EXPECT_GT(gap, 1e-3);
}

// The baseline policy (OnnxIgBaseline) on stories260K, a Llama-style model whose only position signal is rotary: from
// all-zero embeddings the path cannot be integrated (its RMSNorms amplify α·x near α = 0), which is the negative control
// of `auto`; from the <unk> token's embedding it can. The template's BOS is kept in the token baseline, so it gets 0,
// and p(baseline) is the model run on the baseline's ids (an independent run). On the BERT-shaped model the zero
// baseline completes, so auto keeps it. neutral_token finds [PAD] / <unk> by name.
TEST(OnnxTextIg, AutoBaselineSwitchesToATokenWhereTheZeroPathCannotBeIntegrated) {
  auto read = [](const std::string& path) {
    std::ifstream in(std::string(ATTNLAB_SOURCE_DIR) + path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  std::string err;
  const std::string bytes = read("/models/text/stories260K/model.onnx");
  OnnxTextModel m;
  ASSERT_TRUE(m.load(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "", &err)) << err;
  std::unique_ptr<SubwordTokenizer> tok = load_tokenizer(read("/models/text/stories260K/tokenizer.bin"), &err);
  ASSERT_TRUE(tok) << err;
  Tokenization t;
  ASSERT_TRUE(tok->encode("Once upon a time, there was a little girl named Lily.", true, &t, &err)) << err;
  ASSERT_TRUE(m.run(t.ids, &err)) << err;
  const std::vector<float> logits = m.logits();
  const int target = onnx_text_top_k(logits, 1)[0];
  OnnxIgBaseline b = onnx_ig_baseline_of(tok.get());
  b.special = t.special;
  EXPECT_EQ(b.mode, "auto");
  EXPECT_EQ(b.token, 0);
  EXPECT_EQ(b.piece, "<unk>");
  EXPECT_EQ(onnx_ig_baseline_of(nullptr).token, -1);
  ASSERT_EQ(t.special[0], 1);  // BOS

  b.mode = "zero";
  OnnxIgResult zero;
  ASSERT_TRUE(onnx_text_integrated_gradients(m, t.ids, target, 50, b, &zero, &err)) << err;
  EXPECT_FALSE(onnx_text_ig_complete(zero.sum, zero.target)) << zero.sum << " vs " << zero.target;

  b.mode = "auto";
  OnnxIgResult autor;
  ASSERT_TRUE(onnx_text_integrated_gradients(m, t.ids, target, 50, b, &autor, &err)) << err;
  EXPECT_TRUE(autor.switched);
  EXPECT_EQ(autor.token, 0);
  EXPECT_EQ(autor.zero_sum, zero.sum);
  EXPECT_EQ(autor.zero_target, zero.target);
  EXPECT_TRUE(onnx_text_ig_complete(autor.sum, autor.target)) << autor.sum << " vs " << autor.target;
  EXPECT_NEAR(autor.sum, autor.target, 1e-2);  // the path rule: ≤ 1e-3 per segment left unbisected
  EXPECT_EQ(autor.values[0], 0.0);  // the BOS is the same in the input and the baseline
  // p(baseline): the model on the baseline's ids (every token but BOS replaced by <unk>)
  std::vector<int> base(t.ids.size(), 0);
  base[0] = t.ids[0];
  ASSERT_TRUE(m.run(base, &err)) << err;
  const double p0 = onnx_text_probability(m.logits(), target);
  EXPECT_NEAR(autor.target, onnx_text_probability(logits, target) - p0, 1e-6);
  const nlohmann::json j = onnx_ig_baseline_json(autor, b);
  EXPECT_EQ(j["kind"], "token");
  EXPECT_EQ(j["token"], 0);
  EXPECT_EQ(j["piece"], "<unk>");
  EXPECT_EQ(j["zero_completeness"]["sum"].get<double>(), zero.sum);

  b.mode = "token";
  OnnxIgResult token;
  ASSERT_TRUE(onnx_text_integrated_gradients(m, t.ids, target, 50, b, &token, &err)) << err;
  EXPECT_EQ(token.values, autor.values);
  EXPECT_FALSE(token.switched);
  b.token = -1;
  EXPECT_FALSE(onnx_text_integrated_gradients(m, t.ids, target, 50, b, &token, &err));
  EXPECT_NE(err.find("neither"), std::string::npos) << err;
  b.mode = "pad";
  EXPECT_FALSE(onnx_text_integrated_gradients(m, t.ids, target, 50, b, &token, &err));

  // BERT-shaped: the zero baseline completes (position embeddings keep the input's norm), so auto keeps it.
  std::unique_ptr<SubwordTokenizer> wp = load_tokenizer(bert_file("tokenizer.json"), &err);
  ASSERT_TRUE(wp) << err;
  const OnnxIgBaseline bb = onnx_ig_baseline_of(wp.get());
  EXPECT_EQ(bb.piece, "[PAD]");
  OnnxIgResult br;
  ASSERT_TRUE(onnx_text_integrated_gradients(bert(), kIds, 1, 50, bb, &br, &err)) << err;
  EXPECT_FALSE(br.switched);
  EXPECT_EQ(br.token, -1);
}

TEST(OnnxTextSession, ConfigCutAndTokenizerCheck) {
  OnnxTextModel& m = bert();
  std::string err;
  std::unique_ptr<SubwordTokenizer> tok = load_tokenizer(bert_file("tokenizer.json"), &err);
  ASSERT_TRUE(tok) << err;
  OnnxTextConfig cfg;
  ASSERT_TRUE(read_onnx_text_config(bert_file("config.json"), *tok, &cfg, &err)) << err;
  EXPECT_EQ(cfg.max_positions, 128);
  EXPECT_EQ(cfg.max_positions_source, "config.json max_position_embeddings");
  EXPECT_EQ(cfg.labels, nlohmann::json({"negative", "positive"}));
  EXPECT_FALSE(read_onnx_text_config("[1, 2]", *tok, &cfg, &err));
  EXPECT_EQ(err, "config.json is not a JSON object: it cannot be read");
  ASSERT_TRUE(check_onnx_text_pair(m, *tok, &err)) << err;

  // Cut to 6 positions (a config that says so): [CLS] + 4 tokens + [SEP] kept last, and where the text was cut.
  cfg.max_positions = 6;
  cfg.max_positions_source = "test";
  Tokenization t;
  const std::string text = "a gorgeous , witty , seductive movie .";
  ASSERT_TRUE(tok->encode(text, true, &t, &err));
  std::vector<int> ids = t.ids;
  nlohmann::json cut = nullptr;
  ASSERT_TRUE(fit_onnx_text_input(m, &cfg, &ids, &t, &cut, &err)) << err;
  EXPECT_EQ(ids, (std::vector<int>{101, 1037, 9882, 1010, 25591, 102}));
  EXPECT_EQ(t.tokens.back(), "[SEP]");
  EXPECT_EQ(cut["kept"], 6);
  EXPECT_EQ(cut["total"], 10);
  EXPECT_EQ(text.substr(0, cut["at_byte"].get<size_t>()), "a gorgeous , witty");
  // Not cut: *cut untouched.
  nlohmann::json none = nullptr;
  std::vector<int> short_ids = {101, 1037, 102};
  ASSERT_TRUE(fit_onnx_text_input(m, &cfg, &short_ids, nullptr, &none, &err));
  EXPECT_TRUE(none.is_null());
  // Unknown positions and a text past the model's 128: the longest prefix that runs is found by trying.
  OnnxTextConfig unknown;
  std::vector<int> long_ids(200, 1037);
  nlohmann::json tried = nullptr;
  ASSERT_TRUE(fit_onnx_text_input(m, &unknown, &long_ids, nullptr, &tried, &err)) << err;
  EXPECT_EQ(long_ids.size(), 128u);
  EXPECT_EQ(unknown.max_positions, 128);
  EXPECT_EQ(unknown.max_positions_source, "tried");
  EXPECT_TRUE(tried["at_byte"].is_null());
}

}  // namespace

namespace {

// Leave-one-out on a user's transformer (onnx_text_leave_one_out): the deletions in batches (the fixture's batch
// dimension is free), the batches side by side on copies of the model on the core's threads. Every value equals
// |p − p(ids without t)| from a full pass of that input alone (within float rounding: natively Eigen sums a batch's
// products in another order), and the values are the same bits on 1, 2 and 3 threads (the copies share the weights,
// never a value). Negative control: another class's values differ.
TEST(OnnxTextLeaveOneOut, BatchedDeletionsOnCopiesEqualFullPassesOnEveryThreadCount) {
  OnnxTextModel& m = bert();
  std::string err;
  ASSERT_TRUE(m.run(kIds, &err)) << err;
  const double p = onnx_text_probability(m.logits(), 1);
  std::vector<double> direct(kIds.size());
  for (size_t t = 0; t < kIds.size(); ++t) {
    std::vector<int> cut = kIds;
    cut.erase(cut.begin() + static_cast<long>(t));
    ASSERT_TRUE(m.run(cut, &err)) << err;  // a full pass (every value kept)
    direct[t] = std::abs(p - onnx_text_probability(m.logits(), 1));
  }
  const int before = thread_count();
  std::vector<std::vector<double>> by_threads;
  for (int threads : {1, 2, 3}) {
    set_thread_count(threads);
    std::vector<double> loo;
    ASSERT_TRUE(onnx_text_leave_one_out(m, kIds, 1, p, 0, static_cast<int>(kIds.size()), &loo, &err)) << err;
    by_threads.push_back(loo);
  }
  set_thread_count(before);
  ASSERT_TRUE(m.batch_free());  // the fixture's inputs are [batch, sequence]: the deletions run as batches
  for (const auto& loo : by_threads) {
    ASSERT_EQ(loo.size(), direct.size());
    for (size_t t = 0; t < loo.size(); ++t) {
      EXPECT_EQ(loo[t], by_threads[0][t]) << "token " << t;           // the same bits on every thread count
      EXPECT_NEAR(loo[t], direct[t], 1e-6) << "token " << t;          // one batch vs one pass each: float rounding
    }
  }
  // the first batched call checked its first deletion against a pass of its own, once for this model; a model whose
  // batches were found to disagree runs one deletion a pass, with the same values
  EXPECT_EQ(m.batch_check(), OnnxTextModel::BatchCheck::kAgree);
  OnnxTextModel single = m;
  single.set_batch_check(false);
  std::vector<double> one_by_one;
  ASSERT_TRUE(onnx_text_leave_one_out(single, kIds, 1, p, 0, static_cast<int>(kIds.size()), &one_by_one, &err)) << err;
  for (size_t t = 0; t < one_by_one.size(); ++t) EXPECT_NEAR(one_by_one[t], direct[t], 1e-6) << "token " << t;
  // a range [begin, end) gives the same values
  std::vector<double> part;
  ASSERT_TRUE(onnx_text_leave_one_out(m, kIds, 1, p, 3, 7, &part, &err)) << err;
  for (size_t k = 0; k < part.size(); ++k) EXPECT_NEAR(part[k], direct[3 + k], 1e-6);
  // negative control: class 0's deletions against class 1's probability are other numbers
  std::vector<double> other;
  ASSERT_TRUE(onnx_text_leave_one_out(m, kIds, 0, p, 0, static_cast<int>(kIds.size()), &other, &err)) << err;
  double most = 0;
  for (size_t t = 0; t < other.size(); ++t) most = std::max(most, std::abs(other[t] - direct[t]));
  EXPECT_GT(most, 1e-3);
  ASSERT_TRUE(m.run(kIds, &err)) << err;  // leave the shared fixture on the explained input
}

}  // namespace
