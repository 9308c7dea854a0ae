// Element-wise unary operators, y[k] = f(x[k]), dx[k] = dy[k] · f'(x[k]) (float tensors, any shape):
//   Relu            max(0, x)                      f' = 1 for x > 0 (0 at 0, as PyTorch)
//   LeakyRelu       x > 0 ? x : alpha·x (0.01)     f' = 1 or alpha (alpha at 0)
//   Sigmoid         1 / (1 + e^-x)                 f' = y (1 − y)
//   HardSigmoid     max(0, min(1, alpha·x + beta)) (0.2, 0.5); f' = alpha strictly inside (0, 1)
//   HardSwish       x · HardSigmoid(x; 1/6, 1/2)   f' = 0 (x < −3), x/3 + 1/2 (−3 ≤ x ≤ 3), 1 (x > 3) (PyTorch)
//   Tanh            tanh x                         f' = 1 − y²
//   Erf             erf x                          f' = 2/√π · e^(−x²)
//   Sqrt            √x                             f' = 1 / (2y)
//   Exp, Neg, Abs   (Abs' = sign x, 0 at 0)
//   Sin, Cos, Log, Reciprocal (1/x, f' = −y²), Softplus (ln(1 + eˣ), f' = sigmoid x)
//   Gelu (opset 20) approximate "none": x·Φ(x) = x/2 · (1 + erf(x/√2)), f' = Φ(x) + x·φ(x);
//                   "tanh": x/2 · (1 + tanh u), u = √(2/π)(x + 0.044715 x³),
//                   f' = (1 + tanh u)/2 + x/2 · (1 − tanh² u) · √(2/π)(1 + 3 · 0.044715 x²); another value is refused
//   Identity, Dropout (inference only: y = x; the optional mask output is all true; training_mode = true
//                   is refused)  f' = 1; Identity also passes integer tensors.
//   Clip            min(max(x, lo), hi), lo/hi from attributes (opset < 11) or optional inputs 1, 2;
//                   f' = 1 for lo ≤ x ≤ hi (PyTorch clamp); d lo = Σ dy over x < lo, d hi = Σ dy over x > hi;
//                   lo > hi: every y is hi (the spec's Min(max, Max(x, min))), so d hi = Σ dy, dx = d lo = 0.
#include <cmath>

#include "nn/simd.h"
#include "onnx/ops/common.h"
#include "onnx/ops/parts.h"

