// Operators that move values: every output element reads one input element (or a pad constant), so
// forward is a gather through an index map and backward the matching scatter-add.
//   Transpose (perm, default reversed), Slice (starts/ends/axes/steps inputs from opset 10, attributes
//   before; ONNX clamping rules incl. negative steps), Gather (axis; negative indices; float or int data),
//   Pad (constant / reflect / edge; pads and constant_value inputs from opset 11, attributes before; opset-18
//   axes; negative pads refused), Concat (axis; float or int), Split (split input from 13, attribute
//   before; equal parts otherwise, the last smaller for opset-18 num_outputs).
// Transpose copies directly (tiled) instead of through a map; its backward is the inverse permutation.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "nn/simd.h"
#include "onnx/ops/common.h"

namespace attnlab::onnx {
namespace {

// Calls f(k, idx) for every output index in row-major order.
template <class F>
void for_each_index(const Shape& s, F&& f) {
  const int64_t n = shape_numel(s);
  std::vector<int64_t> idx(s.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    f(k, idx);
    for (int d = static_cast<int>(s.size()) - 1; d >= 0; --d) {
      if (++idx[d] < s[d]) break;
      idx[d] = 0;
    }
  }
}

// out[k] = map[k] >= 0 ? in[map[k]] : fill
template <class T>
Tensor<T> gather_by_map(const Tensor<T>& x, const Shape& os, const std::vector<int64_t>& map, double fill = 0) {
  const bool every = static_cast<int64_t>(map.size()) == shape_numel(os);  // then every element is written below
  Tensor<T> y = !x.is_float() ? Tensor<T>::ints(os, x.dtype) : every ? Tensor<T>::uninit(os) : Tensor<T>::floats(os);
  for (size_t k = 0; k < map.size(); ++k) {
    if (x.is_float()) y.f[k] = map[k] >= 0 ? x.f[map[k]] : T(fill);
    else y.i[k] = map[k] >= 0 ? x.i[map[k]] : saturate_i64(fill);
  }
  return y;
}
template <class T>
Tensor<T> scatter_by_map(const Shape& in_shape, const Tensor<T>& g, const std::vector<int64_t>& map) {
  Tensor<T> d = Tensor<T>::floats(in_shape);
  for (size_t k = 0; k < map.size(); ++k)
    if (map[k] >= 0) d.f[map[k]] += g.f[k];
  return d;
}

// Each operator: a function computing (output shape, map) from the node and inputs.
template <class T>
using MapFn = std::string (*)(const Node&, const std::vector<const Tensor<T>*>&, Shape*, std::vector<int64_t>*, double*);

// Transpose's permutation (default: reversed), checked.
std::string transpose_perm(const Node& n, int r, std::vector<int64_t>* perm) {
  *perm = n.attr_ints("perm");
  if (perm->empty())
    for (int k = r - 1; k >= 0; --k) perm->push_back(k);
  if (static_cast<int>(perm->size()) != r) return "perm has " + std::to_string(perm->size()) + " entries for rank " + std::to_string(r);
  std::vector<char> seen(r, 0);
  for (int64_t p : *perm) {
    if (p < 0 || p >= r || seen[p]) return "perm is not a permutation";
    seen[p] = 1;
  }
  return "";
}

// y = x with its axes permuted (out axis k is x's axis perm[k]), copied directly — no index map: a language model's
// [1, V, T] → [1, T, V] logits are millions of elements a pass. The output's last axis and the axis that reads x
// contiguously are copied in 32 × 32 tiles, so both sides touch whole cache lines (floats in 4 × 4 blocks on four
// lanes, nn/simd.h transpose4); the other axes are an odometer.
template <class Vec>
void transpose_copy(const Vec& x, const Shape& xs, const std::vector<int64_t>& perm, Vec& y) {
  const int r = static_cast<int>(xs.size());
  Shape os(r);
  for (int k = 0; k < r; ++k) os[k] = xs[perm[k]];
  y.resize(static_cast<size_t>(shape_numel(os)));
  if (y.empty()) return;
  if (r == 0) {
    y[0] = x[0];
    return;
  }
  const Shape xst = strides_of(xs), ost = strides_of(os);
  std::vector<int64_t> in_st(r);  // x's stride along out axis k
  for (int k = 0; k < r; ++k) in_st[k] = xst[perm[k]];
  const int last = r - 1;
  int j = last;  // the out axis that walks x contiguously (x's last axis), if any
  for (int k = 0; k < r; ++k)
    if (perm[k] == r - 1 && os[k] > 1) j = k;
  const int64_t nl = os[last], nj = j == last ? 1 : os[j];
  const int64_t sl = in_st[last], sj = j == last ? 0 : in_st[j], oj = j == last ? 0 : ost[j];
  std::vector<int64_t> idx(r, 0);
  constexpr int64_t kTile = 32;
  for (;;) {
    int64_t xo = 0, yo = 0;  // offsets of the other axes
    for (int k = 0; k < r; ++k)
      if (k != last && k != j) {
        xo += idx[k] * in_st[k];
        yo += idx[k] * ost[k];
      }
    if (j == last) {
      for (int64_t c = 0; c < nl; ++c) y[yo + c] = x[xo + c * sl];
    } else {
      for (int64_t a0 = 0; a0 < nj; a0 += kTile)
        for (int64_t c0 = 0; c0 < nl; c0 += kTile) {
          const int64_t a1 = std::min(nj, a0 + kTile), c1 = std::min(nl, c0 + kTile);
          int64_t a = a0;
          if constexpr (std::is_same_v<typename Vec::value_type, float>) {
            // 4 × 4 blocks through registers (sj = 1: x's rows c hold a contiguously): four loads of x's rows, one
            // transpose, four stores of y's rows; the tile's ragged edges element by element below.
            const float* xp = x.data() + xo;
            float* yp = y.data() + yo;
            for (; a + 4 <= a1; a += 4) {
              int64_t c = c0;
              for (; c + 4 <= c1; c += 4) {
                simd::v4 r0 = simd::load(xp + a + c * sl), r1 = simd::load(xp + a + (c + 1) * sl);
                simd::v4 r2 = simd::load(xp + a + (c + 2) * sl), r3 = simd::load(xp + a + (c + 3) * sl);
                simd::transpose4(r0, r1, r2, r3);  // r_q: y's row a + q at columns c .. c + 3
                simd::store(yp + a * oj + c, r0);
                simd::store(yp + (a + 1) * oj + c, r1);
                simd::store(yp + (a + 2) * oj + c, r2);
                simd::store(yp + (a + 3) * oj + c, r3);
              }
              for (; c < c1; ++c)
                for (int64_t q = a; q < a + 4; ++q) yp[q * oj + c] = xp[q + c * sl];
            }
          }
          for (; a < a1; ++a)
            for (int64_t c = c0; c < c1; ++c) y[yo + a * oj + c] = x[xo + a * sj + c * sl];
        }
    }
    int k = last - 1;
    for (; k >= 0; --k) {
      if (k == j) continue;
      if (++idx[k] < os[k]) break;
      idx[k] = 0;
    }
    if (k < 0) break;
  }
}

template <class T>
std::string transpose_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1, false); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  std::vector<int64_t> perm;
  if (auto e = transpose_perm(n, x.rank(), &perm); !e.empty()) return e;
  Tensor<T> y;
  y.dtype = x.dtype;
  y.shape.resize(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) y.shape[k] = x.shape[perm[k]];
  if (x.is_float()) transpose_copy(x.f, x.shape, perm, y.f);
  else transpose_copy(x.i, x.shape, perm, y.i);
  out[0] = std::move(y);
  return "";
}
// A permutation moves each element once: dx is dy transposed back (the inverse permutation).
template <class T>
std::string transpose_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>&,
                          const std::vector<const Tensor<T>*>& dout, const std::vector<bool>&, std::vector<Tensor<T>>& din) {
  std::vector<int64_t> perm;
  if (auto e = transpose_perm(n, in[0]->rank(), &perm); !e.empty()) return e;
  std::vector<int64_t> inv(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) inv[static_cast<size_t>(perm[k])] = static_cast<int64_t>(k);
  Tensor<T> d;
  d.dtype = kFloat;
  d.shape = in[0]->shape;
  transpose_copy(dout[0]->f, dout[0]->shape, inv, d.f);
  din[0] = std::move(d);
  return "";
}

