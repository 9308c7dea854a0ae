// The flat text models attnlab trains (BiLSTM / MLP with additive, dot or uniform attention, and the core's
// transformer) behind the attention-model interface (model/attention_model.h). Units = the tokens, one group.
// The frozen instance is frozen_encoder.h's: the encoder states (BiLSTM, MLP) or the transformer's last-layer [CLS]
// path, in double precision; the importances are explain/importance.h's gradient and leave-one-out.
#pragma once
#include "model/attention_model.h"
#include "model/text_checkpoint.h"

namespace attnlab {

class TextAttentionModel : public AttentionModel {
 public:
  explicit TextAttentionModel(const TextModel& model) : model_(model) {}
  int num_classes() const override;
  const char* skip_reason(const Instance& instance, int min_units) const override;
  std::unique_ptr<AttentionInstance> freeze(const Instance& instance, std::string* error) const override;
  bool concurrent() const override { return true; }  // its passes only read the parameters
  const TextModel* text_model() const override { return &model_; }
  // ERASER's view: experiments/measure_scores.h's measures; the edited sequences in one batch (empty: the decoder bias).
  std::vector<std::string> token_measure_names() const override;
  bool token_measures(const Instance& instance, int ig_steps, int target, Rng& rng, TokenMeasures* out,
                      std::string* error) const override;
  bool sequence_probabilities(const std::vector<std::vector<int>>& seqs, int c, std::vector<double>* out,
                              std::string* error) const override;

 private:
  const TextModel& model_;
};

}  // namespace attnlab
