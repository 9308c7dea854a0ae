// Tokenizer matching the SST-2 files (see tokenizer.h). Two passes:
//  1. clean(): decode UTF-8 (each invalid sequence -> U+FFFD), lower-case ASCII, turn ASCII whitespace,
//     control characters and Unicode separators into ' ', map typographic quotes / dashes / ellipsis to
//     their ASCII forms (’ -> ', “ ” -> ", — – -> --, … -> ...). No-break spaces (U+00A0, U+2007, U+202F)
//     stay inside tokens: the SST files contain words like "8\u00a01\/2".
//  2. scan(): split on spaces; inside a space-free run apply PTB rules: ( ) [ ] { } -> -lrb- -rrb- -lsb-
//     -rsb- -lcb- -rcb-, " -> `` or '', / -> \/, * -> \*, clitics ('s 're 've 'll 'd 'm n't) split off,
//     punctuation split except inside words (e.t., 9.50, 2,500, well-made, s&m, o'fallon, and\/or) and the
//     period of known abbreviations (mr., u.s., j.). Non-ASCII bytes count as word characters, so non-ASCII
//     text (emoji, CJK, accented words) is split only on whitespace.
// Already-tokenised SST lines are fixed points: tokenize(line) == line split on ' '.
// No exceptions, no state; any byte sequence is accepted.
#include "text/tokenizer.h"

#include <cstdint>
#include <cstring>

