// Operations on 2-D maps (row-major h×w floats) and planar images ([c, h, w] floats).
// - upsample_bilinear: h×w -> H×W, half-pixel centres (source = (i + 0.5) · h / H − 0.5, clamped at 0 and
//   h − 1), i.e. PyTorch interpolate(mode='bilinear', align_corners=False).
// - normalize_minmax: (m − min) / (max − min) into [0, 1]; a constant (or empty) map -> zeros. NaNs -> 0.
// - gaussian_blur: separable Gaussian, kernel size `ksize` (odd), standard deviation sigma, weights
//   normalised to sum 1, reflect padding (… 2 1 | 0 1 2 … as torchvision / PyTorch 'reflect'); every plane
//   of a planar image blurred on its own.
#pragma once
#include <cstddef>
#include <vector>

namespace attnlab {

std::vector<float> upsample_bilinear(const float* map, int h, int w, int H, int W);

std::vector<float> normalize_minmax(const float* map, size_t n);
inline std::vector<float> normalize_minmax(const std::vector<float>& m) { return normalize_minmax(m.data(), m.size()); }

std::vector<float> gaussian_blur(const float* planar, int channels, int h, int w, double sigma, int ksize);

// Reflect an index into [0, n) (… 2 1 | 0 1 … n-1 | n-2 …), valid for any integer i and n >= 1.
int reflect_index(int i, int n);

}  // namespace attnlab
