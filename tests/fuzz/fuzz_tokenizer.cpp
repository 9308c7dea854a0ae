// libFuzzer target: core/text tokenizer + vocabulary on any bytes. Checks: no crash / UB; tokens are
// non-empty, space-free and valid UTF-8-agnostic strings; the tokenizer is idempotent on its own output
// joined by spaces (already-tokenised text is a fixed point); a vocabulary built from the tokens maps every
// token to an id in range, and the words list (one per line) passes check_words or gives a message.
#include <algorithm>
#include <vector>

#include "fuzz_common.h"
#include "text/tokenizer.h"
#include "text/vocab.h"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > fuzz::kMaxInput) return -1;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> tokens = tokenize(text);
  std::string joined;
  for (const auto& t : tokens) {
    fuzz::require(!t.empty() && t.find(' ') == std::string::npos);
    joined += (joined.empty() ? "" : " ") + t;
  }
  fuzz::require(tokenize(joined) == tokens);

  const Vocab v = Vocab::build({tokens}, 1, 0);
  for (int id : v.ids(tokens)) fuzz::require(id >= 0 && id < v.size() && id != Vocab::kPad);

  std::vector<std::string> words = {"<pad>", "<unk>"};
  size_t pos = 0;
  while (pos <= text.size() && words.size() < 4096) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    words.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  std::string error;
  if (!Vocab::check_words(words, &error)) fuzz::require(!error.empty());
  else fuzz::require(Vocab(words).size() == static_cast<int>(words.size()));
  return 0;
}
