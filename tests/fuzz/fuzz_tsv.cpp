// libFuzzer target: core/text/dataset parse_labeled_tsv on any bytes (the first byte picks the max_tokens
// cut: 0 = none, else 1..255). Checks: no crash / UB; failure gives a "line N: ..." style message; every
// example has a label >= 0 and at most min(cut, kMaxExampleTokens) tokens.
#include "fuzz_common.h"
#include "text/dataset.h"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || size > fuzz::kMaxInput) return -1;
  const int cut = data[0];
  const std::string content(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<TextExample> out;
  std::string error;
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
