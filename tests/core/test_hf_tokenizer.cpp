// Hugging Face tokenizer.json (core/text/hf_tokenizer.h): conformance with Hugging Face `tokenizers` on the 46
// strings of llama.cpp's test vectors for bert-base-uncased WordPiece and roberta-base byte-level BPE
// (../shared/data/tokenizers), the [CLS] … [SEP] / <s> … </s> templates, offsets, decode, refusals, and a
// negative control (a reversed merge order must fail the conformance).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "text/hf_tokenizer.h"
#include "text/subword_tokenizer.h"

using namespace attnlab;

namespace {

std::string tok_slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string tok_data(const std::string& rel) { return std::string(ATTNLAB_DATA_DIR) + "/tokenizers/" + rel; }

struct TokVectors {
  std::vector<std::string> inputs;
  std::vector<std::vector<int>> ids;
};

// llama.cpp's format: inputs separated by "\n__ggml_vocab_test__\n"; one line of ids (leading space) each.
TokVectors tok_vectors(const std::string& name) {
  TokVectors v;
  std::string inp = tok_slurp(tok_data("test-vectors/" + name + ".inp"));
  const std::string sep = "\n__ggml_vocab_test__\n";
  size_t pos = 0, hit;
  while ((hit = inp.find(sep, pos)) != std::string::npos) {
    v.inputs.push_back(inp.substr(pos, hit - pos));
    pos = hit + sep.size();
  }
  std::istringstream out(tok_slurp(tok_data("test-vectors/" + name + ".out")));
  std::string line;
  while (std::getline(out, line) && v.ids.size() < v.inputs.size()) {
    std::istringstream ls(line);
    std::vector<int> ids;
    int id;
    while (ls >> id) ids.push_back(id);
    v.ids.push_back(ids);
  }
  return v;
}

std::unique_ptr<SubwordTokenizer> tok_load(const std::string& json_text) {
  std::string error;
  auto t = load_tokenizer(json_text, &error);
  EXPECT_TRUE(t) << error;
  return t;
}

// Number of the vectors' strings whose ids equal the expected ones (encode without special tokens).
int tok_conformance(const SubwordTokenizer& t, const TokVectors& v, bool report) {
  int ok = 0;
  for (size_t i = 0; i < v.inputs.size(); ++i) {
    Tokenization out;
    std::string error;
    if (!t.encode(v.inputs[i], false, &out, &error)) {
      if (report) ADD_FAILURE() << "string " << i << ": " << error;
      continue;
    }
    if (out.ids == v.ids[i]) {
      ++ok;
    } else if (report) {
      std::string got, want;
      for (int id : out.ids) got += " " + std::to_string(id);
      for (int id : v.ids[i]) want += " " + std::to_string(id);
      ADD_FAILURE() << "string " << i << " '" << v.inputs[i] << "'\n got:" << got << "\nwant:" << want;
    }
  }
  return ok;
}

class HfTokenizerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    bert_json_ = tok_slurp(tok_data("bert-wordpiece-uncased/tokenizer.json"));
    roberta_json_ = tok_slurp(tok_data("roberta-bytelevel-bpe/tokenizer.json"));
  }
  void SetUp() override {
    if (bert_json_.empty() || roberta_json_.empty()) GTEST_SKIP() << "no ../shared/data/tokenizers";
  }
  static std::string bert_json_, roberta_json_;
};
std::string HfTokenizerTest::bert_json_, HfTokenizerTest::roberta_json_;

TEST_F(HfTokenizerTest, BertWordPieceGivesHuggingFacesIdsOnAll46Strings) {
  const TokVectors v = tok_vectors("ggml-vocab-bert-bge.gguf");
  ASSERT_EQ(v.inputs.size(), 46u);
  ASSERT_EQ(v.ids.size(), 46u);
  auto t = tok_load(bert_json_);
  ASSERT_TRUE(t);
  EXPECT_STREQ(t->kind(), "wordpiece");
  EXPECT_EQ(t->vocab_size(), 30522);
  EXPECT_EQ(tok_conformance(*t, v, true), 46);
}

TEST_F(HfTokenizerTest, RobertaByteLevelBpeGivesHuggingFacesIdsOnAll46Strings) {
  const TokVectors v = tok_vectors("ggml-vocab-roberta-bpe.gguf");
  ASSERT_EQ(v.inputs.size(), 46u);
  ASSERT_EQ(v.ids.size(), 46u);
  auto t = tok_load(roberta_json_);
  ASSERT_TRUE(t);
  EXPECT_STREQ(t->kind(), "bytelevel-bpe");
  EXPECT_EQ(t->vocab_size(), 50265);
  EXPECT_EQ(tok_conformance(*t, v, true), 46);
}

