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

}  // namespace
}  // namespace attnlab