template <class T>
std::string slice_map(const Node& n, const std::vector<const Tensor<T>*>& in, Shape* os, std::vector<int64_t>* map, double*) {
  const Tensor<T>& x = *in[0];
  const int r = x.rank();
  std::vector<int64_t> starts, ends, axes, steps;
  if (n.opset < 10) {
    starts = n.attr_ints("starts");
    ends = n.attr_ints("ends");
    axes = n.attr_ints("axes");
  } else {
    if (in.size() < 3 || !in[1] || !in[2]) return "starts and ends are required";
    starts = as_ints(*in[1]);
    ends = as_ints(*in[2]);
    if (in.size() > 3 && in[3]) axes = as_ints(*in[3]);
    if (in.size() > 4 && in[4]) steps = as_ints(*in[4]);
  }
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    return "starts, ends, axes and steps differ in length";
  std::vector<int64_t> b(r, 0), s(r, 1);
  *os = x.shape;
  std::vector<char> seen(r, 0);
  for (size_t k = 0; k < starts.size(); ++k) {
    int64_t ax;
    if (!norm_axis(axes[k], r, &ax) || seen[ax]) return "bad or repeated axis " + std::to_string(axes[k]);
    seen[ax] = 1;
    const int64_t dim = x.shape[ax];
    // A step of INT64_MIN has no negation; −INT64_MAX takes the same single element.
    const int64_t step = steps[k] == std::numeric_limits<int64_t>::min() ? -std::numeric_limits<int64_t>::max() : steps[k];
    if (step == 0) return "step 0";
    int64_t st = starts[k], en = ends[k];
    if (st < 0) st += dim;  // st < 0 and dim ≥ 0: no overflow
    if (en < 0) en += dim;
    if (step > 0) {
      st = std::min(std::max<int64_t>(st, 0), dim);
      en = std::min(std::max<int64_t>(en, 0), dim);
      (*os)[ax] = en > st ? (en - st - 1) / step + 1 : 0;
    } else {
      st = std::min(std::max<int64_t>(st, -1), dim - 1);
      en = std::min(std::max<int64_t>(en, -1), dim - 1);
      (*os)[ax] = st > en ? (st - en - 1) / (-step) + 1 : 0;
    }
    b[ax] = st;
    s[ax] = step;
  }
  const Shape xs = strides_of(x.shape);
  map->resize(static_cast<size_t>(shape_numel(*os)));
  for_each_index(*os, [&](int64_t k, const std::vector<int64_t>& idx) {
    int64_t off = 0;
    for (int d = 0; d < r; ++d) off += (b[d] + idx[d] * s[d]) * xs[d];
    (*map)[k] = off;
  });
  return "";
}

