#include "text/dataset.h"

#include <cstdint>

#include "text/tokenizer.h"

namespace attnlab {

namespace {

// One UTF-8 code point at s[i] (0 when the bytes there are not valid UTF-8); *len its byte count.
uint32_t tsv_decode_utf8(const std::string& s, size_t i, size_t* len) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  int n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return *len = 1, 0;
  uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
  for (int k = 1; k < n; ++k) {
    const unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d >> 6) != 0x2) return *len = 1, 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return *len = 1, 0;
  *len = static_cast<size_t>(n);
  return cp;
}

// Code points that print as nothing (or as a plain space) and so hide in a message.
bool tsv_invisible(uint32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0xA0) || cp == 0xAD || cp == 0x34F || cp == 0x61C ||
         cp == 0x115F || cp == 0x1160 || cp == 0x17B4 || cp == 0x17B5 || cp == 0x180E ||
         (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x206F) ||
         cp == 0x3000 || cp == 0x3164 || (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFEFF || cp == 0xFFA0 ||
         (cp >= 0xFFF0 && cp <= 0xFFFB) || (cp >= 0xE0000 && cp <= 0xE0FFF);
}

std::string tsv_hex(uint32_t v, int digits) {
  static const char* const kHex = "0123456789ABCDEF";
  std::string out(static_cast<size_t>(digits), '0');
  for (int k = digits - 1; k >= 0; --k, v >>= 4) out[static_cast<size_t>(k)] = kHex[v & 0xF];
  return out;
}

// Iterates the non-empty lines of a label<TAB>text file: a UTF-8 byte-order mark at the start is skipped, "\r\n"
// counts as "\n", the length limit and the label check apply. fn(label, text_begin, text_end, line_no) returns
// false to stop (with *error set).
template <class Fn>
bool tsv_for_each_line(const std::string& content, std::string* error, Fn fn) {
  size_t pos = content.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;  // a spreadsheet's byte-order mark
  int line_no = 0;
  while (pos < content.size()) {
    size_t end = content.find('\n', pos);
    if (end == std::string::npos) end = content.size();
    ++line_no;
    if (end - pos > kMaxTsvLineBytes) {
      *error = "line " + std::to_string(line_no) + " is " + std::to_string(end - pos) +
               " bytes long, more than the limit of " + std::to_string(kMaxTsvLineBytes) + " bytes";
      return false;
    }
    const size_t begin = pos;
    size_t stop = end;
    pos = end + 1;
    if (stop > begin && content[stop - 1] == '\r') --stop;
    if (stop == begin) continue;
    const size_t tab = content.find('\t', begin);
    if (tab == std::string::npos || tab >= stop) {
      *error = "line " + std::to_string(line_no) + ": no tab between label and text";
      return false;
    }
    const std::string label = content.substr(begin, tab - begin);
    bool digits = !label.empty() && label.size() < 6;
    for (char ch : label) digits = digits && ch >= '0' && ch <= '9';
    if (!digits) {
      *error = "line " + std::to_string(line_no) + ": label '" + escape_invisible(label, 40) +
               "' is not a non-negative integer";
      return false;
    }
    if (!fn(std::stoi(label), tab + 1, stop, line_no)) return false;
  }
  return true;
}

}  // namespace

std::string escape_invisible(const std::string& s, size_t max_chars) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < s.size(); ++chars) {
    if (chars >= max_chars) {
      out += "…";
      break;
    }
    size_t len = 1;
    const uint32_t cp = tsv_decode_utf8(s, i, &len);
    if (cp == 0 && s[i] != '\0') out += "\\x" + tsv_hex(static_cast<unsigned char>(s[i]), 2);  // not UTF-8
    else if (cp == '\t') out += "\\t";
    else if (cp == '\r') out += "\\r";
    else if (cp == '\n') out += "\\n";
    else if (tsv_invisible(cp)) out += "<U+" + tsv_hex(cp, cp > 0xFFFF ? 5 : 4) + ">";
    else out.append(s, i, len);
    i += len;
  }
  return out;
}

bool parse_raw_labeled_tsv(const std::string& content, std::vector<RawTextExample>* out, std::string* error) {
  return tsv_for_each_line(content, error, [&](int label, size_t a, size_t b, int line_no) {
    out->push_back({label, content.substr(a, b - a), line_no});
    return true;
  });
}

bool parse_labeled_tsv(const std::string& content, std::vector<TextExample>* out, std::string* error,
                       int max_tokens) {
  // Line by line: the raw texts are never all held next to their tokens.
  return tsv_for_each_line(content, error, [&](int label, size_t a, size_t b, int line_no) {
    TextExample ex;
    ex.label = label;
    ex.tokens = tokenize(content.substr(a, b - a));
    if (max_tokens > 0 && ex.tokens.size() > static_cast<size_t>(max_tokens)) ex.tokens.resize(max_tokens);
    if (ex.tokens.size() > static_cast<size_t>(kMaxExampleTokens)) {
      *error = "line " + std::to_string(line_no) + " has " + std::to_string(ex.tokens.size()) +
               " tokens, more than the limit of " + std::to_string(kMaxExampleTokens) +
               " (cut the texts: a model's max_tokens, train-text --max-tokens)";
      return false;
    }
    ex.tokens.shrink_to_fit();
    out->push_back(std::move(ex));
    return true;
  });
}

}  // namespace attnlab
