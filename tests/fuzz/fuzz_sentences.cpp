// libFuzzer target: the document sentence splitter (core/text/sentence_splitter.h) on any bytes, with the first
// byte choosing the options (run_together, small caps on sentences and tokens; lower_case_starts from the length's
// parity, so every existing corpus entry keeps its meaning). Checks: no crash / UB / leak;
// every sentence has at least one token; the cuts hold (sentences ≤ max_sentences, each ≤ max_sentence_tokens
// tokens, all ≤ max_tokens when set); truncated ⇔ something was cut; every raw sentence text is non-empty.
#include "fuzz_common.h"
#include "text/sentence_splitter.h"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > fuzz::kMaxInput || size == 0) return -1;
  const uint8_t mode = data[0];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  SentenceSplitOptions o;
  o.run_together = mode & 1;
  o.max_sentences = 1 + ((mode >> 1) & 7);
  o.max_sentence_tokens = 1 + ((mode >> 4) & 7) * 3;
  o.max_tokens = (mode & 0x80) ? 20 : 0;
  o.lower_case_starts = size % 2 == 1;
  const SplitDocument d = split_document(text, o);
  fuzz::require(static_cast<int>(d.sentences.size()) <= o.max_sentences);
  int total = 0;
  for (const auto& s : d.sentences) {
    fuzz::require(!s.empty() && static_cast<int>(s.size()) <= o.max_sentence_tokens);
    total += static_cast<int>(s.size());
  }
  if (o.max_tokens > 0) fuzz::require(total <= o.max_tokens);
  if (!d.truncated) fuzz::require(static_cast<int>(d.sentences.size()) == d.num_sentences_total);
  for (const auto& s : split_sentence_texts(text, o.run_together, o.lower_case_starts)) fuzz::require(!s.empty());
  // The lower-case rule only adds boundaries: it never reads fewer sentences than the capital-letter rule.
  fuzz::require(split_sentence_texts(text, o.run_together, true).size() >= split_sentence_texts(text, o.run_together, false).size());
  return 0;
}
