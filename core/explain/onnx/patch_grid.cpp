// patch_grid (patch_grid.h).
#include "explain/onnx/patch_grid.h"

#include <cmath>

namespace attnlab {

namespace {
int square_side(int n) {
  if (n <= 0) return 0;
  const int g = static_cast<int>(std::lround(std::sqrt(static_cast<double>(n))));
  return g * g == n ? g : 0;
}
}  // namespace

PatchGrid patch_grid(int tokens) {
  PatchGrid p;
  for (int k : {1, 2}) {
    if (const int g = square_side(tokens - k); g > 1) {
      p.class_tokens = k;
      p.grid_h = p.grid_w = g;
      return p;
    }
  }
  p.class_tokens = 1;
  p.grid_h = 1;
  p.grid_w = tokens - 1;
  p.note = "the " + std::to_string(tokens - 1) + " tokens after the class token are not a square patch grid (nor with "
           "a distillation token), so the map is drawn over the token sequence";
  return p;
}

}  // namespace attnlab
