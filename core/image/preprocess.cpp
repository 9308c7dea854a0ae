// Separable resize restricted to the 224×224 crop: per output column / row a list of source weights
// (triangle filter of radius max(scale, 1) in source pixels, centred at (i + 0.5) · scale, normalised over
// the source pixels inside the image), a horizontal pass over the needed source rows, then a vertical pass.
#include "image/preprocess.h"

#include <algorithm>
#include <cmath>

namespace attnlab {
namespace {

struct Taps {
  int first = 0;                // first source index
  std::vector<double> weights;  // for first, first + 1, ...
};

// Taps for output indices offset .. offset + count - 1 of an in -> out resize.
std::vector<Taps> axis_taps(int in, int out, int offset, int count) {
  std::vector<Taps> taps(count);
  const double scale = static_cast<double>(in) / out;
  const double support = std::max(scale, 1.0);
  for (int o = 0; o < count; ++o) {
    const int i = offset + o;
    Taps& t = taps[o];
    if (in == out) {  // identity: exact copy
      t.first = i;
      t.weights = {1.0};
      continue;
    }
    const double center = (i + 0.5) * scale;
    const int lo = std::max(0, static_cast<int>(std::floor(center - support)));
    const int hi = std::min(in - 1, static_cast<int>(std::ceil(center + support)));
    t.first = lo;
    double sum = 0;
    for (int j = lo; j <= hi; ++j) {
      const double w = std::max(0.0, 1.0 - std::abs((j + 0.5 - center) / support));
      t.weights.push_back(w);
      sum += w;
    }
    if (sum <= 0) {  // cannot happen for in, out >= 1; keep the nearest pixel just in case
      t.first = std::min(in - 1, std::max(0, static_cast<int>(center)));
      t.weights = {1.0};
      continue;
    }
    for (double& w : t.weights) w /= sum;
  }
  return taps;
}

int nearest_source(int i, int in, int out) {
  const int64_t s = ((2 * static_cast<int64_t>(i) + 1) * in) / (2 * static_cast<int64_t>(out));
  return static_cast<int>(std::min<int64_t>(s, in - 1));
}

}  // namespace

bool check_image_size(int width, int height, std::string* error) {
  if (width < 1 || height < 1 || width > 16384 || height > 16384 ||
      static_cast<int64_t>(width) * height > (int64_t(1) << 26)) {
    if (error)
      *error = "image size " + std::to_string(width) + "x" + std::to_string(height) +
               " is not supported (each side 1..16384, at most 67108864 pixels)";
    return false;
  }
  return true;
}

CropGeometry crop_geometry(int width, int height) {
  CropGeometry g;
  const int64_t shorter = std::min(width, height), longer = std::max(width, height);
  // round(longer * 256 / shorter), halves up
  const int64_t resized_long = (2 * longer * kResizeShort + shorter) / (2 * shorter);
  g.resized_width = width <= height ? kResizeShort : static_cast<int>(resized_long);
  g.resized_height = width <= height ? static_cast<int>(resized_long) : kResizeShort;
  g.x0 = (g.resized_width - kImageSize) / 2;
  g.y0 = (g.resized_height - kImageSize) / 2;
  return g;
}

bool preprocess_rgba(const uint8_t* rgba, int width, int height, std::vector<float>* out, std::string* error) {
  if (!check_image_size(width, height, error)) return false;
  const CropGeometry g = crop_geometry(width, height);
  const std::vector<Taps> tx = axis_taps(width, g.resized_width, g.x0, kImageSize);
  const std::vector<Taps> ty = axis_taps(height, g.resized_height, g.y0, kImageSize);
  const int row_lo = ty.front().first;
  const int row_hi = ty.back().first + static_cast<int>(ty.back().weights.size()) - 1;
  const int rows = row_hi - row_lo + 1;
  // Horizontal pass: rows x 224 x 3 (composited over white).
  std::vector<double> mid(static_cast<size_t>(rows) * kImageSize * 3);
  for (int r = 0; r < rows; ++r) {
    const uint8_t* src = rgba + static_cast<size_t>(row_lo + r) * width * 4;
    double* dst = mid.data() + static_cast<size_t>(r) * kImageSize * 3;
    for (int o = 0; o < kImageSize; ++o) {
      double acc[3] = {0, 0, 0};
      const Taps& t = tx[o];
      for (size_t k = 0; k < t.weights.size(); ++k) {
        const uint8_t* p = src + static_cast<size_t>(t.first + k) * 4;
        const double a = p[3] / 255.0;
        for (int c = 0; c < 3; ++c) acc[c] += t.weights[k] * (a == 1.0 ? p[c] : p[c] * a + 255.0 * (1.0 - a));
      }
      for (int c = 0; c < 3; ++c) dst[o * 3 + c] = acc[c];
    }
  }
  // Vertical pass into planar output.
  const size_t plane = static_cast<size_t>(kImageSize) * kImageSize;
  out->assign(3 * plane, 0.f);
  for (int y = 0; y < kImageSize; ++y) {
    const Taps& t = ty[y];
    for (int x = 0; x < kImageSize; ++x) {
      double acc[3] = {0, 0, 0};
      for (size_t k = 0; k < t.weights.size(); ++k) {
        const double* m = mid.data() + (static_cast<size_t>(t.first - row_lo + k) * kImageSize + x) * 3;
        for (int c = 0; c < 3; ++c) acc[c] += t.weights[k] * m[c];
      }
      for (int c = 0; c < 3; ++c)
        (*out)[c * plane + static_cast<size_t>(y) * kImageSize + x] =
            static_cast<float>(std::min(255.0, std::max(0.0, acc[c])));
    }
  }
  return true;
}

bool preprocess_mask(const uint8_t* labels, int width, int height, std::vector<uint8_t>* out, std::string* error) {
  if (!check_image_size(width, height, error)) return false;
  const CropGeometry g = crop_geometry(width, height);
  out->assign(static_cast<size_t>(kImageSize) * kImageSize, 0);
  for (int y = 0; y < kImageSize; ++y) {
    const int sy = nearest_source(g.y0 + y, height, g.resized_height);
    for (int x = 0; x < kImageSize; ++x) {
      const int sx = nearest_source(g.x0 + x, width, g.resized_width);
      (*out)[static_cast<size_t>(y) * kImageSize + x] = labels[static_cast<size_t>(sy) * width + sx];
    }
  }
  return true;
}

}  // namespace attnlab
