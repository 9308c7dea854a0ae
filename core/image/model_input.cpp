// Planar 0–255 RGB → a classifier's input space (see model_input.h).
#include "image/model_input.h"

#include "image/map_ops.h"

namespace attnlab {

bool parse_input_scaling(const std::string& name, InputScaling* out, std::string* error) {
  if (name == "imagenet") *out = InputScaling::Imagenet;
  else if (name == "unit") *out = InputScaling::Unit;
  else if (name == "raw") *out = InputScaling::Raw;
  else if (name == "signed") *out = InputScaling::Signed;
  else {
    *error = "unknown input scaling '" + name + "' (imagenet, unit, raw or signed)";
    return false;
  }
  return true;
}

bool model_input_from_planar(const float* rgb, int side, int channels, int height, int width, InputScaling scaling,
                             std::vector<float>* out, std::string* error) {
  if (!rgb || side < 1) {
    *error = "no image";
    return false;
  }
  if (channels != 1 && channels != 3) {
    *error = "the model input has " + std::to_string(channels) + " channels; photos give 1 or 3";
    return false;
  }
  if (height != width || height < 1 || height > 4096) {
    *error = "photos are resized to a square input; this model wants " + std::to_string(height) + "×" +
             std::to_string(width);
    return false;
  }
  static const float kMean[3] = {0.485f, 0.456f, 0.406f}, kStd[3] = {0.229f, 0.224f, 0.225f};
  const size_t in_hw = static_cast<size_t>(side) * side, hw = static_cast<size_t>(height) * width;
  out->assign(static_cast<size_t>(channels) * hw, 0.f);
  std::vector<float> plane(in_hw);
  for (int ch = 0; ch < channels; ++ch) {
    if (channels == 3) {
      plane.assign(rgb + ch * in_hw, rgb + (ch + 1) * in_hw);
    } else {  // grey: the mean of R, G, B
      for (size_t p = 0; p < in_hw; ++p) plane[p] = (rgb[p] + rgb[in_hw + p] + rgb[2 * in_hw + p]) / 3.f;
    }
    const std::vector<float> sized = height == side ? plane : upsample_bilinear(plane.data(), side, side, height, width);
    float* dst = out->data() + ch * hw;
    for (size_t p = 0; p < hw; ++p) {
      const float v = sized[p];
      switch (scaling) {
        case InputScaling::Imagenet: dst[p] = (v / 255.f - kMean[ch]) / kStd[ch]; break;
        case InputScaling::Unit: dst[p] = v / 255.f; break;
        case InputScaling::Signed: dst[p] = v / 127.5f - 1.f; break;
        case InputScaling::Raw: dst[p] = v; break;
      }
    }
  }
  return true;
}

}  // namespace attnlab
