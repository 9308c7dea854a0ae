// One HAN document frozen for the attention interventions (han_frozen.cpp), what HanAttentionModel
// (han_attention_model.h) runs the debate's experiments on — the experiments themselves are the flat ones
// (experiment.h), written once on the attention-model interface. The sentence encoder states are frozen for
// sentence-level interventions (the output for any beta is one classifier evaluation); word-level interventions
// re-run the sentence level on the new sentence vectors (batched). Double precision (cheap at this size).
#pragma once
#include <vector>

#include "model/han_checkpoint.h"

namespace attnlab {

struct HanFrozen {
  std::vector<double> probs;
  int predicted = 0;
  Mat<double> h;                          // [2Hs x S] sentence encoder states
  std::vector<double> beta;               // sentence attention
  std::vector<std::vector<double>> alpha; // word attention per sentence
  std::vector<double> d_beta;             // d p_pred / d beta_i
  std::vector<std::vector<double>> d_alpha;  // d p_pred / d alpha_it (sentence level live)
  std::vector<Mat<double>> word_states;     // per sentence [2Hw x n_i]: the word encoder's states (the word
                                            // attention does not reach them)
  int num_words() const;
};
HanFrozen han_freeze(const HanModel& model, const HanDocument& doc);
std::vector<double> han_output_with_sentence_attention(const HanModel& model, const HanFrozen& f,
                                                       const std::vector<double>& beta);
// Class probabilities for each variant of the word attention (each: per sentence, per token), one batch.
std::vector<std::vector<double>> han_outputs_with_word_attention(
    const HanModel& model, const HanDocument& doc, const std::vector<std::vector<std::vector<double>>>& variants);

}  // namespace attnlab
