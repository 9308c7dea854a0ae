// Losses on the explanation itself, added per sequence to the class loss in text training (bilstm / mlp
// encoders, whose attention is one distribution over the tokens):
// - diversity (Mohankumar et al. 2020, the Diversity LSTM): + diversity * conicity of the sequence's encoder
//   states (nn/conicity.h); the reference code's default weight is 0.5.
// - deception (Pruthi et al. 2020): + deception * -log(1 - m), m = the attention mass on the impermissible
//   tokens (m held below 1 - 1e-6); the paper trains with 0.1 and 1. A token is impermissible by its word (a
//   vocabulary flag: a word list) or by its position in its example (TextBatch::marked: a list of positions per
//   training example, as Pruthi et al.'s block files mark the appended sentence of each example), or both.
#pragma once
#include <vector>

#include <string>

#include "model/text_model.h"
#include "text/vocab.h"

namespace attnlab {

struct ExplanationPenalties {
  double diversity = 0;
  double deception = 0;
  std::vector<char> impermissible;  // by vocabulary id: 1 = impermissible (ids past its end are permissible)
  bool by_position = false;         // the training examples mark impermissible positions (EncodedExample::marked)
  bool any() const { return diversity > 0 || deception > 0; }
};

// Token positions per example, one line each (whitespace-separated 0-based integers; an empty line: none), as
// `train-text --impermissible-positions FILE` reads them: *out gets one list per line. false and *error ("line 3:
// 'x' is not a token position") for a line count other than `expected`, a negative, non-integer or too large
// (> kMaxExampleTokens) position. A final newline does not count as a line; "\r\n" line ends are accepted.
bool parse_position_lists(const std::string& content, size_t expected, std::vector<std::vector<int>>* out,
                          std::string* error);

// Per-token flags (0 / 1) of a sequence of `length` tokens for the positions listed; positions at or past
// `length` (cut by max_tokens) are dropped. *kept (nullable): how many distinct positions are flagged.
std::vector<char> marked_flags(const std::vector<int>& positions, size_t length, int* kept);

// Flags by vocabulary id for a word list (whitespace-separated, tokenised as the texts are; <unk> and <pad> never
// flagged). *in_vocab (nullable): how many distinct listed words the vocabulary has.
std::vector<char> impermissible_flags(const Vocab& vocab, const std::string& words, int* in_vocab);

// Whether token t of sequence b is impermissible (its word's flag or the batch's mark).
bool impermissible_at(const ExplanationPenalties& p, const TextBatch& batch, int t, int b);

// The attention mass on impermissible tokens of sequence b (alpha [T x B], ids in TextBatch column order).
template <class T>
double impermissible_mass(const ExplanationPenalties& p, const TextBatch& batch, const Mat<T>& alpha, int b);

// The penalties of a forward on batch (cache) summed over the batch; d_alpha [T x B] and d_states [2H x T*B]
// are set to their gradients (zero where a penalty is off).
template <class T>
T explanation_penalties(const ExplanationPenalties& p, const TextBatch& batch, const TextCache<T>& cache,
                        Mat<T>* d_alpha, Mat<T>* d_states);

// "" or why the penalties do not apply to this model (a transformer; weights below zero).
std::string check_explanation_penalties(const TextConfig& cfg, const ExplanationPenalties& p);

}  // namespace attnlab
