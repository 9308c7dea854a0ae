// ReduceMean and ReduceSum over `axes` (attribute; an input from opset 18 for ReduceMean, 13 for
// ReduceSum), keepdims (default 1), noop_with_empty_axes (empty axes = all axes unless set).
// dX[k] = dY[reduced index of k] (÷ the number of reduced cells for the mean).
#include "onnx/ops/common.h"
#include "onnx/ops/parts.h"

namespace attnlab::onnx {
namespace {

template <class T>
std::string reduce_shape(const Node& n, const std::vector<const Tensor<T>*>& in, Shape* kshape, Shape* oshape, int64_t* count, bool* noop) {
  const Tensor<T>& x = *in[0];
  const int input_axes_from = n.op_type == "ReduceSum" ? 13 : 18;
  std::vector<int64_t> axes;
  if (n.opset >= input_axes_from) {
    if (in.size() > 1 && in[1]) axes = as_ints(*in[1]);
  } else {
    axes = n.attr_ints("axes");
  }
  *noop = axes.empty() && n.attr_int("noop_with_empty_axes", 0) != 0;
  const bool keep = n.attr_int("keepdims", 1) != 0;
  std::vector<char> red(x.shape.size(), axes.empty() && !*noop);
  for (int64_t a : axes) {
    int64_t ax;
    if (!norm_axis(a, x.rank(), &ax)) return "axis " + std::to_string(a) + " out of range for " + shape_str(x.shape);
    red[ax] = 1;
  }
  *kshape = x.shape;
  oshape->clear();
  *count = 1;
  for (size_t k = 0; k < x.shape.size(); ++k) {
    if (red[k]) {
      *count *= x.shape[k];
      (*kshape)[k] = 1;
      if (keep) oshape->push_back(1);
    } else {
      oshape->push_back(x.shape[k]);
    }
  }
  return "";
}

template <class T>
std::string reduce_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1); !e.empty()) return e;
  Shape ks, os;
  int64_t count;
  bool noop;
  if (auto e = reduce_shape(n, in, &ks, &os, &count, &noop); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  if (noop) {
    out[0] = x;
    return "";
  }
  const bool mean = n.op_type == "ReduceMean" && count > 0;
  // The reduced axes a tail of x's (a norm's last axis): each output is the sum of one contiguous run, in order —
  // the same sum as the general loop's — so the outputs run in parts on the core's threads (ops/parts.h).
  bool tail = true, seen = false;
  for (size_t k = 0; k < ks.size(); ++k) {
    if (ks[k] != x.shape[k]) seen = true;       // a reduced axis (of size > 1)
    else if (seen && ks[k] != 1) tail = false;  // a kept axis of size > 1 after one
  }
  if (tail && count > 0) {
    out[0] = Tensor<T>::uninit(os);  // every output written below
    const int64_t outs = out[0].numel();
    T* o = out[0].f.data();
    for_parts(outs, count * kElementWork, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* xr = x.f.data() + r * count;
        T acc = 0;
        for (int64_t j = 0; j < count; ++j) acc += xr[j];
        o[r] = mean ? acc / T(count) : acc;
      }
    });
    return "";
  }
  out[0] = Tensor<T>::floats(os);
  const Shape sk = broadcast_strides(ks, x.shape), zero(x.shape.size(), 0);
  broadcast_loop2(x.shape, sk, zero, [&](int64_t k, int64_t io, int64_t) { out[0].f[io] += x.f[k]; });
  if (mean)
    for (auto& v : out[0].f) v /= T(count);
  return "";
}

template <class T>
std::string reduce_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>&,
                       const std::vector<const Tensor<T>*>& dout, const std::vector<bool>&, std::vector<Tensor<T>>& din) {
  Shape ks, os;
  int64_t count;
  bool noop;
  if (auto e = reduce_shape(n, in, &ks, &os, &count, &noop); !e.empty()) return e;
  const Tensor<T>& x = *in[0];
  if (noop) {
    din[0] = *dout[0];
    return "";
  }
  din[0] = Tensor<T>::floats(x.shape);
  const T scale = n.op_type == "ReduceMean" && count > 0 ? T(1) / T(count) : T(1);
  const Shape sk = broadcast_strides(ks, x.shape), zero(x.shape.size(), 0);
  broadcast_loop2(x.shape, sk, zero, [&](int64_t k, int64_t io, int64_t) { din[0].f[k] = dout[0]->f[io] * scale; });
  return "";
}

}  // namespace

template <class T>
void register_reduce_ops(OpRegistry<T>& r) {
  r["ReduceMean"] = {&reduce_fwd<T>, &reduce_bwd<T>, 1};
  r["ReduceSum"] = {&reduce_fwd<T>, &reduce_bwd<T>, 1};
}
template void register_reduce_ops<float>(OpRegistry<float>&);
template void register_reduce_ops<double>(OpRegistry<double>&);

}  // namespace attnlab::onnx
