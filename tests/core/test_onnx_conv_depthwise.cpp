// Conv's depthwise forward (onnx/ops/conv.cpp) against the per-pixel definition — each output's taps inside x summed
// in the order (i, j) from 0, then the bias — in float and double, over the kernels with a register path (3 × 3 and
// 5 × 5 at column stride 1 and 2) and others (3 × 2, a 1 × 3 row), pads none / even / uneven / wider than the kernel,
// dilations, row strides, channel multipliers, batches, and inputs too small for any interior. Each output within
// K² ulps of its sum of |terms|: the order of the terms is the definition's, but where the target has FMA the
// compiler contracts w · x + sum as it chooses (GCC fuses some and not others in vectorised code; WebAssembly has no
// FMA, so there the values are the definition's bits). Negative control: a weight moved by 1e-3 is seen.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "onnx/op.h"
#include "onnx_test_util.h"

namespace attnlab::onnx {
namespace {
namespace depthwise_test {  // a name of its own: the test sources are compiled in unity chunks

using test::int_attr;
using test::ints_attr;

struct DwCase {
  int64_t N, C, mult, H, W, kh, kw, sh, sw, dh, dw;
  std::vector<int64_t> pads;  // top, left, bottom, right
  bool bias;
};

template <class T>
struct DwRun {
  Node node;
  std::vector<Tensor<T>> in;
};

template <class T>
DwRun<T> make_run(const DwCase& c, uint32_t seed) {
  DwRun<T> r;
  r.node.op_type = "Conv";
  r.node.opset = 13;
  r.node.attributes = {ints_attr("pads", c.pads), int_attr("group", c.C), ints_attr("strides", {c.sh, c.sw}),
                       ints_attr("dilations", {c.dh, c.dw})};
  std::mt19937 rng(seed);
  r.in = {test::normal_tensor<T>({c.N, c.C, c.H, c.W}, rng), test::normal_tensor<T>({c.C * c.mult, 1, c.kh, c.kw}, rng)};
  if (c.bias) r.in.push_back(test::normal_tensor<T>({c.C * c.mult}, rng));
  return r;
}

template <class T>
Tensor<T> run_conv(const DwRun<T>& r) {
  std::vector<const Tensor<T>*> in;
  for (const auto& t : r.in) in.push_back(&t);
  std::vector<Tensor<T>> out(1);
  EXPECT_EQ(find_op<T>("Conv")->forward(r.node, in, out), "");
  return out[0];
}

// The definition, one output at a time: acc = 0; acc += w · x over the taps inside x in the order (i, j); + bias.
// Also each output's sum of |w · x| (+ |bias|) into scale: what its rounding is measured against.
template <class T>
std::vector<T> reference(const DwCase& c, const DwRun<T>& r, const T* w, std::vector<T>* scale) {
  const int64_t Ho = (c.H + c.pads[0] + c.pads[2] - c.dh * (c.kh - 1) - 1) / c.sh + 1;
  const int64_t Wo = (c.W + c.pads[1] + c.pads[3] - c.dw * (c.kw - 1) - 1) / c.sw + 1;
  const int64_t M = c.C * c.mult;
  std::vector<T> y;
  scale->clear();
  for (int64_t b = 0; b < c.N; ++b)
    for (int64_t m = 0; m < M; ++m) {
      const T* x = r.in[0].f.data() + (b * c.C + m / c.mult) * c.H * c.W;
      for (int64_t oy = 0; oy < Ho; ++oy)
        for (int64_t ox = 0; ox < Wo; ++ox) {
          T acc = 0, abs_sum = 0;
          for (int64_t i = 0; i < c.kh; ++i)
            for (int64_t j = 0; j < c.kw; ++j) {
              const int64_t iy = oy * c.sh - c.pads[0] + i * c.dh, ix = ox * c.sw - c.pads[1] + j * c.dw;
              if (iy < 0 || iy >= c.H || ix < 0 || ix >= c.W) continue;
              const T term = w[(m * c.kh + i) * c.kw + j] * x[iy * c.W + ix];
              acc += term;
              abs_sum += std::abs(term);
            }
          if (c.bias) {
            acc += r.in[2].f[static_cast<size_t>(m)];
            abs_sum += std::abs(r.in[2].f[static_cast<size_t>(m)]);
          }
          y.push_back(acc);
          scale->push_back(abs_sum);
        }
    }
  return y;
}

// How many outputs of y are farther from the definition than K² ulps of their sum of |terms|.
template <class T>
size_t outside(const DwCase& c, const Tensor<T>& y, const std::vector<T>& want, const std::vector<T>& scale) {
  const T ulps = static_cast<T>(c.kh * c.kw) * std::numeric_limits<T>::epsilon();
  size_t n = 0;
  for (size_t i = 0; i < want.size(); ++i) n += !(std::abs(y.f[i] - want[i]) <= ulps * scale[i]);
  return n;
}

const std::vector<DwCase>& cases() {
  static const std::vector<DwCase> c = {
      // N, C, mult, H, W, kh, kw, sh, sw, dh, dw, pads, bias
      {1, 3, 1, 17, 19, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, true},   // MobileNet's stride 1
      {2, 4, 1, 16, 18, 3, 3, 2, 2, 1, 1, {1, 1, 1, 1}, true},   // MobileNet's stride 2, even size
      {1, 2, 1, 15, 17, 3, 3, 2, 2, 1, 1, {0, 1, 1, 0}, false},  // stride 2, uneven pads, odd size
      {1, 2, 2, 12, 13, 3, 3, 1, 1, 1, 1, {0, 0, 0, 0}, true},   // no pads, multiplier 2
      {1, 2, 1, 14, 16, 3, 3, 1, 2, 2, 1, {2, 0, 1, 3}, true},   // row stride ≠ column stride, row dilation
      {1, 2, 1, 13, 15, 3, 3, 1, 1, 1, 2, {1, 2, 1, 2}, false},  // column dilation
      {1, 3, 1, 20, 21, 5, 5, 1, 1, 1, 1, {2, 2, 2, 2}, true},   // 5 × 5
      {1, 3, 1, 21, 22, 5, 5, 2, 2, 1, 1, {2, 1, 2, 3}, true},   // 5 × 5 stride 2
      {1, 2, 1, 3, 4, 3, 3, 1, 1, 1, 1, {1, 1, 1, 1}, true},     // too small for an interior row
      {1, 2, 1, 6, 5, 3, 3, 1, 1, 1, 1, {4, 4, 4, 4}, true},     // pads wider than the kernel
      {1, 2, 1, 9, 10, 3, 2, 1, 1, 1, 1, {1, 0, 1, 1}, true},    // not square: tap by tap
      {1, 2, 1, 1, 23, 1, 3, 1, 2, 1, 1, {0, 1, 0, 1}, true},    // 1-D-like row
  };
  return c;
}

template <class T>
void expect_definition() {
  for (size_t k = 0; k < cases().size(); ++k) {
    const DwCase& c = cases()[k];
    const DwRun<T> r = make_run<T>(c, static_cast<uint32_t>(100 + k));
    const Tensor<T> y = run_conv(r);
    std::vector<T> scale;
    const std::vector<T> want = reference(c, r, r.in[1].f.data(), &scale);
    ASSERT_EQ(y.f.size(), want.size()) << "case " << k;
    EXPECT_EQ(outside(c, y, want, scale), 0u) << "case " << k << " (" << want.size() << " outputs)";
  }
}

TEST(OnnxConvDepthwise, FloatMatchesThePerPixelDefinition) { expect_definition<float>(); }
TEST(OnnxConvDepthwise, DoubleMatchesThePerPixelDefinition) { expect_definition<double>(); }

TEST(OnnxConvDepthwise, NegativeControlAWeightMovedBy1e3IsSeen) {
  for (size_t k : {size_t(0), size_t(7)}) {  // 3 × 3 stride 1, 5 × 5 stride 2
    const DwCase& c = cases()[k];
    const DwRun<float> r = make_run<float>(c, static_cast<uint32_t>(100 + k));
    const Tensor<float> y = run_conv(r);
    std::vector<float> w(r.in[1].f.begin(), r.in[1].f.end()), scale;
    w[static_cast<size_t>(c.kh * c.kw / 2)] += 1e-3f;  // the centre tap of channel 0: every output of it reads it
    EXPECT_GT(outside(c, y, reference(c, r, w.data(), &scale), scale), 0u) << "case " << k;
  }
}

}  // namespace depthwise_test
}  // namespace
}  // namespace attnlab::onnx