// Negative control: the same check fails when the merges are applied in the wrong order (ranks reversed), and
// when the WordPiece continuation prefix is wrong.
TEST_F(HfTokenizerTest, NegativeControlWrongMergeOrderOrPrefixFailsTheConformance) {
  nlohmann::json j = nlohmann::json::parse(roberta_json_);
  auto& merges = j["model"]["merges"];
  std::reverse(merges.begin(), merges.end());
  auto reversed = tok_load(j.dump());
  ASSERT_TRUE(reversed);
  const TokVectors rv = tok_vectors("ggml-vocab-roberta-bpe.gguf");
  EXPECT_LT(tok_conformance(*reversed, rv, false), 20);

  nlohmann::json b = nlohmann::json::parse(bert_json_);
  b["model"]["continuing_subword_prefix"] = "@@";
  auto wrong = tok_load(b.dump());
  ASSERT_TRUE(wrong);
  const TokVectors bv = tok_vectors("ggml-vocab-bert-bge.gguf");
  EXPECT_LT(tok_conformance(*wrong, bv, false), 40);
}

TEST_F(HfTokenizerTest, BertTemplateAddsClsAndSepMarkedSpecial) {
  auto t = tok_load(bert_json_);
  ASSERT_TRUE(t);
  Tokenization out;
  std::string error;
  ASSERT_TRUE(t->encode("Hello, world!", true, &out, &error)) << error;
  EXPECT_EQ(out.ids, (std::vector<int>{101, 7592, 1010, 2088, 999, 102}));
  EXPECT_EQ(out.tokens, (std::vector<std::string>{"[CLS]", "hello", ",", "world", "!", "[SEP]"}));
  EXPECT_EQ(out.special, (std::vector<int>{1, 0, 0, 0, 0, 1}));
  EXPECT_EQ(out.offsets.front(), std::make_pair(0, 0));
  EXPECT_EQ(out.offsets.back(), std::make_pair(13, 13));
  ASSERT_TRUE(t->encode("Hello, world!", false, &out, &error));
  EXPECT_EQ(out.ids, (std::vector<int>{7592, 1010, 2088, 999}));
  EXPECT_EQ(out.special, (std::vector<int>{0, 0, 0, 0}));
  // [CLS] typed by the user is the added token, but not one the template added.
  ASSERT_TRUE(t->encode("[CLS] hi", false, &out, &error));
  EXPECT_EQ(out.ids, (std::vector<int>{101, 7632}));
  EXPECT_EQ(out.special, (std::vector<int>{0, 0}));
}

TEST_F(HfTokenizerTest, RobertaTemplateAddsSAndSlashS) {
  auto t = tok_load(roberta_json_);
  ASSERT_TRUE(t);
  Tokenization out;
  std::string error;
  ASSERT_TRUE(t->encode("Hello world", true, &out, &error)) << error;
  EXPECT_EQ(out.ids, (std::vector<int>{0, 31414, 232, 2}));
  EXPECT_EQ(out.tokens, (std::vector<std::string>{"<s>", "Hello", "\xC4\xA0world", "</s>"}));
  EXPECT_EQ(out.special, (std::vector<int>{1, 0, 0, 1}));
}

TEST_F(HfTokenizerTest, AddedTokensAreFoundLongestFirstWithLstrip) {
  auto t = tok_load(roberta_json_);
  ASSERT_TRUE(t);
  Tokenization out;
  std::string error;
  ASSERT_TRUE(t->encode("a <mask> b</s><s>", false, &out, &error)) << error;
  EXPECT_EQ(out.ids, (std::vector<int>{102, 50264, 741 /* "\xC4\xA0" "b" */, 2, 0}));
  EXPECT_EQ(out.offsets[1], std::make_pair(1, 8));  // <mask> takes the space before it (lstrip)
  EXPECT_EQ(out.offsets[3], std::make_pair(10, 14));
  EXPECT_EQ(out.special, (std::vector<int>{0, 0, 0, 0, 0}));
}

