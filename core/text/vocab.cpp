// Vocabulary (see vocab.h): index 0 "<pad>", 1 "<unk>", then words by descending count, ties by byte order
// (std::string's operator< compares as unsigned char), keeping words with count >= min_count.
// build() never adds "<pad>"/"<unk>"/"" from the sentences a second time.
// Vocab(words) never fails: if words does not begin with "<pad>", "<unk>" those two are put in front (and
// dropped from later positions); a duplicate word keeps its first index. Use Vocab::check_words() to
// reject such a list instead (e.g. when loading a checkpoint). word(id) out of range gives "<unk>".
#include "text/vocab.h"

#include <algorithm>
#include <utility>

namespace attnlab {
namespace {
const char* const kPadWord = "<pad>";
const char* const kUnkWord = "<unk>";
}  // namespace

Vocab::Vocab() : Vocab(std::vector<std::string>{kPadWord, kUnkWord}) {}

Vocab::Vocab(std::vector<std::string> words) {
  const bool well_formed = words.size() >= 2 && words[0] == kPadWord && words[1] == kUnkWord;
  if (!well_formed) {
    std::vector<std::string> fixed{kPadWord, kUnkWord};
    for (auto& w : words) {
      if (w != kPadWord && w != kUnkWord) fixed.push_back(std::move(w));
    }
    words = std::move(fixed);
  }
  words_ = std::move(words);
  index_.reserve(words_.size());
  for (size_t i = 0; i < words_.size(); ++i) index_.emplace(words_[i], static_cast<int>(i));  // first wins
}

bool Vocab::check_words(const std::vector<std::string>& words, std::string* error) {
  auto fail = [&](const std::string& msg) {
    if (error) *error = msg;
    return false;
  };
  if (words.size() < 2) return fail("vocabulary has " + std::to_string(words.size()) + " entries, need at least 2");
  if (words[0] != kPadWord) return fail("vocabulary entry 0 is '" + words[0] + "', expected '<pad>'");
  if (words[1] != kUnkWord) return fail("vocabulary entry 1 is '" + words[1] + "', expected '<unk>'");
  std::unordered_map<std::string, size_t> seen;
  seen.reserve(words.size());
  for (size_t i = 0; i < words.size(); ++i) {
    auto it = seen.emplace(words[i], i);
    if (!it.second) {
      return fail("vocabulary entry " + std::to_string(i) + " '" + words[i] + "' duplicates entry " +
                  std::to_string(it.first->second));
    }
  }
  if (error) error->clear();
  return true;
}

Vocab Vocab::build(const std::vector<std::vector<std::string>>& sentences, int min_count, int max_words) {
  std::unordered_map<std::string, long long> counts;
  for (const auto& sentence : sentences) {
    for (const auto& w : sentence) {
      if (w.empty() || w == kPadWord || w == kUnkWord) continue;
      ++counts[w];
    }
  }
  std::vector<std::pair<std::string, long long>> items;
  items.reserve(counts.size());
  for (auto& kv : counts) {
    if (kv.second >= min_count) items.emplace_back(kv.first, kv.second);
  }
  std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return a.first < b.first;
  });
  if (max_words > 0 && static_cast<int>(items.size()) > max_words) items.resize(max_words);
  std::vector<std::string> words{kPadWord, kUnkWord};
  words.reserve(items.size() + 2);
  for (auto& it : items) words.push_back(std::move(it.first));
  return Vocab(std::move(words));
}

int Vocab::id(const std::string& word) const {
  auto it = index_.find(word);
  return it == index_.end() ? kUnk : it->second;
}

std::vector<int> Vocab::ids(const std::vector<std::string>& words) const {
  std::vector<int> out;
  out.reserve(words.size());
  for (const auto& w : words) out.push_back(id(w));
  return out;
}

const std::string& Vocab::word(int id) const {
  if (id < 0 || id >= size()) return words_[kUnk];
  return words_[static_cast<size_t>(id)];
}

}  // namespace attnlab
