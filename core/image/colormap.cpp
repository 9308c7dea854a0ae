// Colour-map lookups (tables from colormap_tables.inc) and overlays; see colormap.h.
#include "image/colormap.h"

#include <algorithm>
#include <cmath>

namespace attnlab {
namespace {

#include "image/colormap_tables.inc"

double clamp01(double v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }

void table_rgb(const unsigned char* table, double t, double rgb[3]) {
  const double s = t * 255.0;
  const int i0 = std::min(254, static_cast<int>(s));
  const double f = s - i0;
  for (int c = 0; c < 3; ++c) rgb[c] = table[i0 * 3 + c] + f * (table[(i0 + 1) * 3 + c] - table[i0 * 3 + c]);
}

void colour(Colormap cm, float t_in, double rgb[3]) {
  const double t = std::isnan(t_in) ? 0.0 : clamp01(t_in);
  switch (cm) {
    case Colormap::Viridis: table_rgb(kViridis, t, rgb); return;
    case Colormap::Inferno: table_rgb(kInferno, t, rgb); return;
    case Colormap::Gray: rgb[0] = rgb[1] = rgb[2] = 255.0 * t; return;
    case Colormap::Jet:
      rgb[0] = 255.0 * clamp01(1.5 - std::abs(4 * t - 3));
      rgb[1] = 255.0 * clamp01(1.5 - std::abs(4 * t - 2));
      rgb[2] = 255.0 * clamp01(1.5 - std::abs(4 * t - 1));
      return;
  }
}

uint8_t to_byte(double v) { return static_cast<uint8_t>(std::lround(std::min(255.0, std::max(0.0, v)))); }

}  // namespace

bool parse_colormap(const std::string& name, Colormap* out) {
  if (name == "viridis") *out = Colormap::Viridis;
  else if (name == "inferno") *out = Colormap::Inferno;
  else if (name == "gray") *out = Colormap::Gray;
  else if (name == "jet") *out = Colormap::Jet;
  else return false;
  return true;
}

void colormap_rgb(Colormap cm, float t, uint8_t rgb[3]) {
  double c[3];
  colour(cm, t, c);
  for (int i = 0; i < 3; ++i) rgb[i] = to_byte(c[i]);
}

std::vector<uint8_t> colorize_rgba(const float* map01, int H, int W, Colormap cm) {
  const size_t n = static_cast<size_t>(H) * W;
  std::vector<uint8_t> out(n * 4);
  for (size_t i = 0; i < n; ++i) {
    colormap_rgb(cm, map01[i], &out[i * 4]);
    out[i * 4 + 3] = 255;
  }
  return out;
}

std::vector<uint8_t> overlay_rgba(const float* image, const float* map01, int H, int W, float opacity, Colormap cm) {
  const size_t n = static_cast<size_t>(H) * W;
  const double a = std::isnan(opacity) ? 0.0 : clamp01(opacity);
  std::vector<uint8_t> out(n * 4);
  for (size_t i = 0; i < n; ++i) {
    double c[3];
    colour(cm, map01[i], c);
    for (int k = 0; k < 3; ++k) out[i * 4 + k] = to_byte((1 - a) * image[k * n + i] + a * c[k]);
    out[i * 4 + 3] = 255;
  }
  return out;
}

}  // namespace attnlab
