// Erase the region of a map above a threshold; see erase.h.
#include "image/erase.h"

#include "image/map_ops.h"

namespace attnlab {

bool parse_erase_fill(const std::string& name, EraseFill* out) {
  if (name == "mean") *out = EraseFill::Mean;
  else if (name == "blur") *out = EraseFill::Blur;
  else if (name == "grey" || name == "gray") *out = EraseFill::Grey;
  else return false;
  return true;
}

std::vector<float> erase_region(const std::vector<float>& image, const std::vector<float>& map01, int h, int w,
                                double threshold, EraseFill fill) {
  const size_t hw = static_cast<size_t>(h) * w;
  std::vector<float> out = image;
  if (image.size() != 3 * hw || map01.size() != hw) return out;
  std::vector<float> blurred;
  double mean[3] = {128, 128, 128};
  if (fill == EraseFill::Blur) blurred = gaussian_blur(image.data(), 3, h, w, 5.0, 11);
  if (fill == EraseFill::Mean)
    for (int c = 0; c < 3; ++c) {
      double s = 0;
      for (size_t i = 0; i < hw; ++i) s += image[c * hw + i];
      mean[c] = s / hw;
    }
  for (size_t i = 0; i < hw; ++i) {
    if (!(map01[i] > threshold)) continue;
    for (int c = 0; c < 3; ++c)
      out[c * hw + i] = fill == EraseFill::Blur ? blurred[c * hw + i] : static_cast<float>(mean[c]);
  }
  return out;
}

}  // namespace attnlab
