// Localisation metrics on plain 2-D maps and label masks (row-major, the same h×w), reusable by any lab.
// - pointing_game (Zhang et al. 2016): the map's maximum (first in row-major order; NaN ignored) is a hit
//   when a pixel with label == positive_label lies within Euclidean distance tolerance_px of it (0 = the
//   pixel itself).
// - energy_in_mask (Score-CAM's energy-based pointing game): Σ of max(map, 0) inside the label / Σ over all
//   pixels; 0 when the map has no positive energy.
// - mask_iou: pixels with normalize_minmax(map) >= threshold vs pixels with the label; |A ∩ B| / |A ∪ B|,
//   0 when both are empty.
// - spearman_maps: Spearman rank correlation of two maps (metrics/spearman; NaN when undefined).
// Sizes must match (callers check; mismatched sizes give false / NaN).
#pragma once
#include <cstdint>
#include <vector>

namespace attnlab {

bool pointing_game(const std::vector<float>& map, const std::vector<uint8_t>& mask, int h, int w, int positive_label,
                   double tolerance_px);
double energy_in_mask(const std::vector<float>& map, const std::vector<uint8_t>& mask, int positive_label);
double mask_iou(const std::vector<float>& map, const std::vector<uint8_t>& mask, int positive_label, double threshold);
double spearman_maps(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace attnlab