template <class T>
std::string gather_map(const Node& n, const std::vector<const Tensor<T>*>& in, Shape* os, std::vector<int64_t>* map, double*) {
  if (in.size() < 2 || !in[1]) return "indices are required";
  const Tensor<T>&x = *in[0], &ind = *in[1];
  if (ind.is_float()) return "indices must be an integer tensor";
  int64_t ax;
  if (!norm_axis(n.attr_int("axis", 0), x.rank(), &ax)) return "axis out of range for " + shape_str(x.shape);
  const int64_t dim = x.shape[ax];
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < ax; ++k) outer *= x.shape[k];
  for (int k = static_cast<int>(ax) + 1; k < x.rank(); ++k) inner *= x.shape[k];
  os->assign(x.shape.begin(), x.shape.begin() + ax);
  os->insert(os->end(), ind.shape.begin(), ind.shape.end());
  os->insert(os->end(), x.shape.begin() + ax + 1, x.shape.end());
  if (auto e = check_output_size(*os); !e.empty()) return e;  // bounds outer · ni · inner (32-bit size_t too)
  const int64_t ni = ind.numel();
  map->resize(static_cast<size_t>(outer * ni * inner));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t q = 0; q < ni; ++q) {
      int64_t j = ind.i[q];
      if (j < 0) j += dim;
      if (j < 0 || j >= dim) return "index " + std::to_string(ind.i[q]) + " out of range for axis of size " + std::to_string(dim);
      for (int64_t i = 0; i < inner; ++i) (*map)[(o * ni + q) * inner + i] = (o * dim + j) * inner + i;
    }
  return "";
}

