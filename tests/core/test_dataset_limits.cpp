// Bounds of the TSV reader (core/text/dataset): a line over 4 MiB is refused before tokenising, an example
// over kMaxExampleTokens tokens (after the optional cut) is refused with the line number, and the cut
// happens before that check. Before: a 10 MB line took 18.96 GB in eval-text.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "text/dataset.h"

namespace attnlab {
namespace {

TEST(DatasetLimits, LineOverTheByteLimitIsRefusedBeforeTokenising) {
  const std::string content = "1\tgood film\n0\t" + std::string(10 << 20, 'a') + "\n";
  std::vector<TextExample> out;
  std::string error;
  EXPECT_FALSE(parse_labeled_tsv(content, &out, &error));
  EXPECT_EQ(error, "line 2 is " + std::to_string(2 + (10 << 20)) + " bytes long, more than the limit of 4194304 bytes");
}

TEST(DatasetLimits, TooManyTokensIsAnErrorUnlessCut) {
  std::string text;
  for (int i = 0; i < kMaxExampleTokens + 1; ++i) text += "a ";
  const std::string content = "1\tfine\n\n0\t" + text + "\n";
  std::vector<TextExample> out;
  std::string error;
  EXPECT_FALSE(parse_labeled_tsv(content, &out, &error));
  EXPECT_EQ(error, "line 3 has 20001 tokens, more than the limit of 20000 (cut the texts: a model's max_tokens, "
                   "train-text --max-tokens)");
  out.clear();
  ASSERT_TRUE(parse_labeled_tsv(content, &out, &error, 400)) << error;
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].tokens.size(), 400u);
  // exactly at the limit is fine
  std::string at;
  for (int i = 0; i < kMaxExampleTokens; ++i) at += "b ";
  out.clear();
  ASSERT_TRUE(parse_labeled_tsv("1\t" + at, &out, &error)) << error;
  EXPECT_EQ(out[0].tokens.size(), static_cast<size_t>(kMaxExampleTokens));
}

TEST(DatasetLimits, EmptyAndBlankInputParseToNothing) {
  // The parser accepts them (no examples); the CLI refuses such files (test_cli_validation.cpp).
  for (const std::string content : {"", "\n\n\r\n"}) {
    std::vector<TextExample> out;
    std::string error;
    EXPECT_TRUE(parse_labeled_tsv(content, &out, &error));
    EXPECT_TRUE(out.empty());
  }
  std::vector<TextExample> out;
  std::string error;
  EXPECT_FALSE(parse_labeled_tsv("   \n", &out, &error));
  EXPECT_EQ(error, "line 1: no tab between label and text");
}

// issue 29: a spreadsheet's "UTF-8 text" export starts with a byte-order mark; it used to make line 1's label
// '\xEF\xBB\xBF0' ("label '0' is not a non-negative integer", the BOM invisible in the message).
TEST(DatasetLimits, ByteOrderMarkIsSkipped) {
  const std::string bom = "\xEF\xBB\xBF";
  std::vector<TextExample> out;
  std::string error;
  ASSERT_TRUE(parse_labeled_tsv(bom + "0\tbad film\r\n1\tgood film\r\n", &out, &error)) << error;
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].label, 0);
  EXPECT_EQ(out[0].tokens, (std::vector<std::string>{"bad", "film"}));
  std::vector<RawTextExample> raw;
  ASSERT_TRUE(parse_raw_labeled_tsv(bom + "1\tGood. Fine.\n", &raw, &error)) << error;
  ASSERT_EQ(raw.size(), 1u);
  EXPECT_EQ(raw[0].label, 1);
  EXPECT_EQ(raw[0].text, "Good. Fine.");
  // Only at the very start: a BOM later (two files concatenated) is an error that shows it.
  EXPECT_FALSE(parse_labeled_tsv("1\tok\n" + bom + "0\tno\n", &out, &error));
  EXPECT_EQ(error, "line 2: label '<U+FEFF>0' is not a non-negative integer");
}

TEST(DatasetLimits, LabelErrorsShowInvisibleCharacters) {
  std::vector<TextExample> out;
  std::string error;
  const std::pair<std::string, std::string> cases[] = {
      {"\xE2\x80\x8B" "1", "<U+200B>1"},           // zero-width space
      {"\xC2\xA0" "1", "<U+00A0>1"},                // no-break space
      {"1\r", "1\\r"},                              // a CR inside the label (not at the line end)
      {"\xFF" "1", "\\xFF1"},                        // not UTF-8
      {"pos", "pos"},                                // visible text stays as it is
      {"n\xC3\xA9g", "n\xC3\xA9g"},                   // so does visible non-ASCII
  };
  for (const auto& [label, shown] : cases) {
    EXPECT_FALSE(parse_labeled_tsv(label + "\ttext\n", &out, &error));
    EXPECT_EQ(error, "line 1: label '" + shown + "' is not a non-negative integer");
  }
  EXPECT_EQ(escape_invisible(std::string(100, 'x'), 5), "xxxxx…");
  EXPECT_EQ(escape_invisible(std::string("a\0b\tc", 5)), "a<U+0000>b\\tc");
  EXPECT_EQ(escape_invisible("\xF3\xA0\x80\x81"), "<U+E0001>");  // a language tag
}

}  // namespace
}  // namespace attnlab
