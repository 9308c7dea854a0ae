// Sliding-window geometry shared by Conv and the pools: 1-D and 2-D spatial inputs (a 1-D input is treated
// as H = 1), kernel_shape, strides, dilations, pads [begin..., end...] or auto_pad (NOTSET, VALID,
// SAME_UPPER, SAME_LOWER), ceil_mode for pools.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "onnx/model.h"

namespace attnlab::onnx {

struct Window2d {
  int64_t H = 1, W = 1;            // input
  int64_t kh = 1, kw = 1;          // kernel
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pt = 0, pl = 0, pb = 0, pr = 0;  // pads top, left, bottom, right
  int64_t Ho = 1, Wo = 1;          // output
  int spatial = 2;                 // 1 or 2
};

// Fills g from the node's attributes for an input of `spatial` dims (1 or 2) of sizes in[0..spatial) and a
// kernel of sizes k[0..spatial). ceil_mode: pools only. Returns "" or a message.
std::string window_geometry(const Node& n, int spatial, const int64_t* in, const int64_t* k, bool allow_ceil, Window2d* g);

// For kernel column j, the outputs ox whose input column ix = ox·sw − pl + j·dw lies inside x form one range
// [lo, hi) — the same for every row — so a window loop can run tap by tap over it with no bounds test per element
// (Conv's im2col and depthwise loop, the pools).
struct TapRange {
  int64_t lo, hi, off;  // ox in [lo, hi) reads x column ox·sw + off
};
inline std::vector<TapRange> tap_ranges(const Window2d& g) {
  std::vector<TapRange> r(static_cast<size_t>(g.kw));
  for (int64_t j = 0; j < g.kw; ++j) {
    const int64_t off = j * g.dw - g.pl;
    const int64_t lo = std::min(g.Wo, off >= 0 ? 0 : (-off + g.sw - 1) / g.sw);  // 0 ≤ lo ≤ hi ≤ Wo
    const int64_t last = g.W - 1 - off;  // ox·sw ≤ last
    const int64_t hi = last < 0 ? 0 : std::min(g.Wo, last / g.sw + 1);
    r[static_cast<size_t>(j)] = {lo, std::max(lo, hi), off};
  }
  return r;
}

// Calls f(i, j, iy, t) for every kernel tap (i, j) of output row oy whose input row iy lies inside x, in the order
// (i, j); t = taps[j] (the outputs of the row that tap reads inside x). The depthwise loops and the pools' forward.
template <class F>
inline void for_row_taps(const Window2d& g, const std::vector<TapRange>& taps, int64_t oy, F&& f) {
  for (int64_t i = 0; i < g.kh; ++i) {
    const int64_t iy = oy * g.sh - g.pt + i * g.dh;
    if (iy < 0 || iy >= g.H) continue;
    for (int64_t j = 0; j < g.kw; ++j) f(i, j, iy, taps[static_cast<size_t>(j)]);
  }
}

}  // namespace attnlab::onnx
