#include "text/dataset.h"

#include "text/tokenizer.h"

namespace attnlab {

bool parse_raw_labeled_tsv(const std::string& content, std::vector<RawTextExample>* out, std::string* error) {
  size_t pos = 0;
  int line_no = 0;
  while (pos < content.size()) {
    size_t end = content.find('\n', pos);
    if (end == std::string::npos) end = content.size();
    ++line_no;
    if (end - pos > kMaxTsvLineBytes) {
      *error = "line " + std::to_string(line_no) + " is " + std::to_string(end - pos) + " bytes long, more than the limit of " +
               std::to_string(kMaxTsvLineBytes) + " bytes";
      return false;
    }
    std::string line = content.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) {
      *error = "line " + std::to_string(line_no) + ": no tab between label and text";
      return false;
    }
    const std::string label = line.substr(0, tab);
    bool digits = !label.empty() && label.size() < 6;
    for (char ch : label) digits = digits && ch >= '0' && ch <= '9';
    if (!digits) {
      *error = "line " + std::to_string(line_no) + ": label '" + label.substr(0, 20) + "' is not a non-negative integer";
      return false;
    }
    out->push_back({std::stoi(label), line.substr(tab + 1), line_no});
  }
  return true;
}

bool parse_labeled_tsv(const std::string& content, std::vector<TextExample>* out, std::string* error,
                       int max_tokens) {
  std::vector<RawTextExample> raw;
  if (!parse_raw_labeled_tsv(content, &raw, error)) return false;
  for (const RawTextExample& r : raw) {
    TextExample ex;
    ex.label = r.label;
    ex.tokens = tokenize(r.text);
    if (max_tokens > 0 && ex.tokens.size() > static_cast<size_t>(max_tokens)) ex.tokens.resize(max_tokens);
    if (ex.tokens.size() > static_cast<size_t>(kMaxExampleTokens)) {
      *error = "line " + std::to_string(r.line) + " has " + std::to_string(ex.tokens.size()) +
               " tokens, more than the limit of " + std::to_string(kMaxExampleTokens) +
               " (cut the texts: a model's max_tokens, train-text --max-tokens)";
      return false;
    }
    out->push_back(std::move(ex));
  }
  return true;
}

}  // namespace attnlab
