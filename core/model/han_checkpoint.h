// A trained HAN as shipped (docs/DESIGN.md "HAN checkpoint"): config.json (`"format": "attnlab-han-v1"`,
// dims, both attention kinds, vocabulary, the sentence-splitting limits used in training, and free-form
// training / metrics / provenance sections) + model.safetensors. Loading validates everything and reports
// what is wrong in one message; no exceptions escape (the wasm build has none).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "model/han_model.h"
#include "text/sentence_splitter.h"
#include "text/vocab.h"

namespace attnlab {

struct HanModel {
  HanConfig config;
  Vocab vocab;
  std::vector<std::string> class_names;
  HanParams<float> params;
  SentenceSplitOptions split;     // max_sentences, max_sentence_tokens, max_tokens of training and evaluation
  std::string extra_json = "{}";  // "training", "metrics", "provenance" sections
};

// The "format" string of a config.json text ("" when it is not a JSON object with a string "format").
std::string config_format(const std::string& config_json);

bool load_han_model(const std::string& config_json, const uint8_t* weights, size_t weights_size, HanModel* out,
                    std::string* error);
std::string han_model_config_json(const HanModel& model);
std::vector<uint8_t> han_model_weights(const HanModel& model, StorageType storage);

// A document as the model reads it: split (the model's limits), tokenised, mapped to ids.
struct HanInput {
  SplitDocument split;
  HanDocument ids;
  std::vector<std::vector<bool>> unknown;  // per token: not in the vocabulary
};
HanInput han_encode(const HanModel& model, const std::string& text);

}  // namespace attnlab