// WordPiece: each token's offsets cover the input characters it came from (the piece, lower-cased and without
// accents, equals that substring normalized); byte-level BPE: a token's bytes are exactly the input's bytes.
TEST_F(HfTokenizerTest, OffsetsMapBackToTheExactSubstrings) {
  auto bert = tok_load(bert_json_);
  ASSERT_TRUE(bert);
  const std::string text = "The unaffable Cafe\xCC\x81 said: Hello!";  // "Café" with a combining acute
  Tokenization out;
  std::string error;
  ASSERT_TRUE(bert->encode(text, false, &out, &error)) << error;
  std::string joined;
  for (size_t i = 0; i < out.size(); ++i) {
    const auto [b, e] = out.offsets[i];
    ASSERT_LE(0, b);
    ASSERT_LE(b, e);
    ASSERT_LE(e, static_cast<int>(text.size()));
    std::string piece = out.tokens[i].rfind("##", 0) == 0 ? out.tokens[i].substr(2) : out.tokens[i];
    std::string sub = text.substr(b, e - b);
    for (char& c : sub) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (sub == "cafe\xCC\x81") sub = "cafe";
    EXPECT_EQ(piece, sub) << "token " << i;
  }
  EXPECT_EQ(out.tokens, (std::vector<std::string>{"the", "una", "##ffa", "##ble", "cafe", "said", ":", "hello", "!"}));

  auto rob = tok_load(roberta_json_);
  ASSERT_TRUE(rob);
  for (const std::string s : {"Hello, y'all! How are you \xF0\x9F\x98\x81 ?\xE6\x88\x91\xE6\x83\xB3", "  two  spaces\n\tx",
                              "C\xE1\xBB\xAD" "a Vi\xE1\xBB\x87t"}) {
    ASSERT_TRUE(rob->encode(s, false, &out, &error)) << error;
    std::string rebuilt;
    int last = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      const auto [b, e] = out.offsets[i];
      EXPECT_EQ(b, last) << "tokens tile the text";
      last = e;
      const std::string piece = rob->decode({out.ids[i]});
      if (piece.find("\xEF\xBF\xBD") == std::string::npos) {
        EXPECT_EQ(piece, s.substr(b, e - b)) << "token " << i;
      }
      rebuilt += s.substr(b, e - b);
    }
    EXPECT_EQ(rebuilt, s);
    EXPECT_EQ(rob->decode(out.ids), s);
  }
}

TEST_F(HfTokenizerTest, WordPieceUnknownWordsAndLongWordsBecomeOneUnk) {
  auto t = tok_load(bert_json_);
  ASSERT_TRUE(t);
  Tokenization out;
  std::string error;
  // One piece missing → the whole word is [UNK] (HF), covering the word.
  ASSERT_TRUE(t->encode("a \xE1\x9E\x80\xE1\x9E\xB6z b", false, &out, &error));
  EXPECT_EQ(out.ids, (std::vector<int>{1037, 100, 1038}));
  EXPECT_EQ(out.offsets[1], std::make_pair(2, 9));
  // Longer than max_input_chars_per_word (100) → [UNK].
  ASSERT_TRUE(t->encode(std::string(101, 'a'), false, &out, &error));
  EXPECT_EQ(out.ids, (std::vector<int>{100}));
  ASSERT_TRUE(t->encode(std::string(100, 'a'), false, &out, &error));
  EXPECT_GT(out.size(), 1u);
}

TEST_F(HfTokenizerTest, DecodeJoinsWordPiecesAndSkipsTemplateTokens) {
  auto t = tok_load(bert_json_);
  ASSERT_TRUE(t);
  Tokenization out;
  std::string error;
  ASSERT_TRUE(t->encode("The unaffable man, isn't he?", true, &out, &error));
  EXPECT_EQ(t->decode(out.ids), "the unaffable man, isn't he?");
  EXPECT_EQ(t->id_to_token(101), "[CLS]");
  EXPECT_EQ(t->token_to_id("##able"), 3085);
  EXPECT_EQ(t->id_to_token(-1), "");
  EXPECT_EQ(t->id_to_token(1 << 30), "");
}

TEST_F(HfTokenizerTest, InvalidUtf8IsReadAsReplacementCharacters) {
  auto bert = tok_load(bert_json_);
  auto rob = tok_load(roberta_json_);
  ASSERT_TRUE(bert && rob);
  const std::string bad = std::string("ok \xFF\xC3 x\xE2\x82", 8) + "\xED\xA0\x80" + "\xF4\x90\x80\x80 end";
  Tokenization out;
  std::string error;
  ASSERT_TRUE(bert->encode(bad, true, &out, &error)) << error;  // U+FFFD is dropped by clean_text
  EXPECT_EQ(out.tokens, (std::vector<std::string>{"[CLS]", "ok", "x", "end", "[SEP]"}));
  ASSERT_TRUE(rob->encode(bad, false, &out, &error)) << error;
  for (const auto& [b, e] : out.offsets) {
    EXPECT_LE(0, b);
    EXPECT_LE(b, e);
    EXPECT_LE(e, static_cast<int>(bad.size()));
  }
  EXPECT_EQ(out.offsets.back().second, static_cast<int>(bad.size()));
}

