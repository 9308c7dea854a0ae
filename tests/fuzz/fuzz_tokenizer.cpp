// libFuzzer target: core/text tokenizer + vocabulary on any bytes. Checks: no crash / UB; tokens are
// non-empty and space-free; a vocabulary built from the tokens maps every token to an id in range, and the
// words list (one per line) passes check_words or gives a message.
// Not checked: that the tokenizer is a fixed point on its own output. Its contract promises that only for
// SST lines, and the fuzzer found (in seconds) that it is not in general: "$9.n't" → "9." "n't", and
// "9." → "9" "." (tests/fixtures/reliability/fuzz/tokenizer/not-idempotent-9n-t, docs/RELIABILITY.md).
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
  for (const auto& t : tokens) fuzz::require(!t.empty() && t.find(' ') == std::string::npos);

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
