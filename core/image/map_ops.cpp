// Bilinear upsampling, min–max normalisation and Gaussian blur on row-major maps (see map_ops.h).
#include "image/map_ops.h"

#include <algorithm>
#include <cmath>

namespace attnlab {
namespace {

struct Lerp {
  int i0, i1;
  double t;
};

std::vector<Lerp> lerps(int in, int out) {
  std::vector<Lerp> v(out);
  const double scale = static_cast<double>(in) / out;
  for (int o = 0; o < out; ++o) {
    double s = (o + 0.5) * scale - 0.5;
    if (s < 0) s = 0;
    int i0 = static_cast<int>(std::floor(s));
    if (i0 > in - 1) i0 = in - 1;
    const int i1 = std::min(i0 + 1, in - 1);
    v[o] = {i0, i1, i1 == i0 ? 0.0 : s - i0};
  }
  return v;
}

}  // namespace

std::vector<float> upsample_bilinear(const float* map, int h, int w, int H, int W) {
  std::vector<float> out(static_cast<size_t>(H) * W);
  if (h < 1 || w < 1 || H < 1 || W < 1) return out;
  const std::vector<Lerp> ly = lerps(h, H), lx = lerps(w, W);
  for (int y = 0; y < H; ++y) {
    const float* r0 = map + static_cast<size_t>(ly[y].i0) * w;
    const float* r1 = map + static_cast<size_t>(ly[y].i1) * w;
    const double ty = ly[y].t;
    for (int x = 0; x < W; ++x) {
      const Lerp& l = lx[x];
      const double top = r0[l.i0] + l.t * (r0[l.i1] - r0[l.i0]);
      const double bottom = r1[l.i0] + l.t * (r1[l.i1] - r1[l.i0]);
      out[static_cast<size_t>(y) * W + x] = static_cast<float>(top + ty * (bottom - top));
    }
  }
  return out;
}

std::vector<float> normalize_minmax(const float* map, size_t n) {
  std::vector<float> out(n, 0.f);
  float lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < n; ++i)
    if (std::isfinite(map[i])) {
      lo = std::min(lo, map[i]);
      hi = std::max(hi, map[i]);
    }
  if (!(hi > lo)) return out;
  const double range = static_cast<double>(hi) - lo;
  for (size_t i = 0; i < n; ++i)
    out[i] = std::isfinite(map[i]) ? static_cast<float>((static_cast<double>(map[i]) - lo) / range) : 0.f;
  return out;
}

int reflect_index(int i, int n) {
  if (n == 1) return 0;
  const int period = 2 * (n - 1);
  i %= period;
  if (i < 0) i += period;
  return i < n ? i : period - i;
}

std::vector<float> gaussian_blur(const float* planar, int channels, int h, int w, double sigma, int ksize) {
  const size_t plane = static_cast<size_t>(h) * w;
  std::vector<float> out(plane * channels);
  const int r = ksize / 2;
  std::vector<double> k(2 * r + 1);
  double sum = 0;
  for (int i = -r; i <= r; ++i) sum += k[i + r] = std::exp(-0.5 * i * i / (sigma * sigma));
  for (double& v : k) v /= sum;
  std::vector<double> tmp(plane);
  for (int c = 0; c < channels; ++c) {
    const float* src = planar + c * plane;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        double acc = 0;
        for (int i = -r; i <= r; ++i) acc += k[i + r] * src[static_cast<size_t>(y) * w + reflect_index(x + i, w)];
        tmp[static_cast<size_t>(y) * w + x] = acc;
      }
    float* dst = out.data() + c * plane;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        double acc = 0;
        for (int i = -r; i <= r; ++i) acc += k[i + r] * tmp[static_cast<size_t>(reflect_index(y + i, h)) * w + x];
        dst[static_cast<size_t>(y) * w + x] = static_cast<float>(acc);
      }
  }
  return out;
}

}  // namespace attnlab
