// libFuzzer target: core/model/cnn_checkpoint load_cnn_model on "config.json" NUL "model.safetensors".
// Checks: no crash / UB / leak / stack overflow; a loaded model round-trips through its own writer.
#include "fuzz_common.h"
#include "model/cnn_checkpoint.h"

using namespace attnlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > fuzz::kMaxInput) return -1;
  std::string config;
  const uint8_t* weights = nullptr;
  size_t weights_size = 0;
  fuzz::split_checkpoint(data, size, &config, &weights, &weights_size);
  CnnModel m;
  std::string error;
  if (!load_cnn_model(config, weights, weights_size, &m, &error)) {
    fuzz::require(!error.empty());
    return 0;
  }
  const std::string config2 = cnn_model_config_json(m);
  const std::vector<uint8_t> w2 = cnn_model_weights(m, StorageType::F32);
  CnnModel back;
  fuzz::require(load_cnn_model(config2, w2.data(), w2.size(), &back, &error));
  fuzz::require(back.config.widths == m.config.widths && back.class_names == m.class_names);
  return 0;
}
