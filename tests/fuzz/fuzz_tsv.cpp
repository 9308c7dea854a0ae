// libFuzzer target: core/text/dataset parse_labeled_tsv on any bytes (the first byte picks the max_tokens
// cut: 0 = none, else 1..255). Checks: no crash / UB; failure gives a "line N: ..." style message; every
// example has a label >= 0 and at most min(cut, kMaxExampleTokens) tokens.
// The same bytes as a positions file (train/explanation_penalties parse_position_lists, --impermissible-positions;
// the first byte is the expected line count): it fails with a message or gives that many lines of positions in
// 0..kMaxExampleTokens − 1, and marked_flags of each over a first-byte length keeps only positions inside it.
#include "fuzz_common.h"
#include "text/dataset.h"
#include "train/explanation_penalties.h"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > fuzz::kMaxInput) return -1;
  const int cut = data[0];
  const std::string content(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<std::vector<int>> lists;
  std::string error;
  if (!parse_position_lists(content, static_cast<size_t>(cut), &lists, &error)) {
    fuzz::require(!error.empty());
  } else {
    fuzz::require(lists.size() == static_cast<size_t>(cut));
    for (const auto& l : lists) {
      for (int t : l) fuzz::require(t >= 0 && t < kMaxExampleTokens);
      int kept = -1;
      const std::vector<char> flags = marked_flags(l, static_cast<size_t>(cut), &kept);
      fuzz::require(flags.size() == static_cast<size_t>(cut) && kept >= 0 && kept <= cut);
    }
  }
  std::vector<TextExample> out;
  error.clear();
  if (!parse_labeled_tsv(content, &out, &error, cut)) {
    fuzz::require(error.rfind("line ", 0) == 0);
    return 0;
  }
  for (const auto& ex : out) {
    fuzz::require(ex.label >= 0);
    fuzz::require(ex.tokens.size() <= static_cast<size_t>(cut > 0 ? cut : kMaxExampleTokens));
  }
  return 0;
}