namespace attnlab::onnx {
namespace {

struct P {
  double a = 0, b = 0;
};

template <class T>
T gelu_tanh_df(T x) {
  const T k = T(0.7978845608028654), c = T(0.044715);
  const T t = std::tanh(k * (x + c * x * x * x));
  return T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * k * (T(1) + T(3) * c * x * x);
}

#define UNARY_OP(NAME, PARAMS, F, DF)                                    \
  struct NAME {                                                          \
    static P params(const Node& n) { (void)n; P p; PARAMS; return p; }   \
    template <class T> static T f(T x, const P& p) { (void)p; return F; } \
    template <class T> static T df(T x, T y, const P& p) { (void)p; (void)x; (void)y; return DF; } \
  };

UNARY_OP(Relu, , x > T(0) ? x : T(0), x > T(0) ? T(1) : T(0))
UNARY_OP(LeakyRelu, p.a = n.attr_float("alpha", 0.01f), x > T(0) ? x : T(p.a) * x, x > T(0) ? T(1) : T(p.a))
UNARY_OP(Sigmoid, , x >= T(0) ? T(1) / (T(1) + std::exp(-x)) : std::exp(x) / (T(1) + std::exp(x)), y * (T(1) - y))
UNARY_OP(HardSigmoid, (p.a = n.attr_float("alpha", 0.2f), p.b = n.attr_float("beta", 0.5f)),
         std::max(T(0), std::min(T(1), T(p.a) * x + T(p.b))),
         (T(p.a) * x + T(p.b) > T(0) && T(p.a) * x + T(p.b) < T(1)) ? T(p.a) : T(0))
UNARY_OP(HardSwish, , x * std::max(T(0), std::min(T(1), x / T(6) + T(0.5))),
         x < T(-3) ? T(0) : x <= T(3) ? x / T(3) + T(0.5) : T(1))
UNARY_OP(Tanh, , std::tanh(x), T(1) - y * y)
UNARY_OP(Erf, , std::erf(x), T(1.1283791670955126) * std::exp(-x * x))
UNARY_OP(Sqrt, , std::sqrt(x), T(0.5) / y)
UNARY_OP(Exp, , std::exp(x), y)
UNARY_OP(Neg, , -x, T(-1))
UNARY_OP(Abs, , std::abs(x), x > T(0) ? T(1) : x < T(0) ? T(-1) : T(0))
UNARY_OP(Sin, , std::sin(x), std::cos(x))
UNARY_OP(Cos, , std::cos(x), -std::sin(x))
UNARY_OP(Log, , std::log(x), T(1) / x)
UNARY_OP(Reciprocal, , T(1) / x, -y * y)
UNARY_OP(Softplus, , x > T(20) ? x : std::log1p(std::exp(x)),
         x >= T(0) ? T(1) / (T(1) + std::exp(-x)) : std::exp(x) / (T(1) + std::exp(x)))
// p.a = 1: the tanh approximation.
UNARY_OP(Gelu, p.a = n.attr_string("approximate", "none") == "tanh",
         p.a ? T(0.5) * x * (T(1) + std::tanh(T(0.7978845608028654) * (x + T(0.044715) * x * x * x)))
             : T(0.5) * x * (T(1) + std::erf(x * T(0.7071067811865476))),
         p.a ? gelu_tanh_df(x) : T(0.5) * (T(1) + std::erf(x * T(0.7071067811865476))) +
                                     x * T(0.3989422804014327) * std::exp(T(-0.5) * x * x))
#undef UNARY_OP

// Whole-tensor forms on four lanes (nn/simd.h: the rational / polynomial approximations Eigen's packet math uses,
// a few ulp from the std:: functions) for the operators transformers run at every position (SiLU's Sigmoid,
// GPT-2's Tanh GELU, BERT's Erf GELU). Every element gets the same value wherever it lies (the tail goes
// through a padded lane set), so results do not depend on a tensor's length or alignment. Float only; other
// operators and double take the per-element loop (the overload on const void*).
// (simd::exp, tanh and erf clamp their input, so a NaN is put back where it came in, as the std:: forms keep it.)
inline bool whole_tensor(const Sigmoid*, const float* x, float* y, long n) {
  using namespace simd;
  map4(x, nullptr, y, n, [](v4 v) { return v == v ? splat(1.f) / (splat(1.f) + simd::exp(-v)) : v; });
  return true;
}
inline bool whole_tensor(const Tanh*, const float* x, float* y, long n) {
  simd::map4(x, nullptr, y, n, [](simd::v4 v) { return v == v ? simd::tanh(v) : v; });
  return true;
}
inline bool whole_tensor(const Erf*, const float* x, float* y, long n) {
  simd::map4(x, nullptr, y, n, [](simd::v4 v) { return v == v ? simd::erf(v) : v; });
  return true;
}
template <class T>
bool whole_tensor(const void*, const T*, T*, long) {
  return false;
}

template <class Op, class T>
std::string unary_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1); !e.empty()) return e;
  const P p = Op::params(n);
  const Tensor<T>& x = *in[0];
  out[0] = Tensor<T>::uninit(x.shape);  // every element written below
  const T* xs = x.f.data();
  T* ys = out[0].f.data();
  // in parts on the core's threads (ops/parts.h); the four-lane forms give an element the same value in any range
  for_parts(static_cast<int64_t>(x.f.size()), kElementWork, [&](int64_t b, int64_t e) {
    if (whole_tensor(static_cast<const Op*>(nullptr), xs + b, ys + b, static_cast<long>(e - b))) return;
    for (int64_t k = b; k < e; ++k) ys[k] = Op::f(xs[k], p);
  });
  return "";
}
template <class Op, class T>
std::string unary_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>& out,
                      const std::vector<const Tensor<T>*>& dout, const std::vector<bool>& need, std::vector<Tensor<T>>& din) {
  const P p = Op::params(n);
  const Tensor<T>& x = *in[0];
  if (!need[0] || !dout[0]) {
    din[0] = Tensor<T>::floats(x.shape);
    return "";
  }
  din[0] = Tensor<T>::uninit(x.shape);  // every element written below
  const auto& y = out[0]->f;
  const auto& g = dout[0]->f;
  T* d = din[0].f.data();
  for_parts(static_cast<int64_t>(x.f.size()), kElementWork, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) d[k] = g[k] * Op::df(x.f[k], y[k], p);
  });
  return "";
}

