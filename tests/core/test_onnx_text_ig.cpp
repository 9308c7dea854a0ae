// Integrated gradients on a user's ONNX transformer (onnx_text_integrated_gradients, explain/integrated_gradients_path.h)
// and the session helpers the CLI and the page share (onnx_text_session.h), on the BERT-shaped fixture
// (tests/fixtures/onnx-text/bert-sst2). Completeness is IG's closed-form property: the attributions add up to
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

  std::vector<double> ig;
  std::pair<double, double> ends;
  ASSERT_TRUE(onnx_text_integrated_gradients(m, kIds, target, 50, &ig, &ends, &err)) << err;
  ASSERT_EQ(ig.size(), kIds.size());
  EXPECT_NEAR(ends.first, p0, 1e-6);
  EXPECT_NEAR(ends.second, p1, 1e-6);
  const double sum = std::accumulate(ig.begin(), ig.end(), 0.0);
  EXPECT_GT(std::abs(p1 - p0), 0.05);                // a change worth attributing
  EXPECT_NEAR(sum, p1 - p0, 5e-3) << "sum " << sum << " vs " << p1 - p0;  // the path rule: 1e-3 per bisected segment
  // The model is left on the explained input.
  EXPECT_EQ(m.current_logits(), logits);
  // Negative control: the other class's attributions are the negatives (p_0 = 1 − p_1 for two classes), not these.
  std::vector<double> other;
  ASSERT_TRUE(onnx_text_integrated_gradients(m, kIds, 0, 50, &other, &ends, &err)) << err;
  double gap = 0;
  for (size_t t = 0; t < ig.size(); ++t) {
    EXPECT_NEAR(other[t], -ig[t], 1e-4);
    gap = std::max(gap, std::abs(other[t] - ig[t]));
  }
  EXPECT_GT(gap, 1e-3);
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
