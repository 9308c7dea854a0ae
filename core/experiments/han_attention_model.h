// A HAN (Yang et al. 2016) behind the attention-model interface (model/attention_model.h), at one of its two levels:
//   "sentence"  units = the sentences, one group; the weights are beta; the sentence encoder states are frozen, so
//               an output is one classifier evaluation of Σ_i beta_i h_i (double; han_frozen's han_freeze).
//   "word"      units = the words, one group per sentence; the weights are alpha_it (each sentence's sums to 1);
//               the word encoder states are frozen (the word attention does not reach them) and an output re-runs
//               the sentence level on the new sentence vectors Σ_t alpha_it h_it (double, batched: outputs() of many
//               variants is one forward); effective_attention() = beta_i · alpha_it, the word's share of the
//               document; group_weights() = beta (the adversary's divergence, experiments/adversarial.h).
// Gradients with respect to the weights take one backward through what an output runs (the classifier at the sentence
// level, the sentence level at the word level), for any combination of classes (add_d_output_combination).
// The instance is a document: Instance::ids with Instance::sentence_lengths. The importances are core/explain/han's
// gradient (attention detached) and leave-one-out at the level.
// The debate's experiments run on it as on any model kind (experiment.h's registry; those that need a flat model's
// parameters or single-token measures are refused by check_experiment_model): `level` picks the model.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "model/attention_model.h"
#include "model/han_checkpoint.h"

namespace attnlab {

class HanAttentionModel : public AttentionModel {
 public:
  HanAttentionModel(const HanModel& model, bool word_level) : model_(model), word_(word_level) {}
  int num_classes() const override;
  const char* unit_name() const override { return word_ ? "word" : "sentence"; }
  const char* skip_reason(const Instance& instance, int min_units) const override;
  std::unique_ptr<AttentionInstance> freeze(const Instance& instance, std::string* error) const override;
  bool concurrent() const override { return true; }  // its passes only read the parameters

 private:
  const HanModel& model_;
  bool word_ = false;
};

struct Experiment;

// What the CLI and the bindings check before running experiment e on a HAN: the level (take_han_level, below) taken
// out of *params, the model kind (check_experiment_model), no human rationales or other models needed, the rest of
// the parameters (check_experiment_params). "" when it runs, else a message.
std::string check_han_experiment(const Experiment& e, const HanModel& model, nlohmann::json* params, bool* word_level);

// The level a HAN experiment runs at, from the experiment's parameters: params["level"] = "sentence" (the default) or
// "word", taken out of *params so that the rest are the experiment's own (check_experiment_params). False with *error
// when it is neither.
bool take_han_level(nlohmann::json* params, bool* word_level, std::string* error);

// The document of a HAN instance (sentences of Instance::ids by Instance::sentence_lengths), and back.
HanDocument han_document_of(const Instance& instance);
Instance han_instance_of(int index, int label, const HanDocument& doc);

}  // namespace attnlab