TEST_F(HfTokenizerTest, TextOverTheLimitIsRefusedWithAMessage) {
  auto t = tok_load(bert_json_);
  ASSERT_TRUE(t);
  Tokenization out;
  std::string error;
  EXPECT_FALSE(t->encode(std::string(kMaxTokenizerTextBytes + 1, 'a'), false, &out, &error));
  EXPECT_NE(error.find("more than the tokenizer's limit"), std::string::npos) << error;
  EXPECT_EQ(out.size(), 0u);
}

std::string tok_error_of(const std::string& text) {
  std::string error;
  auto t = load_tokenizer(text, &error);
  EXPECT_FALSE(t);
  return error;
}

// WordLevel (Hugging Face's word-level model; what the transformer exporter writes): a whole word or the unk token,
// never pieces — "unbelievable" is unk even though "un" is in the vocabulary.
TEST(HfTokenizer, WordLevelMapsWholeWordsOrUnk) {
  auto t = tok_load(R"({"model": {"type": "WordLevel", "unk_token": "<unk>", "vocab": {"<unk>": 0, "un": 1, "good": 2, ".": 3}},
                        "pre_tokenizer": {"type": "WhitespaceSplit"}})");
  ASSERT_TRUE(t);
  EXPECT_STREQ(t->kind(), "wordlevel");
  Tokenization out;
  std::string error;
  ASSERT_TRUE(t->encode("good unbelievable .", true, &out, &error)) << error;
  EXPECT_EQ(out.ids, (std::vector<int>{2, 0, 3}));
  EXPECT_EQ(out.offsets[1], (std::pair<int, int>{5, 17}));
}

TEST(HfTokenizerErrors, UnsupportedPartsAreNamed) {
  EXPECT_NE(tok_error_of(R"({"model": {"type": "Unigram", "vocab": [["a", 0.0]]}})").find("model type 'Unigram' is not supported"),
            std::string::npos);
  EXPECT_NE(tok_error_of(R"({"model": {"type": "WordLevel", "vocab": {"a": 0}}})").find("a WordLevel model needs an unk_token"),
            std::string::npos);
  const std::string wp = R"("model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0, "a": 1}})";
  EXPECT_NE(tok_error_of("{" + wp + R"(, "normalizer": {"type": "NFKC"}})").find("normalizer 'NFKC' is not supported"),
            std::string::npos);
  EXPECT_NE(tok_error_of("{" + wp + R"(, "pre_tokenizer": {"type": "Metaspace"}})").find("pre-tokenizer 'Metaspace'"),
            std::string::npos);
  EXPECT_NE(tok_error_of("{" + wp + R"(, "post_processor": {"type": "Foo"}})").find("post_processor 'Foo'"), std::string::npos);
  EXPECT_NE(tok_error_of(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "pre_tokenizer": null})")
                .find("without the ByteLevel pre-tokenizer"),
            std::string::npos);
  std::string error;
  auto ok = load_tokenizer("{" + wp + R"(, "pre_tokenizer": {"type": "WhitespaceSplit"}})", &error);
  ASSERT_TRUE(ok) << error;
  Tokenization out;
  ASSERT_TRUE(ok->encode("a b", false, &out, &error));
  EXPECT_EQ(out.ids, (std::vector<int>{1, 0}));
}

TEST(HfTokenizerErrors, BadJsonAndHostileFilesAreRefused) {
  EXPECT_NE(tok_error_of("{\"model\": ").find("not valid JSON"), std::string::npos);
  EXPECT_NE(tok_error_of("[1, 2]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(tok_error_of("{}").find("no 'model'"), std::string::npos);
  EXPECT_NE(tok_error_of(std::string(100, '[') + std::string(100, ']')).find("nested more than"), std::string::npos);
  EXPECT_NE(tok_error_of(R"({"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": -1}}})")
                .find("not an integer"),
            std::string::npos);
  EXPECT_NE(tok_error_of(R"({"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 5000000000}}})")
                .find("not an integer"),
            std::string::npos);
  EXPECT_NE(tok_error_of(R"({"model": {"type": "WordPiece", "unk_token": "x", "vocab": {"[UNK]": 0}}})").find("unk_token"),
            std::string::npos);
  EXPECT_NE(tok_error_of(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a b"]}, "pre_tokenizer": {"type": "ByteLevel"}})")
                .find("merge 0"),
            std::string::npos);
  EXPECT_NE(tok_error_of(R"({"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": {"[UNK]": 0}, "max_input_chars_per_word": "x"}})")
                .find("max_input_chars_per_word"),
            std::string::npos);
  EXPECT_NE(tok_error_of(std::string(kMaxTokenizerFileBytes + 1, ' ')).find("more than the limit"), std::string::npos);
  EXPECT_NE(tok_error_of("").find("empty"), std::string::npos);
}

}  // namespace