template <class T>
std::string pad_map(const Node& n, const std::vector<const Tensor<T>*>& in, Shape* os, std::vector<int64_t>* map, double* fill) {
  const Tensor<T>& x = *in[0];
  const int r = x.rank();
  std::vector<int64_t> pads;
  *fill = 0;
  if (n.opset < 11) {
    pads = n.attr_ints("pads");
    *fill = n.attr_float("value", 0.f);
  } else {
    if (in.size() < 2 || !in[1]) return "pads are required";
    pads = as_ints(*in[1]);
    if (in.size() > 2 && in[2] && in[2]->numel() == 1) *fill = in[2]->at(0);
  }
  std::vector<int64_t> axes;
  if (in.size() > 3 && in[3]) axes = as_ints(*in[3]);
  else for (int k = 0; k < r; ++k) axes.push_back(k);
  if (pads.size() != 2 * axes.size()) return "pads must have 2 × (number of axes) entries";
  std::vector<int64_t> pb(r, 0), pe(r, 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t ax;
    if (!norm_axis(axes[k], r, &ax)) return "bad axis";
    pb[ax] = pads[k];
    pe[ax] = pads[k + axes.size()];
    if (pb[ax] < 0 || pe[ax] < 0) return "negative pads are not supported";
    if (pb[ax] > kMaxOutputElements || pe[ax] > kMaxOutputElements) return "pads too large";
  }
  const std::string mode = n.attr_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") return "mode '" + mode + "' is not supported";
  os->resize(r);
  for (int k = 0; k < r; ++k) {
    (*os)[k] = x.shape[k] + pb[k] + pe[k];
    if (mode == "reflect" && (pb[k] >= x.shape[k] || pe[k] >= x.shape[k]) && (pb[k] || pe[k]))
      return "reflect pads must be smaller than the axis";
    if (mode != "constant" && x.shape[k] == 0 && (pb[k] || pe[k])) return "cannot pad an empty axis";
  }
  if (auto e = check_output_size(*os); !e.empty()) return e;
  const Shape xs = strides_of(x.shape);
  map->resize(static_cast<size_t>(shape_numel(*os)));
  for_each_index(*os, [&](int64_t k, const std::vector<int64_t>& idx) {
    int64_t off = 0;
    for (int d = 0; d < r; ++d) {
      int64_t i = idx[d] - pb[d];
      const int64_t dim = x.shape[d];
      if (i < 0 || i >= dim) {
        if (mode == "constant") { off = -1; break; }
        if (mode == "edge") i = i < 0 ? 0 : dim - 1;
        else i = i < 0 ? -i : 2 * (dim - 1) - i;
      }
      off += i * xs[d];
    }
    (*map)[k] = off;
  });
  return "";
}

template <class T, MapFn<T> M>
std::string mapped_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1, false); !e.empty()) return e;
  Shape os;
  std::vector<int64_t> map;
  double fill = 0;
  if (auto e = M(n, in, &os, &map, &fill); !e.empty()) return e;
  out[0] = gather_by_map(*in[0], os, map, fill);
  return "";
}
template <class T, MapFn<T> M>
std::string mapped_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>&,
                       const std::vector<const Tensor<T>*>& dout, const std::vector<bool>&, std::vector<Tensor<T>>& din) {
  Shape os;
  std::vector<int64_t> map;
  double fill = 0;
  if (auto e = M(n, in, &os, &map, &fill); !e.empty()) return e;
  din[0] = scatter_by_map(in[0]->shape, *dout[0], map);
  return "";
}

