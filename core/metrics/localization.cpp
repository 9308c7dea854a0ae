// Pointing game, energy in mask, IoU of a thresholded map, map rank correlation; see localization.h.
#include "metrics/localization.h"

#include <cmath>

#include "image/map_ops.h"
#include "metrics/spearman.h"

namespace attnlab {

bool pointing_game(const std::vector<float>& map, const std::vector<uint8_t>& mask, int h, int w, int positive_label,
                   double tolerance_px) {
  const size_t n = static_cast<size_t>(h) * w;
  if (h < 1 || w < 1 || map.size() != n || mask.size() != n) return false;
  size_t best = n;
  for (size_t i = 0; i < n; ++i)
    if (!std::isnan(map[i]) && (best == n || map[i] > map[best])) best = i;
  if (best == n) return false;
  const int by = static_cast<int>(best / w), bx = static_cast<int>(best % w);
  const int r = static_cast<int>(std::floor(std::max(0.0, tolerance_px)));
  for (int y = std::max(0, by - r); y <= std::min(h - 1, by + r); ++y)
    for (int x = std::max(0, bx - r); x <= std::min(w - 1, bx + r); ++x) {
      const double d2 = static_cast<double>(y - by) * (y - by) + static_cast<double>(x - bx) * (x - bx);
      if (d2 <= tolerance_px * tolerance_px && mask[static_cast<size_t>(y) * w + x] == positive_label) return true;
    }
  return false;
}

double energy_in_mask(const std::vector<float>& map, const std::vector<uint8_t>& mask, int positive_label) {
  if (map.size() != mask.size()) return NAN;
  double in = 0, all = 0;
  for (size_t i = 0; i < map.size(); ++i) {
    const double e = map[i] > 0 ? map[i] : 0.0;  // NaN -> 0
    all += e;
    if (mask[i] == positive_label) in += e;
  }
  return all > 0 ? in / all : 0.0;
}

double mask_iou(const std::vector<float>& map, const std::vector<uint8_t>& mask, int positive_label, double threshold) {
  if (map.size() != mask.size()) return NAN;
  const std::vector<float> m = normalize_minmax(map);
  size_t inter = 0, uni = 0;
  for (size_t i = 0; i < m.size(); ++i) {
    const bool a = m[i] >= threshold, b = mask[i] == positive_label;
    inter += a && b;
    uni += a || b;
  }
  return uni ? static_cast<double>(inter) / uni : 0.0;
}

double spearman_maps(const std::vector<float>& a, const std::vector<float>& b) {
  return spearman_rho(std::vector<double>(a.begin(), a.end()), std::vector<double>(b.begin(), b.end()));
}

}  // namespace attnlab
