// A trained localisation CNN as a folder: config.json + model.safetensors.
// config.json: {"format": "attnlab-cnn-v1", "image_size", "in_channels", "num_classes", "class_names",
//   "widths": [..], "pool": [bool..], "cbam": [bool..], "cbam_reduction", "head": "gap"|"gmp"|"lse", "lse_r",
//   "residual": bool (optional, absent = false: written only when true),
//   + free-form "training", "metrics", "provenance" sections}.
// model.safetensors, PyTorch-style names and row-major shapes (K = last width, C = classes):
//   stages.{i}.conv.weight [out, in, 3, 3]; stages.{i}.bn.{weight,bias,running_mean,running_var} [out];
//   stages.{i}.cbam.fc1.weight [out/r, out], .fc1.bias, .fc2.weight [out, out/r], .fc2.bias;
//   stages.{i}.cbam.spatial.weight [1, 2, 7, 7], .spatial.bias [1]   (only for stages with CBAM);
//   stages.{i}.shortcut.conv.weight [out, in, 1, 1], stages.{i}.shortcut.bn.{weight,bias,running_mean,
//   running_var} [out]   (only for residual stages that change the channel count);
//   fc.weight [C, K], fc.bias [C].
// Loading validates the config and every tensor (present, shape, finite, nothing unknown) and reports what
// is wrong in one message; it never aborts on bad bytes (no exceptions escape).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "io/safetensors.h"
#include "model/cnn_model.h"

namespace attnlab {

struct CnnModel {
  CnnConfig config;
  std::vector<std::string> class_names;
  CnnParams<float> params;
  std::string extra_json = "{}";  // the config's "training", "metrics", "provenance" sections, as JSON
};

bool load_cnn_model(const std::string& config_json, const uint8_t* weights, size_t weights_size, CnnModel* out,
                    std::string* error);

// config.json text; extra_json (an object) is merged in at the top level.
std::string cnn_model_config_json(const CnnModel& model);
// model.safetensors bytes (trained parameters and BN running statistics).
std::vector<uint8_t> cnn_model_weights(const CnnModel& model, StorageType storage);

}  // namespace attnlab