// Concat / Split: [outer, axis, inner] blocks.
template <class T>
std::string concat_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (in.empty()) return "Concat needs inputs";
  if (auto e = check_inputs(n, in, in.size(), false); !e.empty()) return e;
  const Tensor<T>& x0 = *in[0];
  int64_t ax;
  if (!norm_axis(n.attr_int("axis", 0), x0.rank(), &ax)) return "axis out of range for " + shape_str(x0.shape);
  Shape os = x0.shape;
  os[ax] = 0;
  for (const auto* t : in) {
    if (t->rank() != x0.rank() || t->is_float() != x0.is_float()) return "inputs differ in rank or type";
    for (int k = 0; k < x0.rank(); ++k)
      if (k != ax && t->shape[k] != x0.shape[k]) return "shapes " + shape_str(x0.shape) + " and " + shape_str(t->shape) + " differ off the axis";
    if (!checked_add(os[ax], t->shape[ax], &os[ax])) return "the concatenated axis overflows";
  }
  if (auto e = check_output_size(os); !e.empty()) return e;
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < ax; ++k) outer *= os[k];
  for (int k = static_cast<int>(ax) + 1; k < x0.rank(); ++k) inner *= os[k];
  out[0] = x0.is_float() ? Tensor<T>::uninit(os) : Tensor<T>::ints(os, x0.dtype);  // the inputs' blocks cover it
  int64_t at = 0;
  for (const auto* t : in) {
    const int64_t blk = t->shape[ax] * inner;
    for (int64_t o = 0; o < outer; ++o) {
      const int64_t dst = o * os[ax] * inner + at * inner;
      if (t->is_float()) std::copy(t->f.begin() + o * blk, t->f.begin() + (o + 1) * blk, out[0].f.begin() + dst);
      else std::copy(t->i.begin() + o * blk, t->i.begin() + (o + 1) * blk, out[0].i.begin() + dst);
    }
    at += t->shape[ax];
  }
  return "";
}
template <class T>
std::string concat_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>& out,
                       const std::vector<const Tensor<T>*>& dout, const std::vector<bool>& need, std::vector<Tensor<T>>& din) {
  int64_t ax;
  norm_axis(n.attr_int("axis", 0), in[0]->rank(), &ax);
  const Shape& os = out[0]->shape;
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < ax; ++k) outer *= os[k];
  for (int k = static_cast<int>(ax) + 1; k < static_cast<int>(os.size()); ++k) inner *= os[k];
  int64_t at = 0;
  for (size_t j = 0; j < in.size(); ++j) {
    const int64_t len = in[j]->shape[ax], blk = len * inner;
    if (need[j]) {
      din[j] = Tensor<T>::uninit(in[j]->shape);  // its blocks cover it
      for (int64_t o = 0; o < outer; ++o) {
        const auto src = dout[0]->f.begin() + o * os[ax] * inner + at * inner;
        std::copy(src, src + blk, din[j].f.begin() + o * blk);
      }
    }
    at += len;
  }
  return "";
}

