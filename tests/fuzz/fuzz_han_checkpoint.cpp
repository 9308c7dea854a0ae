// libFuzzer target: core/model/han_checkpoint load_han_model on "config.json" NUL "model.safetensors" (the HAN
// config and its weights). Checks: no crash / UB / leak / stack overflow (deep JSON); a failure has a message; a
// loaded model writes a config and weights that load again to the same sizes.
#include "fuzz_common.h"
#include "model/han_checkpoint.h"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > fuzz::kMaxInput) return -1;
  std::string config;
  const uint8_t* weights = nullptr;
  size_t weights_size = 0;
  fuzz::split_checkpoint(data, size, &config, &weights, &weights_size);
  HanModel m;
  std::string error;
  if (!load_han_model(config, weights, weights_size, &m, &error)) {
    fuzz::require(!error.empty());
    return 0;
  }
  const std::string config2 = han_model_config_json(m);
  const std::vector<uint8_t> w2 = han_model_weights(m, StorageType::F32);
  HanModel back;
  fuzz::require(load_han_model(config2, w2.data(), w2.size(), &back, &error));
  return 0;
}
