// The in-page text training recipes as specs (catalogue "text.training" / "text.adversary": defaults = the
// CLI's train-text defaults with --min-count 1) and their setup from a JSON object, shared by the wasm
// TextTraining / AdversaryTraining and checked the same way everywhere. Never throws.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catalogue/param_spec.h"
#include "model/text_checkpoint.h"
#include "train/text_trainer.h"

namespace attnlab {

const std::vector<ParamSpec>& text_training_specs();   // attention, seed, epochs, embedding_dim, hidden_dim, min_count, batch_size, lr
const std::vector<ParamSpec>& adversary_training_specs();  // lambda, seed, epochs, batch_size, lr, base
std::vector<std::string> default_text_class_names();   // {"negative", "positive"}

struct TextTrainingSetup {
  TextModel model;  // config, vocabulary (from the training data), class names, seeded initial parameters
  TrainOptions train;
  std::vector<EncodedExample> train_set, dev_set;
};
// Binary label<TAB>text data + options → "" or a message ("training data: line 3: ...", "epochs must be ...").
std::string text_training_setup(const std::string& train_tsv, const std::string& dev_tsv, const nlohmann::json& options,
                                TextTrainingSetup* out);

struct AdversarySetup {
  TrainOptions train;
  double lambda = 1;
  std::string base_name;
  TextParams<float> initial;  // the adversary's seeded initial weights (as the CLI)
  std::vector<EncodedExample> train_set, dev_set;
};
// base: the loaded model (learned attention); data cut to its max_tokens, ids from its vocabulary.
std::string adversary_training_setup(const TextModel& base, const std::string& train_tsv, const std::string& dev_tsv,
                                     const nlohmann::json& options, AdversarySetup* out);
// Encodes label<TAB>text for model (max_tokens cut, labels must be classes of the model); "" or a message.
std::string encode_tsv_for(const TextModel& model, const std::string& tsv, std::vector<EncodedExample>* out);

}  // namespace attnlab
