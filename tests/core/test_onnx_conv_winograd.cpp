// Conv's Winograd path (onnx/ops/conv_winograd.h): the same function as the direct sum — in double within 1e-12 of
// it, in float within a few ulps of each output's sum of |terms| — over pads (none, 1, 2, uneven), odd and even
// output sizes, groups, batches and bias; the same bits on 1, 2 and 3 threads and for an image alone or in a batch;
// the backward of a conv on that path against central differences of its forward (double). Negative controls: one
// weight changed by 1e-3 is seen by the comparison; the path is really taken (its float values differ from im2col's
// in the last bits somewhere, and it is not taken below kWinogradMinPixels or for a stride of 2).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "onnx/op.h"
#include "onnx_test_util.h"
#include "onnx/ops/conv_winograd.h"
#include "onnx/ops/parts.h"
#include "parallel/parallel_for.h"

namespace attnlab::onnx {
namespace {

using test::int_attr;
using test::ints_attr;

struct ConvCase {
  Shape x, w;
  std::vector<int64_t> pads;  // top, left, bottom, right
  int64_t group = 1, stride = 1;
  bool bias = true;
};

template <class T>
struct ConvRun {
  Node node;
  std::vector<Tensor<T>> inputs;
};

template <class T>
ConvRun<T> make_conv(const ConvCase& c, uint32_t seed) {
  ConvRun<T> r;
  r.node.op_type = "Conv";
  r.node.opset = 13;
  r.node.attributes = {ints_attr("pads", c.pads), int_attr("group", c.group), ints_attr("strides", {c.stride, c.stride})};
  std::mt19937 rng(seed);
  r.inputs = {test::normal_tensor<T>(c.x, rng), test::normal_tensor<T>(c.w, rng)};
  if (c.bias) r.inputs.push_back(test::normal_tensor<T>({c.w[0]}, rng));
  return r;
}

template <class T>
Tensor<T> forward(const ConvRun<T>& r, bool winograd) {
  const bool old = set_conv_winograd(winograd);
  std::vector<const Tensor<T>*> in;
  for (const auto& t : r.inputs) in.push_back(&t);
  std::vector<Tensor<T>> out(1);
  const std::string err = find_op<T>("Conv")->forward(r.node, in, out);
  set_conv_winograd(old);
  EXPECT_EQ(err, "");
  return out[0];
}

// Each output's sum of |w · x| over its window (+ |bias|): the scale its rounding is measured against.
template <class T>
std::vector<double> abs_sums(const ConvRun<T>& r) {
  ConvRun<T> a = r;
  for (auto& t : a.inputs)
    for (T& v : t.f) v = std::abs(v);
  const Tensor<T> s = forward(a, false);
  return std::vector<double>(s.f.begin(), s.f.end());
}

const std::vector<ConvCase> kCases = {
    {{1, 3, 12, 12}, {4, 3, 3, 3}, {1, 1, 1, 1}},                 // "same", even output
    {{2, 5, 11, 13}, {6, 5, 3, 3}, {1, 1, 1, 1}},                 // odd output: the last tiles half outside
    {{1, 4, 14, 12}, {3, 4, 3, 3}, {0, 0, 0, 0}, 1, 1, false},    // no pads, no bias
    {{1, 2, 10, 12}, {5, 2, 3, 3}, {2, 0, 1, 2}},                 // uneven pads
    {{1, 4, 12, 11}, {6, 2, 3, 3}, {1, 1, 1, 1}, 2},              // two groups
    {{1, 16, 12, 12}, {24, 16, 3, 3}, {1, 1, 1, 1}},              // more channels
    {{1, 2, 40, 40}, {3, 2, 3, 3}, {1, 1, 1, 1}},                 // several blocks of tiles
};

TEST(ConvWinograd, AppliesToLargeStrideOneThreeByThreeConvsOnly) {
  Window2d g;
  g.kh = g.kw = 3;
  g.Ho = g.Wo = 10;
  EXPECT_TRUE(winograd_applies(g));
  g.Ho = 9;  // 90 outputs
  EXPECT_FALSE(winograd_applies(g));
  g.Ho = 10;
  g.sh = 2;
  EXPECT_FALSE(winograd_applies(g));
  g.sh = 1;
  g.dw = 2;
  EXPECT_FALSE(winograd_applies(g));
  g.dw = 1;
  g.kw = 5;
  EXPECT_FALSE(winograd_applies(g));
}

TEST(ConvWinograd, DoubleEqualsTheDirectSum) {
  for (size_t i = 0; i < kCases.size(); ++i) {
    const auto r = make_conv<double>(kCases[i], 10 + static_cast<uint32_t>(i));
    const Tensor<double> a = forward(r, true), b = forward(r, false);
    ASSERT_EQ(a.shape, b.shape);
    double worst = 0;
    for (size_t k = 0; k < a.f.size(); ++k) worst = std::max(worst, std::abs(a.f[k] - b.f[k]));
    EXPECT_LT(worst, 1e-12) << "case " << i;
  }
}

TEST(ConvWinograd, FloatIsWithinAFewUlpsOfEachSumAndTheComparisonSeesAWrongWeight) {
  bool any_bits_differ = false;
  for (size_t i = 0; i < kCases.size(); ++i) {
    const auto r = make_conv<float>(kCases[i], 20 + static_cast<uint32_t>(i));
    const Tensor<float> a = forward(r, true), b = forward(r, false);
    const std::vector<double> scale = abs_sums(r);
    ASSERT_EQ(a.shape, b.shape);
    double worst = 0;  // in units of each output's sum of |terms| times float's epsilon
    for (size_t k = 0; k < a.f.size(); ++k) {
      worst = std::max(worst, std::abs(double(a.f[k]) - double(b.f[k])) / (scale[k] * 1.19e-7));
      any_bits_differ = any_bits_differ || a.f[k] != b.f[k];
    }
    EXPECT_LT(worst, 16.0) << "case " << i;
    // negative control: one weight off by 1e-3 moves some output far beyond that bound
    auto wrong = r;
    wrong.inputs[1].f[wrong.inputs[1].f.size() / 2] += 1e-3f;
    const Tensor<float> c = forward(wrong, true);
    double moved = 0;
    for (size_t k = 0; k < c.f.size(); ++k) moved = std::max(moved, std::abs(double(c.f[k]) - double(b.f[k])) / (scale[k] * 1.19e-7));
    EXPECT_GT(moved, 16.0) << "case " << i;
  }
  EXPECT_TRUE(any_bits_differ) << "the Winograd path was not taken";
}

TEST(ConvWinograd, NotTakenBelowTheThresholdOrWithAStride) {
  for (const ConvCase& c : {ConvCase{{1, 3, 9, 10}, {4, 3, 3, 3}, {1, 1, 1, 1}},  // 90 outputs
                            ConvCase{{1, 3, 24, 24}, {4, 3, 3, 3}, {1, 1, 1, 1}, 1, 2}}) {
    const auto r = make_conv<float>(c, 7);
    const Tensor<float> a = forward(r, true), b = forward(r, false);
    EXPECT_EQ(a.f, b.f);
  }
}

TEST(ConvWinograd, SameBitsOnOneTwoThreeThreadsAndAloneOrInABatch) {
  const int64_t work = set_op_work_per_part(1);  // small convs in parts: several blocks and weight rows a part
  const ConvCase c{{3, 8, 40, 36}, {8, 8, 3, 3}, {1, 1, 1, 1}};
  const auto r = make_conv<float>(c, 5);
  const int before = thread_count();
  std::vector<Tensor<float>> outs;
  for (int th : {1, 2, 3}) {
    set_thread_count(th);
    outs.push_back(forward(r, true));
  }
  set_thread_count(before);
  EXPECT_EQ(outs[0].f, outs[1].f);
  EXPECT_EQ(outs[0].f, outs[2].f);
  // the second image alone
  ConvRun<float> one = r;
  Shape single = c.x;
  single[0] = 1;
  const auto per = static_cast<std::ptrdiff_t>(r.inputs[0].f.size() / 3);
  one.inputs[0] = Tensor<float>::floats(single);
  std::copy(r.inputs[0].f.begin() + per, r.inputs[0].f.begin() + 2 * per, one.inputs[0].f.begin());
  const Tensor<float> alone = forward(one, true);
  ASSERT_EQ(alone.f.size() * 3, outs[0].f.size());
  EXPECT_TRUE(std::equal(alone.f.begin(), alone.f.end(), outs[0].f.begin() + static_cast<std::ptrdiff_t>(alone.f.size())));
  set_op_work_per_part(work);
}

// The backward (im2col's, the same function) against central differences of the Winograd forward, in double.
TEST(ConvWinograd, BackwardMatchesCentralDifferencesOfTheForward) {
  const ConvCase c{{1, 2, 10, 11}, {3, 2, 3, 3}, {1, 1, 1, 1}};
  auto r = make_conv<double>(c, 3);
  const Tensor<double> y = forward(r, true);
  std::mt19937 rng(9);
  std::normal_distribution<double> nd(0.0, 1.0);
  Tensor<double> dy = Tensor<double>::floats(y.shape);
  for (double& v : dy.f) v = nd(rng);
  auto loss = [&](const ConvRun<double>& q) {
    const Tensor<double> o = forward(q, true);
    double s = 0;
    for (size_t k = 0; k < o.f.size(); ++k) s += o.f[k] * dy.f[k];
    return s;
  };
  std::vector<const Tensor<double>*> in, out = {&y}, dout = {&dy};
  for (const auto& t : r.inputs) in.push_back(&t);
  std::vector<Tensor<double>> din(3);
  ASSERT_EQ(find_op<double>("Conv")->backward(r.node, in, out, dout, {true, true, true}, din), "");
  for (size_t which = 0; which < 3; ++which) {
    for (size_t k = 0; k < r.inputs[which].f.size(); k += 7) {
      auto p = r, m = r;
      p.inputs[which].f[k] += 1e-6;
      m.inputs[which].f[k] -= 1e-6;
      const double fd = (loss(p) - loss(m)) / 2e-6;
      EXPECT_NEAR(din[which].f[k], fd, 1e-6 * std::max(1.0, std::abs(fd))) << "input " << which << " element " << k;
    }
  }
}

}  // namespace
}  // namespace attnlab::onnx
