// libFuzzer target: the subword tokenizer readers (core/text/subword_tokenizer.h) on any bytes — a Hugging Face
// tokenizer.json (WordPiece, byte-level BPE) or, when the bytes are not a JSON object, a llama2.c tok*.bin — then,
// when the file loads, encode and decode of fixed texts (mixed scripts, contractions, digits, whitespace runs,
// added-token look-alikes, invalid UTF-8). Checks: no crash / UB; a refused file has a message; every
// Tokenization has equal-length vectors, ids inside the vocabulary, offsets 0 <= begin <= end <= text size,
// special in {0, 1}; decode and id_to_token of every id and of ids outside the vocabulary return.
// Seeds: tests/fuzz/corpus/hf_tokenizer/ (trimmed bert / roberta tokenizer.json, stories260K's tok512.bin),
// written by tests/fuzz/make_hf_tokenizer_seeds.py.
#include <string>
#include <vector>

#include "fuzz_common.h"
#include "text/subword_tokenizer.h"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > fuzz::kMaxInput) return -1;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  std::string error;
  const std::unique_ptr<SubwordTokenizer> tok = load_tokenizer(bytes, &error);
  if (!tok) {
    fuzz::require(!error.empty());
    return 0;
  }
  static const std::string kTexts[] = {
      "Hello, y'all! How're you? Caf\xC3\xA9 na\xC3\xAFve \xE6\x88\x91\xE6\x83\xB3 3333 \xF0\x9F\xA6\x99.cpp",
      "  \t\n  x  [CLS] <s> </s> [UNK] ##ing \xC4\xA0the\xE2\x80\x8D",
      std::string("bad \xFF\xC3 utf8 \xED\xA0\x80 \0 nul", 22),
      "",
  };
  const int vocab = tok->vocab_size();
  fuzz::require(vocab > 0);
  // The neutral token (integrated gradients' baseline on a user's transformer): none, or an id of the vocabulary.
  const int neutral = neutral_token(*tok);
  fuzz::require(neutral >= -1 && neutral < vocab);
  for (const std::string& text : kTexts) {
    for (bool special : {false, true}) {
      Tokenization t;
      if (!tok->encode(text, special, &t, &error)) {
        fuzz::require(!error.empty());
        continue;
      }
      const size_t n = t.ids.size();
      fuzz::require(t.tokens.size() == n && t.offsets.size() == n && t.special.size() == n);
      for (size_t i = 0; i < n; ++i) {
        fuzz::require(t.ids[i] >= 0 && t.ids[i] < vocab);
        fuzz::require(0 <= t.offsets[i].first && t.offsets[i].first <= t.offsets[i].second &&
                      t.offsets[i].second <= static_cast<int>(text.size()));
        fuzz::require(t.special[i] == 0 || t.special[i] == 1);
        (void)tok->id_to_token(t.ids[i]);
      }
      (void)tok->decode(t.ids);
    }
  }
  (void)tok->decode({-1, vocab, vocab + 1000, 0, 1, 2});
  (void)tok->id_to_token(-5);
  (void)tok->token_to_id("");
  return 0;
}
