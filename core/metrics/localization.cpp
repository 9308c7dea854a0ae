// Pointing game, energy in mask, IoU of a thresholded map, map rank correlation; see localization.h.
#include "metrics/localization.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "image/map_ops.h"
#include "metrics/spearman.h"

namespace attnlab {

MapPoint map_argmax(const std::vector<float>& map, int h, int w) {
  const size_t n = static_cast<size_t>(h) * w;
  if (h < 1 || w < 1 || map.size() != n) return {};
  size_t best = n;
  for (size_t i = 0; i < n; ++i)
    if (!std::isnan(map[i]) && (best == n || map[i] > map[best])) best = i;
  if (best == n) return {};
  return {static_cast<int>(best / w), static_cast<int>(best % w)};
}

MapPoint map_centre_of_mass(const std::vector<float>& map, int h, int w) {
  const size_t n = static_cast<size_t>(h) * w;
  if (h < 1 || w < 1 || map.size() != n) return {};
  double s = 0, sy = 0, sx = 0;
  for (size_t i = 0; i < n; ++i)
    if (map[i] > 0) {  // NaN compares false
      s += map[i];
      sy += map[i] * static_cast<double>(i / w);
      sx += map[i] * static_cast<double>(i % w);
    }
  if (!(s > 0)) return {};
  return {static_cast<int>(std::lround(sy / s)), static_cast<int>(std::lround(sx / s))};
}

MapPoint centre_point(int h, int w) {
  if (h < 1 || w < 1) return {};
  return {(h - 1) / 2, (w - 1) / 2};
}

double standard_pointing_tolerance(int image_size) { return 15.0 * image_size / 224.0; }

bool pointing_hit_at(const std::vector<uint8_t>& mask, int h, int w, int by, int bx, int positive_label,
                     double tolerance_px) {
  if (h < 1 || w < 1 || mask.size() != static_cast<size_t>(h) * w) return false;
  if (by < 0 || by >= h || bx < 0 || bx >= w) return false;
  const double tol = std::max(0.0, tolerance_px);
  const int r = static_cast<int>(std::floor(tol));
  for (int y = std::max(0, by - r); y <= std::min(h - 1, by + r); ++y)
    for (int x = std::max(0, bx - r); x <= std::min(w - 1, bx + r); ++x) {
      const double d2 = static_cast<double>(y - by) * (y - by) + static_cast<double>(x - bx) * (x - bx);
      if (d2 <= tol * tol && mask[static_cast<size_t>(y) * w + x] == positive_label) return true;
    }
  return false;
}

bool pointing_game(const std::vector<float>& map, const std::vector<uint8_t>& mask, int h, int w, int positive_label,
                   double tolerance_px) {
  if (mask.size() != static_cast<size_t>(std::max(h, 0)) * std::max(w, 0)) return false;
  const MapPoint p = map_argmax(map, h, w);
  return p.y >= 0 && pointing_hit_at(mask, h, w, p.y, p.x, positive_label, tolerance_px);
}

double distance_to_label(const std::vector<uint8_t>& mask, int h, int w, int y, int x, int positive_label) {
  double best = std::numeric_limits<double>::infinity();
  if (h < 1 || w < 1 || mask.size() != static_cast<size_t>(h) * w || y < 0 || y >= h || x < 0 || x >= w) return best;
  for (int yy = 0; yy < h; ++yy)
    for (int xx = 0; xx < w; ++xx)
      if (mask[static_cast<size_t>(yy) * w + xx] == positive_label)
        best = std::min(best, std::hypot(static_cast<double>(yy - y), static_cast<double>(xx - x)));
  return best;
}

bool block_pointing_hit(const std::vector<float>& map, int mh, int mw, const std::vector<uint8_t>& mask, int size,
                        int positive_label) {
  if (mh < 1 || mw < 1 || size < 1 || size % mh || size % mw) return false;
  if (mask.size() != static_cast<size_t>(size) * size) return false;
  const MapPoint p = map_argmax(map, mh, mw);
  if (p.y < 0) return false;
  const int bh = size / mh, bw = size / mw;
  for (int y = p.y * bh; y < (p.y + 1) * bh; ++y)
    for (int x = p.x * bw; x < (p.x + 1) * bw; ++x)
      if (mask[static_cast<size_t>(y) * size + x] == positive_label) return true;
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
