// Sentence splitter (rules in sentence_splitter.h).
#include "text/sentence_splitter.h"

#include <algorithm>
#include <cstring>

#include "text/tokenizer.h"

namespace attnlab {
namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool is_space_char(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Rule 1: a known tag starting at text[i] == '<'. Returns its length (0: not a known tag) and sets *hard.
size_t known_tag(const std::string& s, size_t i, bool* hard) {
  size_t j = i + 1;
  const size_t n = s.size();
  while (j < n && s[j] == ' ') ++j;
  if (j < n && s[j] == '/') ++j;
  while (j < n && s[j] == ' ') ++j;
  std::string name;
  while (j < n && is_ascii_letter(s[j]) && name.size() < 8) name.push_back(lower(s[j++]));
  static const char* const kHard[] = {"br", "p", "hr", "div"};
  static const char* const kInline[] = {"i", "b", "em", "strong", "u", "span"};
  bool is_hard = false, is_inline = false;
  for (const char* t : kHard) is_hard = is_hard || name == t;
  for (const char* t : kInline) is_inline = is_inline || name == t;
  if (!is_hard && !is_inline) return 0;
  // Hard tags may carry attributes / a self-closing slash; inline ones only spaces.
  const size_t limit = std::min(n, j + 40);
  while (j < limit && s[j] != '>' && s[j] != '<' && (is_hard || s[j] == ' ' || s[j] == '/')) ++j;
  if (j >= n || s[j] != '>') return 0;
  *hard = is_hard;
  return j + 1 - i;
}

// Rules 1 and 2: the text cut at hard breaks into paragraphs, single newlines as spaces.
std::vector<std::string> paragraphs(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&]() {
    if (cur.find_first_not_of(" \t\n\r\f\v") != std::string::npos) out.push_back(cur);
    cur.clear();
  };
  const size_t n = text.size();
  for (size_t i = 0; i < n;) {
    const char c = text[i];
    if (c == '<') {
      bool hard = false;
      if (const size_t len = known_tag(text, i, &hard)) {
        if (hard) flush();
        else cur.push_back(' ');
        i += len;
        continue;
      }
    }
    if (c == '\n' || c == '\r') {  // a line end; a following blank line makes a hard break
      i += (c == '\r' && i + 1 < n && text[i + 1] == '\n') ? 2 : 1;
      size_t j = i;
      bool blank = false;
      while (j < n && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')) {
        if (text[j] == '\n' || text[j] == '\r') blank = true;
        ++j;
      }
      if (blank) {
        flush();
        i = j;
      } else {
        cur.push_back(' ');
      }
      continue;
    }
    cur.push_back(c);
    ++i;
  }
  flush();
  return out;
}

// word: the lower-cased letters (and inner periods) before the '.'; lower_next: a lower-case letter follows (only
// reached with the lower-case rule on).
bool is_abbreviation(const std::string& word, bool upper_initial, bool lower_next) {
  if (word.size() == 1) return upper_initial || !lower_next;  // initials ("J. R. R."), not "plan b. it was"
  if (word.find('.') != std::string::npos) return true;  // u.s, e.g, a.k.a
  if (lower_next) {  // "no. 5" is a number, but "i said no. it was" ends a sentence
    if (word == "no") return false;
    static const char* const kBeforeLower[] = {"al", "cf", "viz", "ie", "eg"};  // "et al. found", "cf. the"
    for (const char* a : kBeforeLower)
      if (word == a) return true;
  }
  static const char* const kList[] = {"mr",   "mrs",  "ms",  "dr",   "prof", "st",   "jr",  "sr",  "vs",
                                      "no",   "mt",   "ft",  "lt",   "gen",  "col",  "sgt", "capt", "gov",
                                      "sen",  "rep",  "jan", "feb",  "mar",  "apr",  "jun", "jul", "aug",
                                      "sep",  "sept", "oct", "nov",  "dec",  "approx", "dept", "fig", "vol"};
  for (const char* a : kList)
    if (word == a) return true;
  return false;
}

bool is_closer(const std::string& s, size_t i, size_t* len) {
  const char c = s[i];
  if (c == '"' || c == '\'' || c == ')' || c == ']') { *len = 1; return true; }
  // ’ (E2 80 99), ” (E2 80 9D), » (C2 BB)
  if (s.compare(i, 3, "\xE2\x80\x99") == 0 || s.compare(i, 3, "\xE2\x80\x9D") == 0) { *len = 3; return true; }
  if (s.compare(i, 2, "\xC2\xBB") == 0) { *len = 2; return true; }
  return false;
}

bool is_opener(const std::string& s, size_t i, size_t* len) {
  const char c = s[i];
  if (c == '"' || c == '\'' || c == '(' || c == '[') { *len = 1; return true; }
  // ‘ (E2 80 98), “ (E2 80 9C), « (C2 AB)
  if (s.compare(i, 3, "\xE2\x80\x98") == 0 || s.compare(i, 3, "\xE2\x80\x9C") == 0) { *len = 3; return true; }
  if (s.compare(i, 2, "\xC2\xAB") == 0) { *len = 2; return true; }
  return false;
}

// Rules 3 and 4 on one paragraph.
// *lower_kept (when given) counts the boundaries the lower-case rule would add but lower_case_starts = false skips.
void split_paragraph(const std::string& p, bool run_together, bool lower_case_starts, std::vector<std::string>* out,
                     int* lower_kept = nullptr) {
  const size_t n = p.size();
  size_t start = 0;
  auto emit = [&](size_t end) {
    size_t a = start, b = end;
    while (a < b && is_space_char(p[a])) ++a;
    while (b > a && is_space_char(p[b - 1])) --b;
    if (b > a) out->push_back(p.substr(a, b - a));
    start = end;
  };
  for (size_t i = 0; i < n;) {
    const bool ellipsis_char = p.compare(i, 3, "\xE2\x80\xA6") == 0;
    if (p[i] != '.' && p[i] != '!' && p[i] != '?' && !ellipsis_char) {
      ++i;
      continue;
    }
    const size_t run_start = i;
    int periods = 0;
    bool other = false, ellipsis = false;
    while (i < n) {
      if (p[i] == '.') { ++periods; ++i; }
      else if (p[i] == '!' || p[i] == '?') { other = true; ++i; }
      else if (p.compare(i, 3, "\xE2\x80\xA6") == 0) { other = ellipsis = true; i += 3; }
      else break;
    }
    ellipsis = ellipsis || periods >= 2;
    const size_t run_end = i;
    size_t len = 0;
    while (i < n && is_closer(p, i, &len)) i += len;
    if (i < n && !is_space_char(p[i])) {
      // No space after the terminator: a boundary only in the run-together case "love.The", "bore.A cosmic",
      // "etc...Michael" (a lower-case letter before, an upper-case letter after that starts a word); never
      // in "9.50", "imdb.com", "E.Green", "Azar.FBI".
      const bool lower_before = run_start > 0 && p[run_start - 1] >= 'a' && p[run_start - 1] <= 'z';
      const bool upper_after = p[i] >= 'A' && p[i] <= 'Z' &&
                               (i + 1 >= n || (p[i + 1] >= 'a' && p[i + 1] <= 'z') || p[i + 1] == '\'' || p[i + 1] == ' ');
      if (!run_together || !lower_before || !upper_after) continue;
    }
    size_t j = i;
    while (j < n && is_space_char(p[j])) ++j;
    if (j >= n) break;  // the paragraph's end is a boundary anyway
    size_t k = j;
    while (k < n && is_opener(p, k, &len)) k += len;
    // A lower-case start continues the sentence; with the lower-case rule it ends the sentence too ("i loved it. it
    // was great!"), except after an ellipsis ("is... well, himself") or a closing quote / bracket ("\"Great!\" he").
    const bool lower_next = k < n && p[k] >= 'a' && p[k] <= 'z';
    if (lower_next && (ellipsis || i > run_end)) continue;
    if (periods == 1 && !other) {
      size_t w = run_start;
      while (w > start && (is_ascii_letter(p[w - 1]) || (p[w - 1] == '.' && w - 1 > start && is_ascii_letter(p[w - 2])))) --w;
      std::string word;
      for (size_t q = w; q < run_start; ++q) word.push_back(lower(p[q]));
      const bool upper_initial = run_start - w == 1 && p[w] >= 'A' && p[w] <= 'Z';
      if (!word.empty() && (w == start || !is_ascii_letter(p[w - 1])) && is_abbreviation(word, upper_initial, lower_next))
        continue;
    }
    if (lower_next && !lower_case_starts) {  // the capital-letter rule: the sentence goes on
      if (lower_kept) ++*lower_kept;
      continue;
    }
    emit(i);
  }
  emit(n);
}

int piece_limit(const SentenceSplitOptions& o) { return std::max(1, o.max_sentence_tokens); }

bool all_punctuation(const std::vector<std::string>& tokens) {
  for (const std::string& t : tokens)
    for (char c : t)
      if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

std::vector<std::string> split_texts_counting(const std::string& text, bool run_together, bool lower_case_starts,
                                              int* lower_kept) {
  std::vector<std::string> out;
  for (const std::string& p : paragraphs(text)) split_paragraph(p, run_together, lower_case_starts, &out, lower_kept);
  return out;
}

}  // namespace

std::vector<std::string> split_sentence_texts(const std::string& text, bool run_together, bool lower_case_starts) {
  return split_texts_counting(text, run_together, lower_case_starts, nullptr);
}

SplitDocument cut_sentences(std::vector<std::vector<std::string>> sentences, const SentenceSplitOptions& o) {
  SplitDocument d;
  const int piece = std::max(1, o.max_sentence_tokens);
  const int max_sentences = std::max(1, o.max_sentences);
  std::vector<std::vector<std::string>> pieces;
  int cut_long = 0;
  for (auto& s : sentences) {
    if (s.empty()) continue;
    d.num_tokens_total += static_cast<int>(s.size());
    if (static_cast<int>(s.size()) <= piece) {
      pieces.push_back(std::move(s));
      continue;
    }
    ++cut_long;
    for (size_t a = 0; a < s.size(); a += piece)
      pieces.emplace_back(s.begin() + a, s.begin() + std::min(s.size(), a + piece));
  }
  if (cut_long > 0)
    d.notes.push_back(std::to_string(cut_long) + " sentence(s) longer than " + std::to_string(piece) +
                      " tokens were cut into pieces of " + std::to_string(piece) + " tokens");
  d.num_sentences_total = static_cast<int>(pieces.size());
  int kept_tokens = 0;
  for (auto& s : pieces) {
    if (static_cast<int>(d.sentences.size()) >= max_sentences) {
      d.truncated = true;
      break;
    }
    if (o.max_tokens > 0 && kept_tokens + static_cast<int>(s.size()) > o.max_tokens) {
      const int room = o.max_tokens - kept_tokens;
      if (room > 0) {
        s.resize(room);
        d.sentences.push_back(std::move(s));
        kept_tokens += room;
      }
      d.truncated = true;
      break;
    }
    kept_tokens += static_cast<int>(s.size());
    d.sentences.push_back(std::move(s));
  }
  if (d.truncated)
    d.notes.push_back("cut to the first " + std::to_string(d.sentences.size()) + " of " +
                      std::to_string(d.num_sentences_total) + " sentences (" + std::to_string(kept_tokens) + " of " +
                      std::to_string(d.num_tokens_total) + " tokens; limits: " + std::to_string(max_sentences) +
                      " sentences" + (o.max_tokens > 0 ? ", " + std::to_string(o.max_tokens) + " tokens" : "") + ")");
  return d;
}

SplitDocument split_document(const std::string& text, const SentenceSplitOptions& o) {
  std::vector<std::vector<std::string>> sentences;
  int lower_kept = 0;  // lower-case starts the capital-letter rule read as part of the sentence before
  const std::vector<std::string> texts = split_texts_counting(text, o.run_together, o.lower_case_starts, &lower_kept);
  for (const std::string& s : texts) {
    std::vector<std::string> tokens = tokenize(s);
    if (tokens.empty()) continue;
    if (all_punctuation(tokens) && !sentences.empty()) {  // rule 5
      sentences.back().insert(sentences.back().end(), tokens.begin(), tokens.end());
      continue;
    }
    sentences.push_back(std::move(tokens));
  }
  SplitDocument d = cut_sentences(std::move(sentences), o);
  if (texts.size() == 1 && d.num_tokens_total > piece_limit(o))  // a long text without any boundary
    d.notes.insert(d.notes.begin(), "no sentence boundary found");
  if (lower_kept > 0)  // say what the capital-letter rule did not split
    d.notes.push_back(std::to_string(lower_kept) + " sentence(s) starting in lower case (\"… it was. it is …\") " +
                      "read as part of the sentence before: this model splits only before a capital letter, the rule " +
                      "it was trained with (capitalise them, or use a model trained with --split-lower-case)");
  return d;
}

}  // namespace attnlab
