// SST PTB trees (see sst_tree.h): an iterative parser (an explicit stack, so a deep tree cannot overflow the
// call stack), the human-rationale rule, and an index of trees by their words.
#include "text/sst_tree.h"

namespace attnlab {
namespace {

bool is_tree_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string where(size_t pos) { return "column " + std::to_string(pos + 1) + ": "; }

std::string key_of(const std::vector<std::string>& tokens) {
  std::string key;
  for (const std::string& t : tokens) {
    if (!key.empty()) key.push_back(' ');
    key += sst_match_form(t);
  }
  return key;
}

}  // namespace

bool parse_sst_tree(const std::string& s, SstTree* out, std::string* error) {
  SstTree tree;
  std::vector<int> open;  // indices of the nodes not yet closed
  const size_t n = s.size();
  size_t i = 0;
  const auto skip_ws = [&] {
    while (i < n && is_tree_space(s[i])) ++i;
  };
  const auto fail = [&](const std::string& what) {
    if (error) *error = where(i) + what;
    return false;
  };
  skip_ws();
  if (i >= n) return fail("empty tree");
  if (s[i] != '(') return fail("expected '('");
  // Each iteration is at a '(' that opens a node.
  while (true) {
    ++i;  // '('
    skip_ws();
    if (i >= n || s[i] < '0' || s[i] > '9') return fail("expected a label 0..4");
    const int label = s[i] - '0';
    ++i;
    if (label > 4 || (i < n && s[i] >= '0' && s[i] <= '9')) return fail("label must be 0..4");
    if (i >= n || !is_tree_space(s[i])) return fail("expected a space after the label");
    if (static_cast<int>(open.size()) >= kSstMaxTreeDepth) return fail("tree deeper than " + std::to_string(kSstMaxTreeDepth));
    skip_ws();
    const int node = static_cast<int>(tree.nodes.size());
    tree.nodes.push_back({label, static_cast<int>(tree.words.size()), 0});
    open.push_back(node);
    if (i >= n) return fail("unexpected end of the tree");
    if (s[i] == '(') continue;  // the first child
    // A word: up to whitespace or a bracket.
    const size_t start = i;
    while (i < n && !is_tree_space(s[i]) && s[i] != '(' && s[i] != ')') ++i;
    if (i == start) return fail("expected a word or '('");
    tree.words.push_back(s.substr(start, i - start));
    // Close nodes; stop at a '(' that opens the next sibling. A word's node closes right after the word.
    bool after_word = true;
    while (true) {
      skip_ws();
      if (i >= n) return fail("unexpected end of the tree (missing ')')");
      if (s[i] == '(' && !after_word) break;
      if (s[i] != ')') return fail(after_word ? "expected ')' after the word" : "expected '(' or ')'");
      ++i;
      after_word = false;
      tree.nodes[open.back()].end = static_cast<int>(tree.words.size());
      open.pop_back();
      if (open.empty()) {
        skip_ws();
        if (i < n) return fail("text after the tree");
        *out = std::move(tree);
        return true;
      }
    }
  }
}

int sst_binary_label(const SstTree& tree) {
  if (tree.nodes.empty()) return -1;
  const int root = tree.nodes[0].label;
  return root < 2 ? 0 : root > 2 ? 1 : -1;
}

std::vector<int> sst_human_rationale(const SstTree& tree, int polarity) {
  std::vector<int> mask(tree.words.size(), 0);
  for (size_t k = 1; k < tree.nodes.size(); ++k) {  // nodes[0], the root, is not a rationale
    const SstNode& nd = tree.nodes[k];
    if (nd.end - nd.begin > kSstRationaleMaxPhrase) continue;
    const bool agrees = polarity == 1 ? nd.label >= 3 : nd.label <= 1;
    if (!agrees) continue;
    for (int t = nd.begin; t < nd.end; ++t) mask[t] = 1;
  }
  return mask;
}

std::string sst_match_form(const std::string& token) {
  std::string t = token;
  for (char& c : t)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  if (t == "(") return "-lrb-";
  if (t == ")") return "-rrb-";
  if (t == "[") return "-lsb-";
  if (t == "]") return "-rsb-";
  if (t == "{") return "-lcb-";
  if (t == "}") return "-rcb-";
  if (t == "``" || t == "''" || t == "\"") return "\"";
  std::string out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '\\' && i + 1 < t.size() && (t[i + 1] == '/' || t[i + 1] == '*')) continue;  // \/ -> /, \* -> *
    out.push_back(t[i]);
  }
  return out;
}

bool SstTreebank::parse(const std::string& content, std::string* error) {
  size_t start = 0;
  int line = 0;
  while (start < content.size()) {
    size_t end = content.find('\n', start);
    if (end == std::string::npos) end = content.size();
    ++line;
    const std::string text = content.substr(start, end - start);
    start = end + 1;
    bool blank = true;
    for (char c : text) blank = blank && is_tree_space(c);
    if (blank) continue;
    SstTree tree;
    std::string why;
    if (!parse_sst_tree(text, &tree, &why)) {
      if (error) *error = "line " + std::to_string(line) + ", " + why;
      return false;
    }
    const auto inserted = by_words_.emplace(key_of(tree.words), trees_.size());
    if (!inserted.second) ++duplicates_;
    trees_.push_back(std::move(tree));
  }
  return true;
}

const SstTree* SstTreebank::find(const std::vector<std::string>& tokens) const {
  const auto it = by_words_.find(key_of(tokens));
  return it == by_words_.end() ? nullptr : &trees_[it->second];
}

}  // namespace attnlab
