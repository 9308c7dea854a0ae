// Losses on the explanation itself, added per sequence to the class loss in text training (bilstm / mlp
// encoders, whose attention is one distribution over the tokens):
// - diversity (Mohankumar et al. 2020, the Diversity LSTM): + diversity * conicity of the sequence's encoder
//   states (nn/conicity.h); the reference code's default weight is 0.5.
// - deception (Pruthi et al. 2020): + deception * -log(1 - m), m = the attention mass on the impermissible
//   tokens (m held below 1 - 1e-6); the paper trains with 0.1 and 1.
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
  bool any() const { return diversity > 0 || deception > 0; }
};

// Flags by vocabulary id for a word list (whitespace-separated, tokenised as the texts are; <unk> and <pad> never
// flagged). *in_vocab (nullable): how many distinct listed words the vocabulary has.
std::vector<char> impermissible_flags(const Vocab& vocab, const std::string& words, int* in_vocab);

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
