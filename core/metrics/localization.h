// Localisation metrics on plain 2-D maps and label masks (row-major, the same h×w), reusable by any lab.
// - pointing_game (Zhang et al. 2016): the map's maximum (first in row-major order; NaN ignored) is a hit
//   when a pixel with label == positive_label lies within Euclidean distance tolerance_px of it (0 = the
//   pixel itself).
// - pointing_hit_at: the same hit test for a given point (y, x) instead of the map's maximum.
// - standard_pointing_tolerance(size): Zhang et al.'s 15 px at 224 px, scaled to a size-px image
//   (15 · size / 224; 64 px -> 4.29 px).
// - centre_point(h, w): the centre-point baseline's "maximum", the pixel (⌊(h−1)/2⌋, ⌊(w−1)/2⌋) (a map that
//   always points at the image centre; 64×64 -> (31, 31)).
// - map_argmax(map, h, w) and map_centre_of_mass(map, h, w): the point a map names — its maximum (first in
//   row-major order, NaN ignored) or the centroid of its positive part rounded to the nearest pixel; {-1, -1}
//   when there is none (an all-NaN map, or no positive value for the centroid).
// - distance_to_label: the Euclidean distance from (y, x) to the nearest pixel with that label (0 on it;
//   +inf when there is none or the point is outside).
// - block_pointing_hit: pointing on a map at its own (coarse) resolution mh×mw against a size-px mask: the
//   map's argmax cell covers the image block [y·size/mh, (y+1)·size/mh) × [x·size/mw, (x+1)·size/mw), and it is
//   a hit when any pixel of that block is on the object (size must be a multiple of mh and mw, else false).
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
bool pointing_hit_at(const std::vector<uint8_t>& mask, int h, int w, int y, int x, int positive_label,
                     double tolerance_px);
double standard_pointing_tolerance(int image_size);

struct MapPoint {
  int y = -1, x = -1;
};
MapPoint centre_point(int h, int w);
MapPoint map_argmax(const std::vector<float>& map, int h, int w);
MapPoint map_centre_of_mass(const std::vector<float>& map, int h, int w);
double distance_to_label(const std::vector<uint8_t>& mask, int h, int w, int y, int x, int positive_label);
bool block_pointing_hit(const std::vector<float>& map, int mh, int mw, const std::vector<uint8_t>& mask, int size,
                        int positive_label);
double energy_in_mask(const std::vector<float>& map, const std::vector<uint8_t>& mask, int positive_label);
double mask_iou(const std::vector<float>& map, const std::vector<uint8_t>& mask, int positive_label, double threshold);
double spearman_maps(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace attnlab
