// Vocabulary: index 0 "<pad>", 1 "<unk>", then words by descending count (ties broken by byte order),
// keeping words with count >= min_count. Lookup of an unknown word gives kUnk.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

namespace attnlab {

class Vocab {
 public:
  static constexpr int kPad = 0;
  static constexpr int kUnk = 1;

  Vocab();  // just <pad>, <unk>
  explicit Vocab(std::vector<std::string> words);  // words[0..1] must be <pad>, <unk>
  // max_words > 0 keeps only the most frequent max_words words (plus <pad>, <unk>).
  static Vocab build(const std::vector<std::vector<std::string>>& sentences, int min_count, int max_words = 0);
  // True when words is a valid stored vocabulary: starts "<pad>", "<unk>", no duplicates. Else false and
  // *error (if given) names the first problem. The constructor repairs such lists instead of failing.
  static bool check_words(const std::vector<std::string>& words, std::string* error);

  int id(const std::string& word) const;  // kUnk if absent
  std::vector<int> ids(const std::vector<std::string>& words) const;
  const std::string& word(int id) const;
  int size() const { return static_cast<int>(words_.size()); }
  const std::vector<std::string>& words() const { return words_; }

 private:
  std::vector<std::string> words_;
  std::unordered_map<std::string, int> index_;
};

}  // namespace attnlab