template <class T>
std::string split_sizes(const Node& n, const std::vector<const Tensor<T>*>& in, int64_t* ax, std::vector<int64_t>* sizes) {
  const Tensor<T>& x = *in[0];
  if (!norm_axis(n.attr_int("axis", 0), x.rank(), ax)) return "axis out of range for " + shape_str(x.shape);
  const int64_t dim = x.shape[*ax];
  if (n.opset >= 13) {
    if (in.size() > 1 && in[1]) *sizes = as_ints(*in[1]);
  } else {
    *sizes = n.attr_ints("split");
  }
  const int64_t parts = static_cast<int64_t>(n.outputs.size());
  if (parts < 1) return "Split needs at least one output";
  if (sizes->empty()) {
    const int64_t num = n.attr_int("num_outputs", parts);
    if (num != parts) return "num_outputs differs from the number of outputs";  // so num ≥ 1
    const int64_t each = n.attr("num_outputs") ? (dim + num - 1) / num : dim / num;
    if (!n.attr("num_outputs") && dim % num) return "axis of size " + std::to_string(dim) + " does not split into " + std::to_string(num) + " equal parts";
    for (int64_t k = 0; k < num; ++k) sizes->push_back(std::min(each, dim - k * each));
  }
  int64_t total = 0;
  for (int64_t s : *sizes) {
    if (s < 0) return "negative split size";
    if (!checked_add(total, s, &total)) return "split sizes overflow";
  }
  if (total != dim || static_cast<int64_t>(sizes->size()) != parts) return "split sizes do not add up to the axis or the outputs";
  return "";
}
template <class T>
std::string split_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1, false); !e.empty()) return e;
  int64_t ax;
  std::vector<int64_t> sizes;
  if (auto e = split_sizes(n, in, &ax, &sizes); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < ax; ++k) outer *= x.shape[k];
  for (int k = static_cast<int>(ax) + 1; k < x.rank(); ++k) inner *= x.shape[k];
  int64_t at = 0;
  for (size_t j = 0; j < sizes.size(); ++j) {
    Shape s = x.shape;
    s[ax] = sizes[j];
    out[j] = x.is_float() ? Tensor<T>::uninit(s) : Tensor<T>::ints(s, x.dtype);  // its blocks cover it
    const int64_t blk = sizes[j] * inner;
    for (int64_t o = 0; o < outer; ++o) {
      const int64_t src = o * x.shape[ax] * inner + at * inner;
      if (x.is_float()) std::copy(x.f.begin() + src, x.f.begin() + src + blk, out[j].f.begin() + o * blk);
      else std::copy(x.i.begin() + src, x.i.begin() + src + blk, out[j].i.begin() + o * blk);
    }
    at += sizes[j];
  }
  return "";
}
template <class T>
std::string split_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>&,
                      const std::vector<const Tensor<T>*>& dout, const std::vector<bool>&, std::vector<Tensor<T>>& din) {
  int64_t ax;
  std::vector<int64_t> sizes;
  if (auto e = split_sizes(n, in, &ax, &sizes); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < ax; ++k) outer *= x.shape[k];
  for (int k = static_cast<int>(ax) + 1; k < x.rank(); ++k) inner *= x.shape[k];
  din[0] = Tensor<T>::floats(x.shape);
  int64_t at = 0;
  for (size_t j = 0; j < sizes.size(); ++j) {
    const int64_t blk = sizes[j] * inner;
    if (dout[j])
      for (int64_t o = 0; o < outer; ++o)
        std::copy(dout[j]->f.begin() + o * blk, dout[j]->f.begin() + (o + 1) * blk,
                  din[0].f.begin() + o * x.shape[ax] * inner + at * inner);
    at += sizes[j];
  }
  return "";
}

}  // namespace

template <class T>
void register_layout_ops(OpRegistry<T>& r) {
  r["Transpose"] = {&transpose_fwd<T>, &transpose_bwd<T>, 1};
  r["Slice"] = {&mapped_fwd<T, &slice_map<T>>, &mapped_bwd<T, &slice_map<T>>, 1};
  r["Gather"] = {&mapped_fwd<T, &gather_map<T>>, &mapped_bwd<T, &gather_map<T>>, 1};
  r["Pad"] = {&mapped_fwd<T, &pad_map<T>>, &mapped_bwd<T, &pad_map<T>>, 2};
  r["Concat"] = {&concat_fwd<T>, &concat_bwd<T>, 4};
  r["Split"] = {&split_fwd<T>, &split_bwd<T>, 2};
}
template void register_layout_ops<float>(OpRegistry<float>&);
template void register_layout_ops<double>(OpRegistry<double>&);

}  // namespace attnlab::onnx
