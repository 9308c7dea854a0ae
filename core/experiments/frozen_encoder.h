// One instance with its encoder states frozen: attention interventions (erasing, permuting, replacing the
// weights) only change the context sum_t alpha_t h_t, so the output for any alpha is one decoder
// evaluation. All in double (cheap at this size) so experiment numbers are not float-noise.
#pragma once
#include <memory>
#include <vector>

#include "model/text_checkpoint.h"
#include "model/transformer_frozen.h"

namespace attnlab {

struct FrozenEncoder {
  Mat<double> h;              // [2H x T] encoder states (bilstm, mlp)
  // transformer: the last layer's [CLS] path (model/transformer_frozen.h); "attention" = its head-averaged
  // [CLS] row over the tokens, imposed in every head as [c_h, (1 - c_h)·alpha].
  std::shared_ptr<const TransformerFrozen> transformer;
  std::vector<double> alpha;  // the model's own attention (sums to 1)
  std::vector<double> probs;  // the model's class probabilities
  int predicted = 0;
  int size() const { return static_cast<int>(alpha.size()); }
};

// ids must be non-empty.
FrozenEncoder freeze_encoder(const TextModel& model, const std::vector<int>& ids);

// Class probabilities with the given attention weights (any non-negative vector of length T; used as is,
// not renormalised).
std::vector<double> output_with_attention(const TextModel& model, const FrozenEncoder& fe,
                                          const std::vector<double>& alpha);

// d p_cls / d alpha_t for the given weights (length T).
std::vector<double> d_output_d_attention(const TextModel& model, const FrozenEncoder& fe,
                                         const std::vector<double>& alpha, int cls);

// alpha with the listed positions set to 0 and the rest renormalised to sum 1 (all zero if nothing is left): erase_units
// with one group (model/attention_model.h).
std::vector<double> erase_and_renormalise(const std::vector<double>& alpha, const std::vector<int>& positions);

// Divergences between distributions (natural log; JSD <= ln 2).
double jensen_shannon(const std::vector<double>& p, const std::vector<double>& q);
double total_variation(const std::vector<double>& p, const std::vector<double>& q);

int argmax(const std::vector<double>& v);

}  // namespace attnlab
