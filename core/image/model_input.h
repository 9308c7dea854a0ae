// A photo as an image classifier's input: the image lab's planar 0–255 RGB crop [3, S, S] (preprocess.h) →
// [C, H, W] in the model's input space, for user models (explain-onnx, the page's "Your model").
//   scaling imagenet  (v / 255 − mean) / std, ImageNet mean (0.485, 0.456, 0.406), std (0.229, 0.224, 0.225)
//           unit      v / 255            raw  v            signed  v / 127.5 − 1
//   C = 1: the mean of R, G, B (and the first mean / std). H × W ≠ S × S: each plane resized bilinearly
//   (map_ops.h upsample_bilinear, half-pixel centres). Square inputs only (H = W); C must be 1 or 3.
#pragma once
#include <string>
#include <vector>

namespace attnlab {

enum class InputScaling { Imagenet, Unit, Raw, Signed };

// "imagenet" | "unit" | "raw" | "signed" → false + a message listing them.
bool parse_input_scaling(const std::string& name, InputScaling* out, std::string* error);

bool model_input_from_planar(const float* rgb, int side, int channels, int height, int width, InputScaling scaling,
                             std::vector<float>* out, std::string* error);

}  // namespace attnlab
