// llama2.c tokenizer (core/text/llama2c_tokenizer.h) on stories260K's tok512.bin: the ids equal a direct
// transcription of run.c's encode (rescan every pair, merge the best, repeat) on the greedy text and on random
// strings; encode → decode round-trips, greedy200.expected.txt included; offsets tile the text; a truncated or
// foreign file is refused with a message; a negative control (scores reversed) changes the ids.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "text/llama2c_tokenizer.h"
#include "text/subword_tokenizer.h"

using namespace attnlab;

namespace {

std::string l2c_slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct L2cVocab {
  std::vector<std::string> pieces;
  std::vector<float> scores;
};

L2cVocab l2c_parse(const std::string& b) {
  L2cVocab v;
  size_t pos = 4;
  while (pos + 8 <= b.size()) {
    float score;
    int32_t len;
    std::memcpy(&score, b.data() + pos, 4);
    std::memcpy(&len, b.data() + pos + 4, 4);
    pos += 8;
    v.pieces.push_back(b.substr(pos, len));
    v.scores.push_back(score);
    pos += len;
  }
  return v;
}

// run.c's encode, transcribed naively (linear lookups, rescans), as the reference.
std::vector<int> l2c_reference_encode(const L2cVocab& v, const std::string& text, bool bos) {
  auto lookup = [&](const std::string& s) {
    for (size_t i = 0; i < v.pieces.size(); ++i)
      if (v.pieces[i] == s) return static_cast<int>(i);
    return -1;
  };
  std::vector<int> t;
  if (bos) t.push_back(1);
  if (!text.empty()) t.push_back(lookup(" "));
  std::string buf;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = text[i];
    if ((c & 0xC0) != 0x80) buf.clear();
    buf.push_back(static_cast<char>(c));
    if (i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80 && buf.size() < 4) continue;
    const int id = lookup(buf);
    if (id != -1) {
      t.push_back(id);
    } else {
      for (unsigned char x : buf) t.push_back(x + 3);
    }
    buf.clear();
  }
  while (true) {
    float best = -1e10f;
    int best_id = -1, best_idx = -1;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      const int id = lookup(v.pieces[t[i]] + v.pieces[t[i + 1]]);
      if (id != -1 && v.scores[id] > best) {
        best = v.scores[id];
        best_id = id;
        best_idx = static_cast<int>(i);
      }
    }
    if (best_idx == -1) break;
    t[best_idx] = best_id;
    t.erase(t.begin() + best_idx + 1);
  }
  return t;
}

class Llama2cTokenizerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    bytes_ = l2c_slurp(std::string(ATTNLAB_DATA_DIR) + "/stories260K/tok512.bin");
    greedy_ = l2c_slurp(std::string(ATTNLAB_DATA_DIR) + "/stories260K/greedy200.expected.txt");
  }
  void SetUp() override {
    if (bytes_.empty() || greedy_.empty()) GTEST_SKIP() << "no ../shared/data/stories260K";
    std::string error;
    tok_ = load_tokenizer(bytes_, &error);
    ASSERT_TRUE(tok_) << error;
  }
  static std::string bytes_, greedy_;
  std::unique_ptr<SubwordTokenizer> tok_;
};
std::string Llama2cTokenizerTest::bytes_, Llama2cTokenizerTest::greedy_;

TEST_F(Llama2cTokenizerTest, ReadsTok512) {
  EXPECT_STREQ(tok_->kind(), "llama2c-bpe");
  EXPECT_EQ(tok_->vocab_size(), 512);
  EXPECT_EQ(tok_->id_to_token(3), "<0x00>");
  EXPECT_EQ(tok_->token_to_id(" t"), 259);
}

TEST_F(Llama2cTokenizerTest, IdsEqualRunCsEncode) {
  const L2cVocab v = l2c_parse(bytes_);
  std::vector<std::string> texts = {greedy_, "Once upon a time", "", "a", " ", "  x  ",
                                    "caf\xC3\xA9 \xE2\x84\xA2 \xF0\x9F\xA6\x99 \xE6\x88\x91", "\n\nLily's mom said, \"No!\""};
  std::mt19937 rng(7);
  const std::string alphabet = "abcdefghijklmnopqrstuvwxyz ,.!'\"\nLSOT\xC3\xA9\xE2\x84\xA2\xF0\x9F\xA6\x99\x80\xFF";
  for (int k = 0; k < 40; ++k) {
    std::string s;
    const int n = static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) s += alphabet[rng() % alphabet.size()];
    texts.push_back(s);
  }
  for (const std::string& text : texts) {
    for (bool bos : {false, true}) {
      Tokenization out;
      std::string error;
      ASSERT_TRUE(tok_->encode(text, bos, &out, &error)) << error;
      EXPECT_EQ(out.ids, l2c_reference_encode(v, text, bos)) << "'" << text << "'";
    }
  }
}

