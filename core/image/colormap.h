// Colour maps and heat-map overlays. viridis / inferno: matplotlib's 256-entry perceptual tables
// (colormap_tables.inc), linearly interpolated between entries; gray: t -> (t, t, t); jet: the classic
// MATLAB jet (r, g, b = clamp(1.5 − |4t − 3|), clamp(1.5 − |4t − 2|), clamp(1.5 − |4t − 1|)).
// t is clamped to [0, 1]; NaN counts as 0. Output bytes are rounded.
// overlay_rgba: RGBA (alpha 255) = (1 − opacity) · image + opacity · colour(map01), image planar [3, H, W]
// in 0–255, opacity clamped to [0, 1]. colorize_rgba: the colours alone.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

enum class Colormap { Viridis, Inferno, Gray, Jet };

// "viridis" | "inferno" | "gray" | "jet"; false for anything else.
bool parse_colormap(const std::string& name, Colormap* out);

void colormap_rgb(Colormap cm, float t, uint8_t rgb[3]);

std::vector<uint8_t> colorize_rgba(const float* map01, int H, int W, Colormap cm);
std::vector<uint8_t> overlay_rgba(const float* image, const float* map01, int H, int W, float opacity, Colormap cm);

}  // namespace attnlab
