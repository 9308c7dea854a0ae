// Unicode lookups for the subword tokenizers (see tokenizer_unicode.h).
#include "text/tokenizer_unicode.h"

#include <algorithm>
#include <cstddef>

namespace attnlab::unicode {
namespace {

struct TokUniMap {
  uint32_t cp;
  uint32_t offset;
  uint32_t length;
};

#include "text/tokenizer_unicode.inc"

template <size_t N>
const TokUniMap* tok_uni_find(const TokUniMap (&table)[N], uint32_t cp) {
  const TokUniMap* it =
      std::lower_bound(table, table + N, cp, [](const TokUniMap& m, uint32_t v) { return m.cp < v; });
  return (it != table + N && it->cp == cp) ? it : nullptr;
}

// Hangul syllable decomposition by rule (Unicode §3.12).
constexpr uint32_t kTokUniSBase = 0xAC00, kTokUniLBase = 0x1100, kTokUniVBase = 0x1161, kTokUniTBase = 0x11A7;
constexpr uint32_t kTokUniVCount = 21, kTokUniTCount = 28, kTokUniSCount = 11172;

}  // namespace

Category category(uint32_t cp) {
  if (cp > 0x10FFFF) return kCn;
  const uint32_t key = (cp << 5) | 31u;
  const uint32_t* end = kTokUniCategoryRuns + sizeof(kTokUniCategoryRuns) / sizeof(kTokUniCategoryRuns[0]);
  const uint32_t* it = std::upper_bound(kTokUniCategoryRuns, end, key);  // first run starting after cp
  if (it == kTokUniCategoryRuns) return kCn;
  return static_cast<Category>(*(it - 1) & 31u);
}

bool is_white_space(uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
         cp == 0x3000;
}

std::vector<CodePoint> decode_utf8(const std::string& s) {
  std::vector<CodePoint> out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      out.push_back({c, static_cast<int>(i), static_cast<int>(i + 1)});
      ++i;
      continue;
    }
    int len = 0;
    unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    uint32_t cp = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    }
    bool ok = len > 0 && i + len <= n && p[i + 1] >= lo && p[i + 1] <= hi;
    for (int k = 2; ok && k < len; ++k) ok = p[i + k] >= 0x80 && p[i + k] <= 0xBF;
    if (!ok) {
      out.push_back({0xFFFD, static_cast<int>(i), static_cast<int>(i + 1)});
      ++i;
      continue;
    }
    for (int k = 1; k < len; ++k) cp = (cp << 6) | (p[i + k] & 0x3F);
    out.push_back({cp, static_cast<int>(i), static_cast<int>(i + len)});
    i += len;
  }
  return out;
}

void append_utf8(uint32_t cp, std::string* out) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

void append_nfd(uint32_t cp, std::vector<uint32_t>* out) {
  if (cp >= kTokUniSBase && cp < kTokUniSBase + kTokUniSCount) {
    const uint32_t s = cp - kTokUniSBase;
    out->push_back(kTokUniLBase + s / (kTokUniVCount * kTokUniTCount));
    out->push_back(kTokUniVBase + (s % (kTokUniVCount * kTokUniTCount)) / kTokUniTCount);
    if (s % kTokUniTCount != 0) out->push_back(kTokUniTBase + s % kTokUniTCount);
    return;
  }
  if (const TokUniMap* m = tok_uni_find(kTokUniDecomp, cp)) {
    out->insert(out->end(), kTokUniDecompPool + m->offset, kTokUniDecompPool + m->offset + m->length);
    return;
  }
  out->push_back(cp);
}

void append_lower(uint32_t cp, std::vector<uint32_t>* out) {
  if (cp < 0x80) {
    out->push_back(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp);
    return;
  }
  if (const TokUniMap* m = tok_uni_find(kTokUniLower, cp)) {
    out->insert(out->end(), kTokUniLowerPool + m->offset, kTokUniLowerPool + m->offset + m->length);
    return;
  }
  out->push_back(cp);
}

}  // namespace attnlab::unicode
