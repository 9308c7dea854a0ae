// Sentence splitter for documents (HAN input). Works on raw text, then tokenises each sentence with
// core/text/tokenizer (so a sentence's tokens are exactly tokenize(sentence text)). Rules, in order:
//  1. Markup: `<br>`, `<br/>`, `<br />`, `<p>`, `</p>`, `<hr>`, `<div>` (any case, spaces inside the tag
//     allowed) are hard breaks; the inline tags `<i> <b> <em> <strong> <u> <span>` and their closers become a
//     space. Any other `<...>` is kept as text (20news has `<user@host>` addresses, IMDB a `<grin>`).
//  2. Lines: "\r\n" and "\r" count as "\n"; an empty (or blank) line is a hard break; a single newline is
//     a space (wrapped mail lines in 20news).
//  3. A boundary follows a run of terminators `.` `!` `?` `…` (e.g. "?!", "..."), then any closing quotes
//     or brackets (`"` `'` `)` `]` `’` `”` `»`), when whitespace (or the end) follows and the next letter
//     after optional opening quotes / brackets is not a lower-case ASCII letter. So `Great!" he said.` and
//     `I thought... well, no` stay one sentence, `"It is bad." Then` splits after the quote. Without
//     whitespace, only the run-together case splits: a lower-case letter before the terminators and an
//     upper-case letter starting a word after them (IMDB's "new love.The acting", "etc...Michael"), never
//     "9.50", "imdb.com", "E.Green", "Azar.FBI" (SentenceSplitOptions::run_together; off = no split without
//     whitespace, the behaviour the first HAN models were trained with). A sentence that starts in lower case
//     ("fine. i saw it") splits only with SentenceSplitOptions::lower_case_starts (a model's recorded rule: the
//     shipped HAN models were trained without it, so they keep it off; split_document then adds a note saying how
//     many lower-case starts it read as one sentence). With it, a lower-case letter after an ellipsis ("..", "...",
//     "…") or after closing quotes / brackets still continues the sentence (`"great!" he said`, `is... well`).
//  4. A single `.` does not end a sentence after an abbreviation: a known title or short form (mr, mrs, ms,
//     dr, prof, st, jr, sr, vs, no, mt, ft, lt, gen, col, sgt, capt, gov, sen, rep, jan … dec, approx, dept,
//     fig, vol), a single letter (initials: "J. R. R. Tolkien") or a word with an inner period
//     ("U.S.", "e.g.", "a.k.a."). With lower_case_starts, before a lower-case letter: also al, cf, viz, ie, eg
//     ("et al. found"), but not "no" ("i said no. it was bad") nor a lower-case single letter ("plan b. it
//     failed"). Numbers and URLs ("9.50", "imdb.com") have no space after the period, so they never split.
//  5. A sentence whose tokens are all punctuation (a stray "..." or ")") joins the previous sentence;
//     sentences without tokens are dropped.
// Stated cuts (SentenceSplitOptions, recorded in SplitDocument::notes):
//  - a sentence longer than max_sentence_tokens (e.g. a review with no boundary at all) is cut into
//    consecutive pieces of max_sentence_tokens tokens;
//  - only the first max_sentences sentences are kept (10,000-sentence inputs), and at most max_tokens
//    tokens in all (0 = no limit); truncated says so.
// Pure functions, no exceptions, any byte sequence is accepted.
#pragma once
#include <string>
#include <vector>

namespace attnlab {

struct SentenceSplitOptions {
  int max_sentences = 100;        // keep the first N sentences (>= 1)
  int max_sentence_tokens = 100;  // longer sentences are cut into pieces of this many tokens (>= 1)
  int max_tokens = 0;             // total tokens kept (0 = no limit)
  bool run_together = true;       // rule 3's "love.The" case
  bool lower_case_starts = false;  // rule 3 for a lower-case next letter ("i loved it. it was great!")
};

struct SplitDocument {
  std::vector<std::vector<std::string>> sentences;  // every sentence has >= 1 token
  int num_sentences_total = 0;  // after rules 1-5 and piece cutting, before the max_sentences / max_tokens cut
  int num_tokens_total = 0;     // tokens of the whole text
  bool truncated = false;       // sentences or tokens were cut off
  std::vector<std::string> notes;  // human-readable statements of every cut applied
};

// Rules 1-4: the raw sentence strings (trimmed, non-empty), in order.
std::vector<std::string> split_sentence_texts(const std::string& text, bool run_together = true,
                                              bool lower_case_starts = false);

// Rules 1-5 and the cuts: tokenised sentences.
SplitDocument split_document(const std::string& text, const SentenceSplitOptions& options = {});

// The same cuts applied to already-tokenised sentences (e.g. from a stored document).
SplitDocument cut_sentences(std::vector<std::vector<std::string>> sentences, const SentenceSplitOptions& options);

}  // namespace attnlab
