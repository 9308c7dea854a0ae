// Sliding-window geometry (see window.h).
#include "onnx/ops/window.h"

namespace attnlab::onnx {

std::string window_geometry(const Node& n, int spatial, const int64_t* in, const int64_t* k, bool allow_ceil, Window2d* g) {
  if (spatial < 1 || spatial > 2) return "only 1-D and 2-D windows are supported, got " + std::to_string(spatial) + "-D";
  const auto strides = n.attr_ints("strides", std::vector<int64_t>(spatial, 1));
  const auto dil = n.attr_ints("dilations", std::vector<int64_t>(spatial, 1));
  auto pads = n.attr_ints("pads", std::vector<int64_t>(2 * spatial, 0));
  const std::string auto_pad = n.attr_string("auto_pad", "NOTSET");
  const bool ceil_mode = allow_ceil && n.attr_int("ceil_mode", 0) != 0;
  if (static_cast<int>(strides.size()) != spatial || static_cast<int>(dil.size()) != spatial ||
      static_cast<int>(pads.size()) != 2 * spatial)
    return "strides, dilations and pads must have " + std::to_string(spatial) + ", " + std::to_string(spatial) + " and " +
           std::to_string(2 * spatial) + " entries";
  int64_t out[2] = {1, 1}, pb[2] = {0, 0}, pe[2] = {0, 0};
  for (int d = 0; d < spatial; ++d) {
    if (strides[d] < 1 || dil[d] < 1 || k[d] < 1) return "strides, dilations and kernel sizes must be ≥ 1";
    const int64_t big = int64_t(1) << 24;
    if (strides[d] > big || dil[d] > big || k[d] > big || pads[d] > big || pads[d + spatial] > big || in[d] > big)
      return "window sizes, strides, dilations or pads too large";
    const int64_t ek = (k[d] - 1) * dil[d] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out[d] = (in[d] + strides[d] - 1) / strides[d];
      const int64_t total = std::max<int64_t>(0, (out[d] - 1) * strides[d] + ek - in[d]);
      pb[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pe[d] = total - pb[d];
    } else if (auto_pad == "VALID") {
      out[d] = in[d] >= ek ? (in[d] - ek) / strides[d] + 1 : 0;
      if (ceil_mode && in[d] >= ek) out[d] = (in[d] - ek + strides[d] - 1) / strides[d] + 1;
    } else if (auto_pad == "NOTSET" || auto_pad.empty()) {
      pb[d] = pads[d];
      pe[d] = pads[d + spatial];
      if (pb[d] < 0 || pe[d] < 0) return "negative pads are not supported";
      const int64_t span = in[d] + pb[d] + pe[d] - ek;
      if (span < 0) return "the kernel (" + std::to_string(ek) + ") is larger than the padded input (" +
                           std::to_string(in[d] + pb[d] + pe[d]) + ")";
      out[d] = (ceil_mode ? (span + strides[d] - 1) / strides[d] : span / strides[d]) + 1;
      // PyTorch / ONNX rule: the last window must start inside the input or the begin padding.
      if (ceil_mode && (out[d] - 1) * strides[d] >= in[d] + pb[d]) --out[d];
    } else {
      return "unknown auto_pad '" + auto_pad + "'";
    }
    if (out[d] < 1) return "the output would be empty";
  }
  g->spatial = spatial;
  if (spatial == 1) {
    *g = Window2d();
    g->spatial = 1;
    g->W = in[0]; g->kw = k[0]; g->sw = strides[0]; g->dw = dil[0]; g->pl = pb[0]; g->pr = pe[0]; g->Wo = out[0];
  } else {
    g->H = in[0]; g->W = in[1]; g->kh = k[0]; g->kw = k[1]; g->sh = strides[0]; g->sw = strides[1];
    g->dh = dil[0]; g->dw = dil[1]; g->pt = pb[0]; g->pl = pb[1]; g->pb = pe[0]; g->pr = pe[1];
    g->Ho = out[0]; g->Wo = out[1];
  }
  return "";
}

}  // namespace attnlab::onnx