template <class T>
std::string identity_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1, false); !e.empty()) return e;
  if (n.op_type == "Dropout") {
    if (in.size() > 2 && in[2] && in[2]->numel() == 1 && in[2]->at(0) != 0)
      return "training_mode = true is not supported (inference only)";
    if (n.opset < 7 && n.attr_int("is_test", 0) == 0) return "training mode (is_test = 0) is not supported";
  }
  out[0] = *in[0];
  if (out.size() > 1) {  // Dropout's mask: nothing dropped
    out[1] = Tensor<T>::ints(in[0]->shape, kBool);
    std::fill(out[1].i.begin(), out[1].i.end(), 1);
  }
  return "";
}
template <class T>
std::string identity_bwd(const Node&, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>&,
                         const std::vector<const Tensor<T>*>& dout, const std::vector<bool>&, std::vector<Tensor<T>>& din) {
  din[0] = dout[0] ? *dout[0] : Tensor<T>::floats(in[0]->shape);
  return "";
}

template <class T>
void clip_bounds(const Node& n, const std::vector<const Tensor<T>*>& in, T* lo, T* hi) {
  *lo = -std::numeric_limits<T>::infinity();
  *hi = std::numeric_limits<T>::infinity();
  if (n.opset < 11) {
    if (n.attr("min")) *lo = T(n.attr_float("min", 0));
    if (n.attr("max")) *hi = T(n.attr_float("max", 0));
    return;
  }
  if (in.size() > 1 && in[1] && in[1]->numel() == 1) *lo = static_cast<T>(in[1]->at(0));
  if (in.size() > 2 && in[2] && in[2]->numel() == 1) *hi = static_cast<T>(in[2]->at(0));
}
template <class T>
std::string clip_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  if (auto e = check_inputs(n, in, 1, false); !e.empty()) return e;
  for (size_t k = 1; k < in.size() && k < 3; ++k)
    if (in[k] && in[k]->numel() != 1) return "min and max must be scalars";
  T lo, hi;
  clip_bounds(n, in, &lo, &hi);
  const Tensor<T>& x = *in[0];
  if (x.is_float()) {
    out[0] = Tensor<T>::uninit(x.shape);  // every element written below
    const T* xs = x.f.data();
    T* ys = out[0].f.data();
    for_parts(static_cast<int64_t>(x.f.size()), kElementWork, [&](int64_t b, int64_t e) {
      for (int64_t k = b; k < e; ++k) ys[k] = std::min(std::max(xs[k], lo), hi);
    });
  } else {
    out[0] = x;
    for (auto& v : out[0].i) v = saturate_i64(static_cast<double>(std::min(std::max(static_cast<T>(v), lo), hi)));
  }
  return "";
}
template <class T>
std::string clip_bwd(const Node& n, const std::vector<const Tensor<T>*>& in, const std::vector<const Tensor<T>*>&,
                     const std::vector<const Tensor<T>*>& dout, const std::vector<bool>& need, std::vector<Tensor<T>>& din) {
  T lo, hi;
  clip_bounds(n, in, &lo, &hi);
  const Tensor<T>& x = *in[0];
  // y = min(max(x, lo), hi): where y is hi (every y when lo > hi), where it is lo, else x
  enum Side { kX, kLo, kHi };
  const auto side = [&](T v) { return std::max(v, lo) > hi ? kHi : v < lo ? kLo : kX; };
  if (!(need.size() > 1 && need[1]) && !(need.size() > 2 && need[2])) {  // the bounds are constants: dx alone, in parts
    if (!dout[0]) {
      din[0] = Tensor<T>::floats(x.shape);
      return "";
    }
    din[0] = Tensor<T>::uninit(x.shape);  // every element written below
    const T *xs = x.f.data(), *gs = dout[0]->f.data();
    T* d = din[0].f.data();
    // side(v) == kX (max(v, lo) is v where !(v < lo)) as a select between two loaded values, with the bounds and
    // pointers in locals: the form with a conditional load of gs[k] compiled to data-dependent jumps with the bounds
    // reloaded after every store — 30× the forward's time natively, 9 % of MobileNetV2's SmoothGrad in wasm.
    for_parts(static_cast<int64_t>(x.f.size()), kElementWork, [&](int64_t b, int64_t e) {
      const T l = lo, h = hi;
      const T *xv = xs, *gv = gs;
      T* dv = d;
      for (int64_t k = b; k < e; ++k) {
        const T v = xv[k], g = gv[k];
        dv[k] = (!(v < l) & !(v > h)) ? g : T(0);
      }
    });
    return "";
  }
  din[0] = Tensor<T>::floats(x.shape);  // written where y is x alone
  T dlo = 0, dhi = 0;
  for (size_t k = 0; k < x.f.size(); ++k) {
    const T g = dout[0] ? dout[0]->f[k] : T(0);
    switch (side(x.f[k])) {
      case kHi: dhi += g; break;
      case kLo: dlo += g; break;
      case kX: din[0].f[k] = g; break;
    }
  }
  if (need.size() > 1 && need[1]) din[1] = Tensor<T>::floats(in[1]->shape, dlo);
  if (need.size() > 2 && need[2]) din[2] = Tensor<T>::floats(in[2]->shape, dhi);
  return "";
}

