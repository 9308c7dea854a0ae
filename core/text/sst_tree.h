// The Stanford Sentiment Treebank's PTB trees (Socher et al. 2013): one sentence per line,
// "(label child child ...)" for a phrase and "(label word)" for a word, a 5-class sentiment label on every
// node (0 very negative, 1 negative, 2 neutral, 3 positive, 4 very positive), words PTB-escaped (-LRB-, ``,
// '', \/). Parsing is from a string (reading files is the caller's job); no exceptions, bad input gets a
// message ("line 3, column 17: expected ')'").
//
// The human rationale of a sentence (the rule used by the `plausibility` experiment, docs/RESULTS.md):
//   a word is in the rationale of a sentence with binary label y when some node other than the root that
//   covers at most kSstRationaleMaxPhrase = 3 words (a word itself or a short phrase) has a label of y's
//   polarity: >= 3 (positive, 4 or 3) when y = 1, <= 1 (negative, 0 or 1) when y = 0.
// So the words annotators labelled with the sentence's polarity, and the words of short phrases they labelled
// so ("does n't work" labelled negative marks all three words, although each word alone is neutral). The root
// is excluded (its label is the sentence label, not a rationale); neutral (2) and opposite-polarity nodes never
// mark words. A sentence can have an empty rationale (no word or short phrase of its polarity): callers skip it.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

namespace attnlab {

constexpr int kSstRationaleMaxPhrase = 3;  // longest phrase (in words) whose label marks its words
constexpr int kSstMaxTreeDepth = 10000;    // deeper trees are refused (the deepest SST tree is ~ 40)

struct SstNode {
  int label = 2;             // 0..4
  int begin = 0, end = 0;    // the words it covers, [begin, end)
};

struct SstTree {
  std::vector<std::string> words;  // the leaves, in order, as written (escaped, original case)
  std::vector<SstNode> nodes;      // pre-order: nodes[0] is the root; every node, words included
};

// Parses one tree ("(3 (2 A) (4 good))"); surrounding whitespace is allowed. Labels must be 0..4.
bool parse_sst_tree(const std::string& text, SstTree* out, std::string* error);

// Binary label of a tree from its root: 0 (root 0 or 1), 1 (root 3 or 4), -1 (neutral root, 2).
int sst_binary_label(const SstTree& tree);

// The rule above: one 0/1 entry per word of `tree`; polarity 1 = positive, 0 = negative.
std::vector<int> sst_human_rationale(const SstTree& tree, int polarity);

// A token in the form used to match tree words with tokenised sentences: ASCII lower case; PTB brackets
// and their escapes (( -lrb- ) -rrb- [ -lsb- ] -rsb- { -lcb- } -rcb-) to one form each; the quotes `` '' and "
// to "; \/ and \* to / and *.
std::string sst_match_form(const std::string& token);

// Trees indexed by their words (in sst_match_form), to find the tree of a tokenised sentence.
class SstTreebank {
 public:
  // One tree per non-empty line of `content`, appended. On a malformed line returns false with *error =
  // "line N: ..." (the trees before it are kept).
  bool parse(const std::string& content, std::string* error);
  // The tree whose words equal `tokens` one for one in sst_match_form, or nullptr. When several trees have
  // the same words, the first one parsed.
  const SstTree* find(const std::vector<std::string>& tokens) const;
  size_t size() const { return trees_.size(); }
  int duplicates() const { return duplicates_; }  // trees whose words repeat an earlier tree's

 private:
  std::vector<SstTree> trees_;
  std::unordered_map<std::string, size_t> by_words_;
  int duplicates_ = 0;
};

}  // namespace attnlab
