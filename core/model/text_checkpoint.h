// A trained text model as shipped: config.json (format, attention, dims, vocabulary, and free-form
// training/metrics/provenance sections) + model.safetensors (tensor names and shapes in docs/DESIGN.md).
// Loading validates everything against the config and reports what is wrong in one message; it never
// aborts on bad bytes (no exceptions escape: the wasm build runs without exception support).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "model/text_model.h"
#include "text/vocab.h"

namespace attnlab {

struct TextModel {
  TextConfig config;
  Vocab vocab;
  std::vector<std::string> class_names;
  TextParams<float> params;
  int max_tokens = 0;  // inputs were cut to their first max_tokens tokens in training and evaluation (0: none)
  std::string extra_json = "{}";  // the config's "training", "metrics", "provenance" sections, as JSON
};

bool load_text_model(const std::string& config_json, const uint8_t* weights, size_t weights_size, TextModel* out,
                     std::string* error);

// config.json text. extra_json (an object) is merged in at the top level (training, metrics, provenance).
std::string text_model_config_json(const TextModel& model);
std::vector<uint8_t> text_model_weights(const TextModel& model, StorageType storage);

}  // namespace attnlab