TEST_F(Llama2cTokenizerTest, Greedy200TextEncodesAndDecodesToItself) {
  Tokenization out;
  std::string error;
  ASSERT_TRUE(tok_->encode(greedy_, true, &out, &error)) << error;
  EXPECT_GT(out.size(), 50u);
  EXPECT_LT(out.size(), greedy_.size());
  EXPECT_EQ(out.ids[0], 1);
  EXPECT_EQ(out.special[0], 1);
  EXPECT_EQ(tok_->decode(out.ids), greedy_);
}

TEST_F(Llama2cTokenizerTest, RoundTripsWithByteFallbackAndOffsetsTileTheText) {
  for (const std::string text : {"Once upon a time, there was a little girl named Lily.", "x",
                                 "caf\xC3\xA9 \xE2\x84\xA2 \xF0\x9F\xA6\x99 \xE6\x88\x91 {tabs}\t\tand\nnewlines\n"}) {
    Tokenization out;
    std::string error;
    ASSERT_TRUE(tok_->encode(text, true, &out, &error)) << error;
    EXPECT_EQ(tok_->decode(out.ids), text);
    EXPECT_EQ(out.offsets[0], std::make_pair(0, 0));  // BOS
    int last = 0;
    for (size_t i = 1; i < out.size(); ++i) {
      const auto [b, e] = out.offsets[i];
      EXPECT_EQ(b, last) << "token " << i << " of '" << text << "'";
      last = e;
      std::string piece = tok_->decode({out.ids[i]});
      if (i == 1 && !piece.empty() && piece[0] == ' ') piece.erase(0, 1);  // the dummy prefix
      EXPECT_EQ(piece, text.substr(b, e - b)) << "token " << i;
    }
    EXPECT_EQ(last, static_cast<int>(text.size()));
  }
  Tokenization out;
  std::string error;
  ASSERT_TRUE(tok_->encode("\xF0\x9F\xA6\x99", false, &out, &error));  // no piece: four byte tokens
  EXPECT_EQ(out.ids, (std::vector<int>{tok_->token_to_id(" "), 0xF0 + 3, 0x9F + 3, 0xA6 + 3, 0x99 + 3}));
  EXPECT_EQ(out.tokens[1], "<0xF0>");
  // Without BOS the dummy prefix space stays, as in run.c.
  ASSERT_TRUE(tok_->encode("Lily", false, &out, &error));
  EXPECT_EQ(tok_->decode(out.ids), " Lily");
}

TEST_F(Llama2cTokenizerTest, NegativeControlReversedScoresChangeTheIds) {
  std::string flipped = bytes_;
  size_t pos = 4;
  while (pos + 8 <= flipped.size()) {
    float score;
    int32_t len;
    std::memcpy(&score, flipped.data() + pos, 4);
    std::memcpy(&len, flipped.data() + pos + 4, 4);
    score = -1000.0f - score;  // the worst merge first
    std::memcpy(&flipped[pos], &score, 4);
    pos += 8 + len;
  }
  std::string error;
  auto bad = load_tokenizer(flipped, &error);
  ASSERT_TRUE(bad) << error;
  Tokenization a, b;
  ASSERT_TRUE(tok_->encode(greedy_, true, &a, &error));
  ASSERT_TRUE(bad->encode(greedy_, true, &b, &error));
  EXPECT_NE(a.ids, b.ids);
  EXPECT_NE(b.ids, l2c_reference_encode(l2c_parse(bytes_), greedy_, true));
}

TEST_F(Llama2cTokenizerTest, TruncatedAndForeignFilesAreRefused) {
  std::string error;
  for (size_t cut : {size_t{2}, size_t{6}, size_t{13}, bytes_.size() - 1}) {
    EXPECT_FALSE(load_tokenizer(bytes_.substr(0, cut), &error)) << cut;
    EXPECT_NE(error.find("truncated"), std::string::npos) << cut << ": " << error;
  }
  std::string huge_len = bytes_;
  huge_len[8] = '\x7F';  // token 0's length → far more than max_token_length
  EXPECT_FALSE(load_tokenizer(huge_len, &error));
  EXPECT_NE(error.find("more than max_token_length"), std::string::npos) << error;
  EXPECT_FALSE(load_tokenizer("\x0A\x05hello", &error));  // a SentencePiece .model (protobuf) is not tok*.bin
  EXPECT_NE(error.find("max_token_length"), std::string::npos) << error;
  EXPECT_FALSE(load_tokenizer(bytes_.substr(0, 4 + 8 + 5), &error));  // one token only
  EXPECT_NE(error.find("at least 259"), std::string::npos) << error;
  Tokenization out;
  EXPECT_FALSE(tok_->encode(std::string(kMaxTokenizerTextBytes + 1, 'a'), true, &out, &error));
  EXPECT_NE(error.find("limit"), std::string::npos);
}

}  // namespace
