// Labelled text examples parsed from `label<TAB>text` lines (the ../shared/data TSV format), tokenised with
// the SST tokenizer. Parsing is from a string; reading files is the caller's job.
// Bounds (bad input gets a message, never gigabytes): a line longer than kMaxTsvLineBytes is refused before
// it is tokenised, and an example with more than kMaxExampleTokens tokens after the optional cut is refused
// (the BiLSTM keeps ~9.4 KB of activations per token: 20,000 tokens ≈ 190 MB; a 10 MB line of one-letter
// words would be 5 M tokens ≈ 47 GB).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace attnlab {

constexpr size_t kMaxTsvLineBytes = size_t{4} << 20;  // 4 MiB (the longest line in ../shared/data: 68 KB)
constexpr int kMaxExampleTokens = 20000;              // after the max_tokens cut

struct TextExample {
  int label = 0;
  std::vector<std::string> tokens;
  std::vector<int> marked = {};  // token positions a training option marks (impermissible by position); empty = none
};

// Returns false and sets *error ("line 12: label 'x' is not a non-negative integer", invisible characters of the
// label shown escaped: "label '<U+200B>0'") on malformed input. A UTF-8 byte-order mark at the start of the
// content (a spreadsheet's "UTF-8 text" export) is skipped; empty lines are skipped. The texts are tokenised
// line by line, so the content and its tokens are held together, never a second copy of the texts. max_tokens > 0 cuts every text to its first max_tokens tokens (before the
// kMaxExampleTokens check). An input without any example is valid here (callers decide).
bool parse_labeled_tsv(const std::string& content, std::vector<TextExample>* out, std::string* error,
                       int max_tokens = 0);

// The same lines with the texts untouched (HAN models split sentences from the raw text): the same rules
// (empty lines skipped, kMaxTsvLineBytes, the label check) and messages, no tokenising.
struct RawTextExample {
  int label = 0;
  std::string text;
  int line = 0;  // 1-based line number in the content (for messages)
};
bool parse_raw_labeled_tsv(const std::string& content, std::vector<RawTextExample>* out, std::string* error);

// s for a message: characters that print as nothing or as a space (controls, U+00A0, U+200B–U+200F, U+2028,
// U+2060, U+FEFF, variation selectors, tags …) as "<U+FEFF>", tab / CR / LF as \t \r \n, bytes that are not
// UTF-8 as \xNN; at most max_chars characters, then "…".
std::string escape_invisible(const std::string& s, size_t max_chars = 40);

}  // namespace attnlab
