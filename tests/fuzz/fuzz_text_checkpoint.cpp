// libFuzzer target: core/model/text_checkpoint load_text_model on "config.json" NUL "model.safetensors".
// Checks: no crash / UB / leak / stack overflow (deep JSON); a loaded model writes a config and weights that
// load again to the same dims and vocabulary.
#include "fuzz_common.h"
#include "model/text_checkpoint.h"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > fuzz::kMaxInput) return -1;
  std::string config;
  const uint8_t* weights = nullptr;
  size_t weights_size = 0;
  fuzz::split_checkpoint(data, size, &config, &weights, &weights_size);
  TextModel m;
  std::string error;
  if (!load_text_model(config, weights, weights_size, &m, &error)) {
    fuzz::require(!error.empty());
    return 0;
  }
  const std::string config2 = text_model_config_json(m);
  const std::vector<uint8_t> w2 = text_model_weights(m, StorageType::F32);
  TextModel back;
  fuzz::require(load_text_model(config2, w2.data(), w2.size(), &back, &error));
  fuzz::require(back.config.hidden_dim == m.config.hidden_dim && back.vocab.words() == m.vocab.words() &&
                back.class_names == m.class_names && back.max_tokens == m.max_tokens);
  return 0;
}