namespace attnlab {
namespace {

void append_utf8(uint32_t cp, std::string* out) {
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

constexpr uint32_t kReplacement = 0xFFFD;

// Unicode separators treated as whitespace. No-break spaces are deliberately absent (kept in tokens).
bool is_unicode_space(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) ||  // C1 controls, NEL
         cp == 0x1680 || (cp >= 0x2000 && cp <= 0x2006) || (cp >= 0x2008 && cp <= 0x200B) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

// Pass 1 (see the file comment).
std::string clean(const std::string& in) {
  std::string out;
  out.reserve(in.size() + 8);
  const auto* s = reinterpret_cast<const unsigned char*>(in.data());
  const size_t n = in.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      if (c <= 0x20 || c == 0x7F) {
        out.push_back(' ');
      } else if (c >= 'A' && c <= 'Z') {
        out.push_back(static_cast<char>(c - 'A' + 'a'));
      } else {
        out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    // Multi-byte sequence: validate per Unicode Table 3-7 (no overlongs, no surrogates, <= U+10FFFF).
    // An invalid sequence is replaced by one U+FFFD per maximal invalid subpart.
    int len = 0;
    uint32_t cp = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
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
    if (len == 0) {  // stray continuation byte or invalid lead byte
      append_utf8(kReplacement, &out);
      ++i;
      continue;
    }
    size_t j = i + 1;
    bool ok = true;
    for (int k = 1; k < len; ++k, ++j) {
      const unsigned char lo_k = (k == 1) ? lo : 0x80;
      const unsigned char hi_k = (k == 1) ? hi : 0xBF;
      if (j >= n || s[j] < lo_k || s[j] > hi_k) {
        ok = false;
        break;
      }
      cp = (cp << 6) | (s[j] & 0x3F);
    }
    if (!ok) {
      append_utf8(kReplacement, &out);
      i = j;  // resume at the offending byte
      continue;
    }
    i = j;
    if (is_unicode_space(cp)) {
      out.push_back(' ');
    } else if (cp == 0x2018 || cp == 0x2019 || cp == 0x201B || cp == 0x2032) {
      out.push_back('\'');
    } else if (cp == 0x201C || cp == 0x201D || cp == 0x201E || cp == 0x201F || cp == 0x2033) {
      out.push_back('"');
    } else if (cp == 0x2013 || cp == 0x2014) {
      out += "--";
    } else if (cp == 0x2026) {
      out += "...";
    } else {
      append_utf8(cp, &out);
    }
  }
  return out;
}

bool is_space(char c) { return c == ' '; }  // clean() has turned all whitespace into ' '
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower_letter(char c) { return c >= 'a' && c <= 'z'; }
// Word characters: ASCII letters and digits, and every byte of a non-ASCII character.
bool is_word(char c) { return is_lower_letter(c) || is_digit(c) || static_cast<unsigned char>(c) >= 0x80; }

// Abbreviations that keep their final period ("mr." stays one token, "end." becomes "end" ".").
const char* const kAbbreviations[] = {
    "mr",   "mrs",  "ms",  "dr",   "jr",   "sr",  "st",   "vs",  "etc",  "inc", "bros", "prof",
    "ltd",  "corp", "co",  "al",   "pa",   "wash", "sept", "jan", "feb",  "aug", "oct",  "nov",
    "dec",  "gov",  "sen", "rep",  "gen",  "col", "lt",   "sgt", "capt", "mt",  "ft",   "vol",
};
// Abbreviations that are also ordinary words: their period is split off at the very end of the text
// ("i said no." -> no .), kept otherwise ("no. 1", SST's "no. .").
const char* const kWeakAbbreviations[] = {"no", "co", "pa", "wash", "sept", "dec", "col", "gen"};

template <size_t N>
bool in_list(const std::string& w, const char* const (&list)[N]) {
  for (const char* a : list) {
    if (w == a) return true;
  }
  return false;
}

class Scanner {
 public:
  explicit Scanner(std::string s) : s_(std::move(s)), n_(s_.size()) {}

  std::vector<std::string> run() {
    size_t i = 0;
    while (i < n_) {
      if (is_space(s_[i])) {
        ++i;
      } else if (is_word(s_[i])) {
        i = scan_word(i);
      } else {
        i = scan_punct(i);
      }
    }
    return std::move(out_);
  }

 private:
  char at(size_t i) const { return i < n_ ? s_[i] : ' '; }
  bool word_at(size_t i) const { return i < n_ && is_word(s_[i]); }
  // A clitic or "n't" ends at i: nothing word-like follows.
  bool boundary(size_t i) const { return i >= n_ || !is_word(s_[i]); }
  bool starts_with(size_t i, const char* lit) const {
    const size_t len = std::strlen(lit);
    return i + len <= n_ && s_.compare(i, len, lit) == 0;
  }
  bool opening_context(size_t i) const {  // position i follows whitespace / an opening bracket / start
    if (i == 0) return true;
    const char p = s_[i - 1];
    return is_space(p) || p == '(' || p == '[' || p == '{' || p == '`' || p == '-';
  }
  size_t next_nonspace(size_t i) const {
    while (i < n_ && is_space(s_[i])) ++i;
    return i;
  }

  void emit(std::string t) {
    if (t == "cannot") {  // PTB splits "cannot" (the SST files have no "cannot" token)
      out_.emplace_back("can");
      out_.emplace_back("not");
      return;
    }
    if (!t.empty()) out_.push_back(std::move(t));
  }

  // Scans a word starting at a word character; returns the position after it.
  size_t scan_word(size_t i) {
    std::string w;
    while (i < n_) {
      const char c = s_[i];
      if (is_word(c)) {
        w.push_back(c);
        ++i;
        continue;
      }
      if (c == '\'') {
        // "n't": did|n't, ca|n't, wo|n't; a bare "n't" stays whole.
        if (!w.empty() && w.back() == 'n' && at(i + 1) == 't' && boundary(i + 2)) {
          w.pop_back();
          emit(std::move(w));
          emit("n't");
          return i + 2;
        }
        for (const char* cl : {"s", "re", "ve", "ll", "d", "m"}) {
          const size_t len = std::strlen(cl);
          if (starts_with(i + 1, cl) && boundary(i + 1 + len)) {
            emit(std::move(w));
            emit(std::string("'") + cl);
            return i + 1 + len;
          }
        }
        if (word_at(i + 1)) {  // o'fallon, hors-d'oeuvre
          w.push_back(c);
          ++i;
          continue;
        }
        if (w == "ol") {  // SST keeps "ol'"
          w.push_back(c);
          ++i;
        }
        break;
      }
      if ((c == '-' || c == '.' || c == '&') && word_at(i + 1)) {
        w.push_back(c);
        ++i;
        continue;
      }
      if (c == '/' && word_at(i + 1)) {
        w += "\\/";
        ++i;
        continue;
      }
      if (c == '\\' && at(i + 1) == '/' && word_at(i + 2)) {
        w += "\\/";
        i += 2;
        continue;
      }
      if ((c == ',' || c == ':') && is_digit(w.back()) && is_digit(at(i + 1))) {  // 2,500  10:30
        w.push_back(c);
        ++i;
        continue;
      }
      break;
    }
    // Final period of an abbreviation: one '.' not followed by a word character or another '.'.
    if (at(i) == '.' && at(i + 1) != '.' && !word_at(i + 1)) {
      bool keep = false;
      if (w.find('.') != std::string::npos) {
        keep = true;  // e.t.  u.s.  c.h.o.
      } else if (w.size() == 1 && is_lower_letter(w[0]) && w[0] != 'i') {
        keep = true;  // j.  a. (initials; "i." is the pronoun at a sentence end)
      } else if (in_list(w, kWeakAbbreviations)) {
        keep = next_nonspace(i + 1) < n_;
      } else if (in_list(w, kAbbreviations)) {
        keep = true;
      }
      if (keep) {
        w.push_back('.');
        ++i;
      }
    }
    // Trailing hyphen before whitespace / end ("anti- castro").
    if (at(i) == '-' && i + 1 < n_ && is_space(s_[i + 1]) && !w.empty() && is_word(w.back())) {
      w.push_back('-');
      ++i;
    } else if (at(i) == '-' && i + 1 == n_ && !w.empty() && is_word(w.back())) {
      w.push_back('-');
      ++i;
    }
    emit(std::move(w));
    return i;
  }

  // Scans punctuation starting at a non-word, non-space character.
  size_t scan_punct(size_t i) {
    const char c = s_[i];
    switch (c) {
      case '(':
        emit("-lrb-");
        return i + 1;
      case ')':
        emit("-rrb-");
        return i + 1;
      case '[':
        emit("-lsb-");
        return i + 1;
      case ']':
        emit("-rsb-");
        return i + 1;
      case '{':
        emit("-lcb-");
        return i + 1;
      case '}':
        emit("-rcb-");
        return i + 1;
      case '-': {
        for (const char* lit : {"-lrb-", "-rrb-", "-lsb-", "-rsb-", "-lcb-", "-rcb-"}) {
          if (starts_with(i, lit) && boundary(i + 5)) {
            emit(lit);
            return i + 5;
          }
        }
        size_t j = i;
        while (j < n_ && s_[j] == '-') ++j;
        emit(s_.substr(i, j - i));  // "-", "--", "---"
        return j;
      }
      case '.':
      case '?':
      case '!': {
        // runs: "...", "?!?", "!?"; a run of dots stays separate from ?/! runs
        size_t j = i;
        if (c == '.') {
          while (j < n_ && s_[j] == '.') ++j;
        } else {
          while (j < n_ && (s_[j] == '?' || s_[j] == '!')) ++j;
        }
        emit(s_.substr(i, j - i));
        return j;
      }
      case '`': {
        if (at(i + 1) == '`') {
          emit("``");
          return i + 2;
        }
        emit("`");
        return i + 1;
      }
      case '"': {
        const bool open_ctx = opening_context(i);
        const char nx = at(i + 1);
        const bool close_ctx = is_space(nx) || nx == '.' || nx == ',' || nx == ';' || nx == ':' ||
                               nx == '?' || nx == '!' || nx == ')' || nx == ']' || nx == '}';
        bool opening;
        if (open_ctx && !close_ctx) {
          opening = true;
        } else if (close_ctx && !open_ctx) {
          opening = false;
        } else {
          opening = !dq_open_;
        }
        dq_open_ = opening;
        emit(opening ? "``" : "''");
        return i + 1;
      }
      case '\'': {
        if (at(i + 1) == '\'') {
          emit("''");
          return i + 2;
        }
        // Leading clitics / elisions kept whole: 's 're 'em 'til 'n' '70s '53 ...
        for (const char* cl : {"'n'", "'s", "'re", "'ve", "'ll", "'d", "'m", "'em", "'til", "'tis", "'twas",
                               "'cause", "'n"}) {
          const size_t len = std::strlen(cl);
          if (starts_with(i, cl) && boundary(i + len)) {
            emit(cl);
            return i + len;
          }
        }
        if (is_digit(at(i + 1))) {  // '70s  '53
          size_t j = i + 1;
          while (j < n_ && is_digit(s_[j])) ++j;
          if (at(j) == 's') ++j;
          if (boundary(j)) {
            emit(s_.substr(i, j - i));
            return j;
          }
        }
        if (word_at(i + 1) && opening_context(i)) {  // opening single quote: 'great' -> ` great '
          emit("`");
          return i + 1;
        }
        emit("'");
        return i + 1;
      }
      case '/':
        emit("\\/");
        return i + 1;
      case '*':
      case '\\': {
        if (c == '\\' && at(i + 1) == '/') {
          emit("\\/");
          return i + 2;
        }
        if (c == '\\' && at(i + 1) != '*') {
          emit("\\");
          return i + 1;
        }
        // run of stars, escaped or not: *** -> \*\*\*
        std::string t;
        size_t j = i;
        while (j < n_) {
          if (s_[j] == '*') {
            ++j;
          } else if (s_[j] == '\\' && at(j + 1) == '*') {
            j += 2;
          } else {
            break;
          }
          t += "\\*";
        }
        emit(std::move(t));
        return j;
      }
      default:
        emit(std::string(1, c));  // , ; : $ # % & + = < > @ ^ _ | ~
        return i + 1;
    }
  }

  std::string s_;
  size_t n_;
  bool dq_open_ = false;
  std::vector<std::string> out_;
};

}  // namespace

std::vector<std::string> tokenize(const std::string& text) { return Scanner(clean(text)).run(); }

}  // namespace attnlab
