// The Unicode facts the subword tokenizers need (core/text/hf_tokenizer.cpp, core/text/llama2c_tokenizer.cpp):
// UTF-8 decoding with replacement, the general category of a code point, White_Space, canonical decomposition
// (NFD of one character) and the full lower-case mapping. Tables are generated from Python's unicodedata by
// scripts/gen_tokenizer_unicode.py (core/text/tokenizer_unicode.inc); nothing here allocates beyond the
// vectors it is given, nothing throws.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::unicode {

// General categories, in the generator's order.
enum Category : uint8_t {
  kLu, kLl, kLt, kLm, kLo, kMn, kMc, kMe, kNd, kNl, kNo, kPc, kPd, kPs, kPe, kPi, kPf,
  kPo, kSm, kSc, kSk, kSo, kZs, kZl, kZp, kCc, kCf, kCs, kCo, kCn
};

Category category(uint32_t cp);
inline bool is_letter(uint32_t cp) { return category(cp) <= kLo; }
inline bool is_number(uint32_t cp) { const Category c = category(cp); return c >= kNd && c <= kNo; }
inline bool is_punctuation(uint32_t cp) { const Category c = category(cp); return c >= kPc && c <= kPo; }
inline bool is_mark_nonspacing(uint32_t cp) { return category(cp) == kMn; }
inline bool is_other(uint32_t cp) { return category(cp) >= kCc; }  // Cc Cf Cs Co Cn
// The White_Space property (what Rust's char::is_whitespace and Oniguruma's \s test).
bool is_white_space(uint32_t cp);

// One decoded code point: its value and the bytes [begin, end) of the input it came from.
struct CodePoint {
  uint32_t cp;
  int begin;
  int end;
};

// Decodes UTF-8. Each byte that does not start a well-formed sequence (overlong forms, surrogates, values
// above U+10FFFF, truncated sequences, stray continuation bytes) becomes one U+FFFD covering that byte.
std::vector<CodePoint> decode_utf8(const std::string& s);
void append_utf8(uint32_t cp, std::string* out);

// Appends the full canonical decomposition of cp (cp itself when it has none).
void append_nfd(uint32_t cp, std::vector<uint32_t>* out);
// Appends the full lower-case mapping of cp (cp itself when it has none).
void append_lower(uint32_t cp, std::vector<uint32_t>* out);

}  // namespace attnlab::unicode
