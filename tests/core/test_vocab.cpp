// Tests for core/text/vocab: special ids, build() ordering and min_count, unknown lookup, repair/check of
// stored word lists.
#include "text/vocab.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace attnlab {
namespace {

using Words = std::vector<std::string>;

TEST(Vocab, DefaultHasOnlySpecials) {
  Vocab v;
  EXPECT_EQ(v.size(), 2);
  EXPECT_EQ(v.word(Vocab::kPad), "<pad>");
  EXPECT_EQ(v.word(Vocab::kUnk), "<unk>");
  EXPECT_EQ(v.id("<pad>"), Vocab::kPad);
  EXPECT_EQ(v.id("<unk>"), Vocab::kUnk);
  EXPECT_EQ(v.id("film"), Vocab::kUnk);
}

TEST(Vocab, BuildOrdersByCountThenBytes) {
  // counts: the 4, a 2, b 2, B 2, z 1, film 3
  const std::vector<Words> sentences = {
      {"the", "film", "a", "b"},
      {"the", "film", "z", "B"},
      {"the", "a", "film", "b", "B", "the"},
  };
  Vocab v = Vocab::build(sentences, 1);
  // ties (count 2) by byte order: "B" (0x42) < "a" (0x61) < "b" (0x62)
  EXPECT_EQ(v.words(), (Words{"<pad>", "<unk>", "the", "film", "B", "a", "b", "z"}));
  for (int i = 0; i < v.size(); ++i) EXPECT_EQ(v.id(v.word(i)), i);
}

TEST(Vocab, ByteOrderTreatsNonAsciiAsLarge) {
  // "\xC3\xA9" (é) must sort after "z": byte order compares unsigned bytes.
  Vocab v = Vocab::build({{"\xC3\xA9", "z", "a"}}, 1);
  EXPECT_EQ(v.words(), (Words{"<pad>", "<unk>", "a", "z", "\xC3\xA9"}));
}

TEST(Vocab, MinCountFilters) {
  const std::vector<Words> sentences = {{"x", "x", "x", "y", "y", "w"}};
  EXPECT_EQ(Vocab::build(sentences, 1).size(), 5);
  EXPECT_EQ(Vocab::build(sentences, 2).words(), (Words{"<pad>", "<unk>", "x", "y"}));
  EXPECT_EQ(Vocab::build(sentences, 3).words(), (Words{"<pad>", "<unk>", "x"}));
  EXPECT_EQ(Vocab::build(sentences, 4).size(), 2);
  // min_count <= 0 keeps everything seen
  EXPECT_EQ(Vocab::build(sentences, 0).size(), 5);
  const Vocab v = Vocab::build(sentences, 2);
  EXPECT_EQ(v.id("w"), Vocab::kUnk);
  EXPECT_EQ(v.ids({"x", "w", "y", "<pad>"}), (std::vector<int>{2, Vocab::kUnk, 3, Vocab::kPad}));
}

TEST(Vocab, BuildSkipsSpecialTokensInText) {
  Vocab v = Vocab::build({{"<unk>", "<pad>", "<unk>", "", "ok"}}, 1);
  EXPECT_EQ(v.words(), (Words{"<pad>", "<unk>", "ok"}));
}

TEST(Vocab, FromWordList) {
  Vocab v(Words{"<pad>", "<unk>", "good", "bad"});
  EXPECT_EQ(v.size(), 4);
  EXPECT_EQ(v.id("bad"), 3);
  EXPECT_EQ(v.word(2), "good");
  EXPECT_EQ(v.word(-1), "<unk>");
  EXPECT_EQ(v.word(4), "<unk>");
  EXPECT_EQ(v.word(1000000), "<unk>");
}

TEST(Vocab, MalformedWordListIsRepairedAndReported) {
  std::string err;
  EXPECT_TRUE(Vocab::check_words({"<pad>", "<unk>", "a"}, &err));
  EXPECT_EQ(err, "");
  EXPECT_FALSE(Vocab::check_words({"<pad>"}, &err));
  EXPECT_EQ(err, "vocabulary has 1 entries, need at least 2");
  EXPECT_FALSE(Vocab::check_words({"a", "<pad>", "<unk>"}, &err));
  EXPECT_EQ(err, "vocabulary entry 0 is 'a', expected '<pad>'");
  EXPECT_FALSE(Vocab::check_words({"<pad>", "a", "<unk>"}, &err));
  EXPECT_EQ(err, "vocabulary entry 1 is 'a', expected '<unk>'");
  EXPECT_FALSE(Vocab::check_words({"<pad>", "<unk>", "a", "b", "a"}, &err));
  EXPECT_EQ(err, "vocabulary entry 4 'a' duplicates entry 2");
  EXPECT_FALSE(Vocab::check_words({"<pad>", "<unk>", "a", "b", "a"}, nullptr));

  Vocab repaired(Words{"a", "<unk>", "b"});
  EXPECT_EQ(repaired.words(), (Words{"<pad>", "<unk>", "a", "b"}));
  Vocab empty(Words{});
  EXPECT_EQ(empty.size(), 2);
  EXPECT_EQ(empty.id("anything"), Vocab::kUnk);
  Vocab dup(Words{"<pad>", "<unk>", "a", "a"});
  EXPECT_EQ(dup.id("a"), 2);  // first index wins
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

TEST(VocabMaxWords, KeepsTheMostFrequentWords) {
  const Vocab v = Vocab::build({{"a", "b", "b", "c", "c", "c"}}, 1, 2);
  EXPECT_EQ(v.size(), 4);
  EXPECT_EQ(v.word(2), "c");
  EXPECT_EQ(v.word(3), "b");
  EXPECT_EQ(v.id("a"), Vocab::kUnk);
}

}  // namespace
}  // namespace attnlab
