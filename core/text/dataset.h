// Labelled text examples parsed from `label<TAB>text` lines (the ../shared/data TSV format), tokenised with
// the SST tokenizer. Parsing is from a string; reading files is the caller's job.
#pragma once
#include <string>
#include <vector>

namespace attnlab {

struct TextExample {
  int label = 0;
  std::vector<std::string> tokens;
};

// Returns false and sets *error ("line 12: label 'x' is not a non-negative integer") on malformed input.
// Empty lines are skipped.
bool parse_labeled_tsv(const std::string& content, std::vector<TextExample>* out, std::string* error);

}  // namespace attnlab