template <class Op, class T>
OpEntry<T> entry() {
  return {&unary_fwd<Op, T>, &unary_bwd<Op, T>, 1};
}

template <class T>
std::string gelu_fwd(const Node& n, const std::vector<const Tensor<T>*>& in, std::vector<Tensor<T>>& out) {
  const std::string approximate = n.attr_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return "approximate '" + approximate + "' is not one of the spec's (\"none\", \"tanh\")";
  return unary_fwd<Gelu, T>(n, in, out);
}

}  // namespace

template <class T>
void register_unary_ops(OpRegistry<T>& r) {
  r["Relu"] = entry<Relu, T>();
  r["LeakyRelu"] = entry<LeakyRelu, T>();
  r["Sigmoid"] = entry<Sigmoid, T>();
  r["HardSigmoid"] = entry<HardSigmoid, T>();
  r["HardSwish"] = entry<HardSwish, T>();
  r["Tanh"] = entry<Tanh, T>();
  r["Erf"] = entry<Erf, T>();
  r["Sqrt"] = entry<Sqrt, T>();
  r["Exp"] = entry<Exp, T>();
  r["Neg"] = entry<Neg, T>();
  r["Abs"] = entry<Abs, T>();
  r["Sin"] = entry<Sin, T>();
  r["Cos"] = entry<Cos, T>();
  r["Log"] = entry<Log, T>();
  r["Reciprocal"] = entry<Reciprocal, T>();
  r["Softplus"] = entry<Softplus, T>();
  r["Gelu"] = {&gelu_fwd<T>, &unary_bwd<Gelu, T>, 20};
  r["Identity"] = {&identity_fwd<T>, &identity_bwd<T>, 1};
  r["Dropout"] = {&identity_fwd<T>, &identity_bwd<T>, 6};
  r["Clip"] = {&clip_fwd<T>, &clip_bwd<T>, 6};
}
template void register_unary_ops<float>(OpRegistry<float>&);
template void register_unary_ops<double>(OpRegistry<double>&);

}  // namespace attnlab::onnx
