// Every differentiable ONNX operator of the executor, gradient-checked in double against central finite
// differences (tests/core/gradcheck.h): a one-node graph (or two, for multi-output Split), loss = Σ w ⊙ y
// with random w, analytic gradient from Executor<double>::backward w.r.t. every float input. At the end, the float
// forms on four lanes against the std:: formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gradcheck.h"
#include "onnx_test_util.h"
#include "onnx/executor.h"
#include "onnx/ops/parts.h"
#include "parallel/parallel_for.h"

using namespace attnlab;
using namespace attnlab::onnx;
using attnlab::test::expect_gradient;

namespace {

// Short names for the shared builders (onnx_test_util.h): the cases below list several attributes on one line.
Attribute ai(const std::string& n, int64_t v) { return test::int_attr(n, v); }
Attribute af(const std::string& n, float v) { return test::float_attr(n, v); }
Attribute as(const std::string& n, const std::string& v) { return test::string_attr(n, v); }
Attribute ais(const std::string& n, std::vector<int64_t> v) { return test::ints_attr(n, std::move(v)); }

TensorData ints(const std::string& name, std::vector<int64_t> v, int dtype = kInt64, Shape dims = {-1}) {
  TensorData t;
  t.name = name;
  t.dtype = dtype;
  t.dims = dims == Shape{-1} ? Shape{static_cast<int64_t>(v.size())} : dims;
  t.i = std::move(v);
  return t;
}
TensorData floats(const std::string& name, std::vector<float> v, Shape dims) {
  TensorData t;
  t.name = name;
  t.dtype = kFloat;
  t.dims = std::move(dims);
  t.f = std::move(v);
  return t;
}

struct Case {
  std::string op;
  std::vector<std::string> inputs;           // names: "x0".. are float graph inputs, others initializers
  std::vector<Shape> shapes;                 // of the float graph inputs, in order
  std::vector<Attribute> attrs;
  std::vector<TensorData> inits;
  int opset = 13;
  int outputs = 1;
  double scale = 1.0, offset = 0.0;          // inputs = offset + scale · N(0, 1)
  bool positive = false;                     // inputs = 0.5 + |·| (Sqrt, Pow base)
};

void check(const Case& c, uint64_t seed = 1) {
  Model m;
  m.ir_version = 8;
  m.opsets[""] = c.opset;
  Node n;
  n.name = c.op + "_node";
  n.op_type = c.op;
  n.inputs = c.inputs;
  n.attributes = c.attrs;
  n.opset = c.opset;
  for (int k = 0; k < c.outputs; ++k) n.outputs.push_back("y" + std::to_string(k));
  m.nodes.push_back(n);
  std::string out_name = "y0";
  if (c.outputs > 1) {  // merge the outputs (reversed) so the loss sees all of them
    Node cat;
    cat.name = "merge";
    cat.op_type = "Concat";
    cat.opset = c.opset;
    for (int k = c.outputs - 1; k >= 0; --k) cat.inputs.push_back("y" + std::to_string(k));
    cat.outputs = {"merged"};
    cat.attributes = {ai("axis", 0)};
    for (const auto& a : c.attrs)
      if (a.name == "axis") cat.attributes = {a};
    m.nodes.push_back(cat);
    out_name = "merged";
  }
  m.initializers = c.inits;
  for (size_t k = 0; k < c.shapes.size(); ++k) {
    ValueInfo vi;
    vi.name = "x" + std::to_string(k);
    vi.dtype = kFloat;
    m.inputs.push_back(vi);
  }
  ValueInfo vo;
  vo.name = out_name;
  m.outputs.push_back(vo);
  Executor<double> ex;
  std::string err;
  ASSERT_TRUE(ex.load(m, &err)) << c.op << ": " << err;
  Rng rng(seed);
  std::vector<Mat<double>> params;
  for (const auto& s : c.shapes) {
    Mat<double> p(shape_numel(s), 1);
    for (Eigen::Index q = 0; q < p.size(); ++q) {
      const double v = c.scale * rng.normal();
      p(q) = c.positive ? 0.5 + std::abs(v) : c.offset + v;
    }
    params.push_back(p);
  }
  auto inputs = [&]() {
    std::map<std::string, Tensor<double>> in;
    for (size_t k = 0; k < c.shapes.size(); ++k) {
      Tensor<double> t = Tensor<double>::floats(c.shapes[k]);
      for (size_t q = 0; q < t.f.size(); ++q) t.f[q] = params[k](q);
      in["x" + std::to_string(k)] = t;
    }
    return in;
  };
  ASSERT_TRUE(ex.forward(inputs(), &err)) << c.op << ": " << err;
  Tensor<double> w = Tensor<double>::floats(ex.value(out_name)->shape);
  for (auto& v : w.f) v = rng.normal();
  ASSERT_TRUE(ex.backward(out_name, w, &err)) << c.op << ": " << err;
  std::vector<Mat<double>> analytic;
  for (size_t k = 0; k < c.shapes.size(); ++k) {
    const Tensor<double>* g = ex.gradient("x" + std::to_string(k));
    ASSERT_NE(g, nullptr) << c.op << " input " << k;
    analytic.push_back(Eigen::Map<const Mat<double>>(g->f.data(), g->f.size(), 1));
  }
  Executor<double> ex2;
  ASSERT_TRUE(ex2.load(m, &err));
  auto loss = [&]() {
    std::string e;
    EXPECT_TRUE(ex2.forward(inputs(), &e)) << e;
    const auto& y = ex2.value(out_name)->f;
    double s = 0;
    for (size_t q = 0; q < y.size(); ++q) s += w.f[q] * y[q];
    return s;
  };
  for (size_t k = 0; k < c.shapes.size(); ++k)
    expect_gradient(c.op + " d/dx" + std::to_string(k), params[k], analytic[k], loss, 1e-6, 1e-6);
}

Case unary(const std::string& op, std::vector<Attribute> attrs = {}, double scale = 1.0) {
  Case c{op, {"x0"}, {{2, 3, 4}}, std::move(attrs)};
  c.scale = scale;
  return c;
}

}  // namespace

void unary_cases() {
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "Erf", "Exp", "Neg", "Abs", "Identity", "Dropout"}) check(unary(op));
  check(unary("LeakyRelu", {af("alpha", 0.1f)}));
  check(unary("HardSigmoid", {af("alpha", 0.3f), af("beta", 0.4f)}, 2.0));
  check(unary("HardSwish", {}, 4.0));
  Case s = unary("Sqrt");
  s.positive = true;
  check(s);
  for (const char* op : {"Sin", "Cos", "Softplus"}) check(unary(op));
  for (const char* approximate : {"none", "tanh"}) {  // opset 20
    Case g = unary("Gelu", {as("approximate", approximate)}, 2.0);
    g.opset = 20;
    check(g);
  }
  for (const char* op : {"Log", "Reciprocal"}) {
    Case c = unary(op);
    c.positive = true;
    check(c);
  }
}
TEST(OnnxGradcheck, Unary) { unary_cases(); }

TEST(OnnxGradcheck, SequenceOps) {
  for (int ex : {0, 1})
    for (int rev : {0, 1}) {
      Case c{"CumSum", {"x0", "ax"}, {{2, 3, 4}}, {ai("exclusive", ex), ai("reverse", rev)}, {ints("ax", {1}, kInt64, {})}};
      check(c);
    }
  Case up{"Trilu", {"x0", "k"}, {{2, 3, 4}}, {}, {ints("k", {1}, kInt64, {})}};
  up.opset = 14;
  check(up);
  Case lo{"Trilu", {"x0"}, {{3, 4}}, {ai("upper", 0)}};
  lo.opset = 14;
  check(lo);
  check({"Tile", {"x0", "rep"}, {{2, 1, 3}}, {}, {ints("rep", {2, 3, 1}, kInt64, {3})}});
  check({"Max", {"x0", "x1"}, {{2, 3}, {3}}});
  check({"Min", {"x0", "x1", "x2"}, {{4, 5}, {4, 5}, {4, 5}}});  // each input attains the minimum somewhere
}

void clip_cases() {
  Case c{"Clip", {"x0", "lo", "hi"}, {{3, 5}}, {}, {floats("lo", {-0.5f}, {}), floats("hi", {0.7f}, {})}};
  check(c);
  Case old{"Clip", {"x0"}, {{3, 5}}, {af("min", -0.3f), af("max", 0.4f)}};
  old.opset = 9;
  check(old);
}
TEST(OnnxGradcheck, Clip) { clip_cases(); }

// Clip with bounds that take a gradient, by the closed form: y = min(max(x, lo), hi) (ONNX: every y is hi when
// lo > hi), so dx = dy where lo ≤ x ≤ hi, d lo = Σ dy over x < lo, d hi = Σ dy over max(x, lo) > hi; the x lie away
// from the bounds. Control: lo > hi, where the per-element rule "x < lo → d lo" would give d lo ≠ 0.
TEST(OnnxGradcheck, ClipBoundsByTheClosedForm) {
  Model m;
  m.ir_version = 8;
  m.opsets[""] = 13;
  Node n;
  n.name = "clip";
  n.op_type = "Clip";
  n.opset = 13;
  n.inputs = {"x", "lo", "hi"};
  n.outputs = {"y"};
  m.nodes.push_back(n);
  test::add_float_io(&m, {"x", "lo", "hi"}, {"y"});
  const std::vector<double> x = {-1.5, -0.7, -0.1, 0.2, 0.6, 1.1, 2.0}, w = {0.3, -1.2, 0.8, 0.5, -0.4, 1.7, -0.9};
  for (const auto& [lo, hi] : {std::pair<double, double>{-0.5, 0.7}, {0.4, -0.3}}) {
    SCOPED_TRACE("lo " + std::to_string(lo) + ", hi " + std::to_string(hi));
    Executor<double> ex;
    std::string err;
    ASSERT_TRUE(ex.load(m, &err)) << err;
    std::map<std::string, Tensor<double>> in;
    in["x"] = Tensor<double>::floats({7});
    in["x"].f = to_values(x);
    in["lo"] = Tensor<double>::floats({}, lo);
    in["hi"] = Tensor<double>::floats({}, hi);
    ASSERT_TRUE(ex.forward(in, &err)) << err;
    Tensor<double> dy = Tensor<double>::floats({7});
    dy.f = to_values(w);
    ASSERT_TRUE(ex.backward("y", dy, &err)) << err;
    double dlo = 0, dhi = 0;
    for (size_t k = 0; k < x.size(); ++k) {
      EXPECT_EQ(ex.value("y")->f[k], std::min(std::max(x[k], lo), hi));
      const bool top = std::max(x[k], lo) > hi, bottom = !top && x[k] < lo;
      EXPECT_EQ(ex.gradient("x")->f[k], top || bottom ? 0.0 : w[k]) << k;
      dlo += bottom ? w[k] : 0;
      dhi += top ? w[k] : 0;
    }
    EXPECT_NEAR(ex.gradient("lo")->f[0], dlo, 1e-12);
    EXPECT_NEAR(ex.gradient("hi")->f[0], dhi, 1e-12);
    if (lo > hi) EXPECT_EQ(ex.gradient("lo")->f[0], 0.0);
  }
}

// Clip with constant bounds (no gradient asked for them: the vectorised dx-only loop) by the same closed form, over
// enough elements to run in parts, with x on both bounds, a NaN (y = NaN whatever the bounds, so its dy passes: the
// rule's max(NaN, lo) is NaN and neither bound side holds) and lo > hi (every other dx 0). Control: the data tell
// this closed interval from an open one (elements on a bound with dy ≠ 0).
TEST(OnnxGradcheck, ClipConstantBoundsDxByTheClosedForm) {
  Node n;
  n.op_type = "Clip";
  n.opset = 13;
  n.inputs = {"x", "lo", "hi"};
  const int64_t count = 5000;
  Tensor<float> x = Tensor<float>::floats({count}), dy = Tensor<float>::floats({count});
  for (int64_t k = 0; k < count; ++k) {
    x.f[k] = static_cast<float>((k * 37) % 101) / 10.f - 5.f;  // -5 .. 5 in steps of 0.1, both bounds included
    dy.f[k] = static_cast<float>(k % 7) - 3.f;
  }
  x.f[11] = std::numeric_limits<float>::quiet_NaN();
  for (const auto& [lo, hi] : {std::pair<float, float>{-2.f, 3.f}, {1.f, -1.f}}) {
    SCOPED_TRACE("lo " + std::to_string(lo) + ", hi " + std::to_string(hi));
    const Tensor<float> tlo = Tensor<float>::floats({}, lo), thi = Tensor<float>::floats({}, hi);
    std::vector<Tensor<float>> din(3);
    const auto* op = find_op<float>("Clip");
    const int64_t old = set_op_work_per_part(64);  // several parts
    const std::string err = op->backward(n, {&x, &tlo, &thi}, {nullptr}, {&dy}, {true, false, false}, din);
    set_op_work_per_part(old);
    ASSERT_EQ(err, "");
    int64_t open_differs = 0;
    for (int64_t k = 0; k < count; ++k) {
      const float v = x.f[k];
      const bool top = std::max(v, lo) > hi, bottom = !top && v < lo;
      EXPECT_EQ(din[0].f[k], top || bottom ? 0.f : dy.f[k]) << k;
      open_differs += lo < hi && (v == lo || v == hi) && dy.f[k] != 0;
    }
    if (lo < hi) EXPECT_GT(open_differs, 0);
    EXPECT_EQ(din[0].f[11], dy.f[11]);  // the NaN: y = min(max(NaN, lo), hi) is NaN, x's own, for any bounds
  }
}

void binary_cases() {
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    check({op, {"x0", "x1"}, {{2, 3, 4}, {3, 1}}});
    check({op, {"x0", "x1"}, {{1, 4}, {3, 1}}});
    check({op, {"x0", "x1"}, {{2, 3}, {2, 3}}});
  }
  Case p{"Pow", {"x0", "x1"}, {{2, 3}, {3}}};
  p.positive = true;
  check(p);
  Case pi{"Pow", {"x0", "e"}, {{2, 3}}, {}, {ints("e", {2}, kInt64, {})}};
  check(pi);
}
TEST(OnnxGradcheck, BroadcastBinary) { binary_cases(); }

TEST(OnnxGradcheck, Where) {
  check({"Where", {"c", "x0", "x1"}, {{2, 3}, {3}}, {}, {ints("c", {1, 0, 1, 0, 0, 1}, kBool, {2, 3})}});
}

void conv_cases() {
  // plain 3x3 with bias, stride 2, pads, dilation
  check({"Conv", {"x0", "x1", "x2"}, {{1, 2, 6, 7}, {3, 2, 3, 3}, {3}}, {ais("strides", {2, 1}), ais("pads", {1, 0, 1, 2})}});
  check({"Conv", {"x0", "x1"}, {{2, 2, 7, 7}, {2, 2, 3, 2}}, {ais("dilations", {2, 1})}});
  // groups, depthwise with multiplier, pointwise, auto_pad, 1-D
  check({"Conv", {"x0", "x1", "x2"}, {{1, 4, 5, 5}, {6, 2, 3, 3}, {6}}, {ai("group", 2)}});
  check({"Conv", {"x0", "x1"}, {{1, 3, 5, 6}, {6, 1, 3, 3}}, {ai("group", 3), ais("pads", {1, 1, 1, 1}), ais("strides", {2, 2})}});
  // depthwise, stride 1 (the vectorised row loop), with bias, asymmetric pads, dilation, a kernel wider than the
  // input with its pads, and 1-D
  check({"Conv", {"x0", "x1", "x2"}, {{2, 3, 5, 6}, {3, 1, 3, 3}, {3}}, {ai("group", 3), ais("pads", {1, 0, 2, 1})}});
  check({"Conv", {"x0", "x1"}, {{1, 2, 7, 7}, {4, 1, 3, 2}}, {ai("group", 2), ais("dilations", {2, 3}), ais("pads", {2, 2, 0, 1})}});
  check({"Conv", {"x0", "x1"}, {{1, 2, 3, 2}, {2, 1, 3, 5}}, {ai("group", 2), ais("pads", {1, 2, 1, 2}), ais("strides", {1, 3})}});
  check({"Conv", {"x0", "x1"}, {{1, 2, 9}, {2, 1, 3}}, {ai("group", 2), ais("strides", {2}), ais("pads", {2, 1})}});
  check({"Conv", {"x0", "x1", "x2"}, {{2, 3, 4, 4}, {5, 3, 1, 1}, {5}}, {}});
  check({"Conv", {"x0", "x1"}, {{1, 2, 5, 6}, {2, 2, 3, 3}}, {as("auto_pad", "SAME_UPPER"), ais("strides", {2, 2})}});
  check({"Conv", {"x0", "x1"}, {{1, 2, 5, 6}, {2, 2, 2, 2}}, {as("auto_pad", "SAME_LOWER")}});
  check({"Conv", {"x0", "x1"}, {{1, 2, 9}, {3, 2, 3}}, {ais("strides", {2}), ais("pads", {1, 1})}});
}
TEST(OnnxGradcheck, Conv) { conv_cases(); }

void product_cases() {
  check({"Gemm", {"x0", "x1", "x2"}, {{3, 4}, {4, 5}, {5}}, {af("alpha", 0.7f), af("beta", 1.3f)}});
  check({"Gemm", {"x0", "x1", "x2"}, {{4, 3}, {5, 4}, {3, 1}}, {ai("transA", 1), ai("transB", 1)}});
  check({"Gemm", {"x0", "x1"}, {{4, 3}, {4, 5}}, {ai("transA", 1)}});
  check({"Gemm", {"x0", "x1"}, {{3, 4}, {5, 4}}, {ai("transB", 1)}});
  check({"MatMul", {"x0", "x1"}, {{2, 3, 4}, {4, 5}}});
  check({"MatMul", {"x0", "x1"}, {{2, 1, 3, 4}, {3, 4, 2}}});
  check({"MatMul", {"x0", "x1"}, {{4}, {2, 4, 3}}});
  check({"MatMul", {"x0", "x1"}, {{2, 3, 4}, {4}}});
  check({"MatMul", {"x0", "x1"}, {{17, 3}, {3, 2}}});  // more rows than columns: cut by rows when in parts
}
TEST(OnnxGradcheck, GemmMatMul) { product_cases(); }

void pool_cases() {
  check({"MaxPool", {"x0"}, {{1, 2, 5, 6}}, {ais("kernel_shape", {2, 3}), ais("strides", {2, 2}), ais("pads", {1, 0, 0, 1})}});
  check({"MaxPool", {"x0"}, {{1, 2, 7, 7}}, {ais("kernel_shape", {3, 3}), ais("strides", {2, 2}), ai("ceil_mode", 1)}});
  check({"MaxPool", {"x0"}, {{1, 1, 6, 6}}, {ais("kernel_shape", {2, 2}), ais("dilations", {2, 2})}});
  check({"AveragePool", {"x0"}, {{1, 2, 5, 6}}, {ais("kernel_shape", {3, 3}), ais("strides", {2, 2}), ais("pads", {1, 1, 1, 1})}});
  check({"AveragePool", {"x0"}, {{1, 2, 5, 6}},
         {ais("kernel_shape", {3, 3}), ais("pads", {1, 1, 1, 1}), ai("count_include_pad", 1)}});
  check({"AveragePool", {"x0"}, {{1, 2, 7, 7}}, {ais("kernel_shape", {2, 2}), ais("strides", {2, 2}), ai("ceil_mode", 1)}});
  check({"AveragePool", {"x0"}, {{1, 2, 9}}, {ais("kernel_shape", {3}), as("auto_pad", "SAME_UPPER"), ais("strides", {2})}});
}

void global_pool_cases() {
  check(Case{"GlobalAveragePool", {"x0"}, {{2, 3, 3, 4}}});
  check(Case{"GlobalMaxPool", {"x0"}, {{2, 3, 3, 4}}});
}
TEST(OnnxGradcheck, Pools) {
  pool_cases();
  global_pool_cases();
}

// The reduced axes a tail of the input's (each output one contiguous run: summed in parts), and not.
void reduce_cases() {
  Case rm{"ReduceMean", {"x0"}, {{2, 3, 4}}, {ais("axes", {1, 2}), ai("keepdims", 0)}};
  check(rm);
  check(Case{"ReduceMean", {"x0"}, {{2, 3, 4}}, {ais("axes", {-1})}});
  check(Case{"ReduceMean", {"x0"}, {{2, 1, 3, 4}}, {ais("axes", {1, 3})}});  // a reduced axis of size 1 first
  check(Case{"ReduceMean", {"x0"}, {{2, 3, 4}}, {ais("axes", {1})}});        // a kept axis after: not a tail
  check(Case{"ReduceSum", {"x0", "a"}, {{2, 3, 4}}, {}, {ints("a", {0})}});
  check(Case{"ReduceSum", {"x0"}, {{2, 3}}, {ai("keepdims", 0)}});
}

void softmax_cases() {
  check(unary("Softmax", {ai("axis", 1)}));
  check(unary("Softmax"));
  check(unary("LogSoftmax", {ai("axis", 0)}));
  Case old = unary("Softmax", {ai("axis", 1)});
  old.opset = 11;  // coerced to 2-D
  check(old);
}
TEST(OnnxGradcheck, Softmax) { softmax_cases(); }

void norm_cases() {
  Case c{"LayerNormalization", {"x0", "x1", "x2"}, {{2, 3, 4}, {4}, {4}}, {af("epsilon", 1e-5f)}};
  c.opset = 17;
  check(c);
  Case over2{"LayerNormalization", {"x0", "x1"}, {{2, 3, 4}, {3, 4}}, {ai("axis", 1)}};  // two normalised axes, no B
  over2.opset = 17;
  check(over2);
  Case bn{"BatchNormalization", {"x0", "x1", "x2", "x3", "x4"}, {{2, 3, 2, 2}, {3}, {3}, {3}, {3}}, {af("epsilon", 1e-3f)}};
  bn.positive = true;  // var > 0
  check(bn);
}
TEST(OnnxGradcheck, LayerAndBatchNormalization) { norm_cases(); }

// The same cases with every op that ops/parts.h cuts (Conv, Gemm, MatMul, the element-wise unary ops, Clip, the
// binary ops, Softmax, the norms, the pools, the global pools, a reduction over a tail of axes) cut into as many parts as it
// allows (each part's work lowered to one multiply-add) and run on 2 threads: the parts' forward and backward are
// the operators' too.
TEST(OnnxGradcheck, OpsInParts) {
  const int threads = thread_count();
  set_thread_count(2);
  const int64_t work = set_op_work_per_part(1);
  ASSERT_GT(op_parts(6, 1), 1);  // the control: with the default work per part these cases run whole
  conv_cases();
  product_cases();
  unary_cases();
  clip_cases();
  binary_cases();
  softmax_cases();
  norm_cases();
  pool_cases();
  global_pool_cases();
  reduce_cases();
  set_op_work_per_part(work);
  set_thread_count(threads);
  EXPECT_EQ(op_parts(6, 1), 1);
}

TEST(OnnxGradcheck, ShapeOps) {
  check({"Flatten", {"x0"}, {{2, 3, 4}}, {ai("axis", 2)}});
  check({"Reshape", {"x0", "s"}, {{2, 3, 4}}, {}, {ints("s", {4, 0, -1})}});
  check({"Squeeze", {"x0", "a"}, {{2, 1, 3, 1}}, {}, {ints("a", {1, -1})}});
  check({"Unsqueeze", {"x0", "a"}, {{2, 3}}, {}, {ints("a", {0, 3})}});
  Case old{"Unsqueeze", {"x0"}, {{2, 3}}, {ais("axes", {1})}};
  old.opset = 11;
  check(old);
  check({"Expand", {"x0", "s"}, {{3, 1}}, {}, {ints("s", {2, 3, 4})}});
  check({"Cast", {"x0"}, {{2, 3}}, {ai("to", kFloat)}});
}

// A model of one node `op` from graph input x0 (of dtype) to output y0.
static Model one_node_model(const std::string& op, std::vector<Attribute> attrs, int opset, int dtype = kFloat) {
  Model m;
  m.ir_version = 8;
  m.opsets[""] = opset;
  Node n;
  n.name = "n";
  n.op_type = op;
  n.inputs = {"x0"};
  n.outputs = {"y0"};
  n.attributes = std::move(attrs);
  n.opset = opset;
  m.nodes.push_back(n);
  ValueInfo vi;
  vi.name = "x0";
  vi.dtype = dtype;
  m.inputs.push_back(vi);
  ValueInfo vo;
  vo.name = "y0";
  m.outputs.push_back(vo);
  return m;
}

// Transpose copies in tiles (ops/layout_ops.cpp transpose_copy): every output element against the definition
// y[i_0, …, i_{r-1}] = x[j] with j_{perm[k]} = i_k, on shapes whose tiled axes have ragged ends; float and int64.
TEST(OnnxTranspose, EveryElementIsTheDefinitions) {
  const Shape xs = {2, 35, 3, 33};
  const std::vector<std::vector<int64_t>> perms = {{0, 3, 1, 2}, {3, 2, 1, 0}, {0, 1, 3, 2}, {1, 0, 2, 3}, {2, 3, 0, 1}};
  for (int dtype : {kFloat, kInt64})
    for (const auto& perm : perms) {
      const Model m = one_node_model("Transpose", {ais("perm", perm)}, 17, dtype);
      Executor<float> ex;
      std::string err;
      ASSERT_TRUE(ex.load(m, &err)) << err;
      Tensor<float> x = dtype == kFloat ? Tensor<float>::floats(xs) : Tensor<float>::ints(xs);
      for (int64_t k = 0; k < shape_numel(xs); ++k) (dtype == kFloat ? x.f[k] = float(k) : x.i[k] = 7 * k);
      ASSERT_TRUE(ex.forward({{"x0", x}}, &err)) << err;
      const Tensor<float>& y = *ex.value("y0");
      Shape os(4);
      for (int k = 0; k < 4; ++k) os[k] = xs[perm[k]];
      ASSERT_EQ(y.shape, os);
      const Shape xst = strides_of(xs);
      int64_t wrong = 0;
      for (int64_t a = 0; a < os[0]; ++a)
        for (int64_t b = 0; b < os[1]; ++b)
          for (int64_t c = 0; c < os[2]; ++c)
            for (int64_t d = 0; d < os[3]; ++d) {
              const int64_t i[4] = {a, b, c, d};
              int64_t j = 0;
              for (int k = 0; k < 4; ++k) j += i[k] * xst[perm[k]];
              const int64_t at = ((a * os[1] + b) * os[2] + c) * os[3] + d;
              wrong += dtype == kFloat ? y.f[at] != float(j) : y.i[at] != 7 * j;
            }
      EXPECT_EQ(wrong, 0) << "perm " << perm[0] << perm[1] << perm[2] << perm[3];
    }
}

TEST(OnnxGradcheck, LayoutOps) {
  check({"Transpose", {"x0"}, {{2, 3, 4}}, {ais("perm", {2, 0, 1})}});
  check({"Transpose", {"x0"}, {{2, 3, 4}}, {ais("perm", {0, 2, 1})}});
  check({"Transpose", {"x0"}, {{3, 2, 4}}, {}});  // the default: reversed
  check({"Transpose", {"x0"}, {{34, 33}}, {ais("perm", {1, 0})}});  // tiles with ragged ends
  check({"Slice", {"x0", "st", "en", "ax", "sp"}, {{4, 5, 6}}, {},
         {ints("st", {1, -1}), ints("en", {4, 0}), ints("ax", {0, 2}), ints("sp", {2, -2})}});
  check({"Gather", {"x0", "i"}, {{4, 3}}, {ai("axis", 0)}, {ints("i", {3, 0, -1, 3}, kInt64, {2, 2})}});
  check({"Gather", {"x0", "i"}, {{2, 5}}, {ai("axis", 1)}, {ints("i", {4, 1}, kInt64, {2})}});
  for (const char* mode : {"constant", "reflect", "edge"})
    check({"Pad", {"x0", "p", "v"}, {{2, 3, 4}}, {as("mode", mode)},
           {ints("p", {0, 1, 2, 1, 2, 0}), floats("v", {0.5f}, {})}});
  check({"Concat", {"x0", "x1", "x2"}, {{2, 3}, {2, 1}, {2, 4}}, {ai("axis", 1)}});
  Case sp{"Split", {"x0", "s"}, {{2, 6}}, {ai("axis", 1)}, {ints("s", {2, 4})}};
  sp.outputs = 2;
  check(sp);
  Case eq{"Split", {"x0"}, {{6, 2}}, {ai("axis", 0)}};
  eq.outputs = 3;
  check(eq);
}

TEST(OnnxGradcheck, Reduce) { reduce_cases(); }

// A gradient that flows through two branches (a residual connection) and stops at integer shape ops.
TEST(OnnxGradcheck, GraphAccumulatesAndStopsAtShapes) {
  Model m;
  m.ir_version = 8;
  m.opsets[""] = 13;
  auto node = [&](const std::string& op, std::vector<std::string> in, std::vector<std::string> out, std::vector<Attribute> at = {}) {
    Node n;
    n.name = out[0];
    n.op_type = op;
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    n.attributes = std::move(at);
    n.opset = 13;
    m.nodes.push_back(n);
  };
  node("Tanh", {"x0"}, {"t"});
  node("Mul", {"t", "x0"}, {"u"});
  node("Add", {"u", "t"}, {"v"});
  node("Shape", {"v"}, {"s"});
  node("Reshape", {"v", "s"}, {"y"});
  ValueInfo vi;
  vi.name = "x0";
  vi.dtype = kFloat;
  m.inputs.push_back(vi);
  vi.name = "y";
  m.outputs.push_back(vi);
  Executor<double> ex;
  std::string err;
  ASSERT_TRUE(ex.load(m, &err)) << err;
  Rng rng(3);
  Mat<double> p = test::random_mat(6, 1, rng, 1.0);
  Tensor<double> w = Tensor<double>::floats({2, 3});
  for (auto& v : w.f) v = rng.normal();
  auto run = [&](Executor<double>& e) {
    Tensor<double> x = Tensor<double>::floats({2, 3});
    for (int q = 0; q < 6; ++q) x.f[q] = p(q);
    std::string er;
    EXPECT_TRUE(e.forward({{"x0", x}}, &er)) << er;
  };
  run(ex);
  ASSERT_TRUE(ex.backward("y", w, &err)) << err;
  EXPECT_EQ(ex.gradient("s"), nullptr);  // integer: no gradient
  ASSERT_NE(ex.gradient("t"), nullptr);  // intermediate tensors have gradients
  Mat<double> analytic = Eigen::Map<const Mat<double>>(ex.gradient("x0")->f.data(), 6, 1);
  expect_gradient("graph", p, analytic, [&]() {
    run(ex);
    double s = 0;
    for (int q = 0; q < 6; ++q) s += w.f[q] * ex.value("y")->f[q];
    return s;
  });
}

// The float forms on four lanes (unary.cpp Sigmoid / Tanh / Erf, softmax.cpp's rows; the gradient checks above run
// in double, which takes the std:: loops) against the std:: formulas, at a length that leaves a tail of lanes, and a
// NaN kept where it came in (simd::exp and simd::erf clamp their input).
static std::vector<float> run_float(const std::string& op, const std::vector<float>& x) {
  const Model m = one_node_model(op, {}, 13);
  Executor<float> ex;
  std::string err;
  EXPECT_TRUE(ex.load(m, &err)) << err;
  Tensor<float> t = Tensor<float>::floats({1, static_cast<int64_t>(x.size())});
  t.f = to_values(x);
  EXPECT_TRUE(ex.forward({{"x0", t}}, &err)) << op << ": " << err;
  return ex.value("y0") ? to_std(ex.value("y0")->f) : std::vector<float>{};
}

TEST(OnnxFloatForms, SigmoidTanhErfSoftmaxFollowTheStdFormulasAndKeepNaN) {
  const std::vector<float> x = {-100.f, -3.5f, -0.25f, 0.f, 0.75f, 4.f, 30.f};
  const std::vector<float> sig = run_float("Sigmoid", x), th = run_float("Tanh", x), er = run_float("Erf", x),
                           sm = run_float("Softmax", x);
  ASSERT_EQ(sm.size(), x.size());
  double z = 0;
  for (float v : x) z += std::exp(static_cast<double>(v) - 30.0);
  for (size_t k = 0; k < x.size(); ++k) {
    const double v = x[k];
    EXPECT_NEAR(sig[k], 1.0 / (1.0 + std::exp(-v)), 1e-6) << k;
    EXPECT_NEAR(th[k], std::tanh(v), 1e-6) << k;
    EXPECT_NEAR(er[k], std::erf(v), 1e-6) << k;
    EXPECT_NEAR(sm[k], std::exp(v - 30.0) / z, 1e-6) << k;
  }
  std::vector<float> with_nan = x;
  with_nan[5] = std::numeric_limits<float>::quiet_NaN();
  for (const char* op : {"Sigmoid", "Tanh", "Erf"}) {
    const std::vector<float> y = run_float(op, with_nan);
    ASSERT_EQ(y.size(), x.size());
    EXPECT_TRUE(std::isnan(y[5])) << op;
    EXPECT_FALSE(std::isnan(y[4])) << op;
  }
  for (float v : run_float("Softmax", with_nan)) EXPECT_TRUE(std::isnan(v));  // the row's sum is NaN, as std::exp gives
}


// Softmax over a causal mask's row (keys after the query at −1e9 added): the masked chunks of four skip exp and the
// sum, and give exact zeros; the rest equals the std formula; a NaN among live keys still makes the whole row NaN,
// the masked zeros included (negative control of the skip: a row without the mask has no exact zeros).
TEST(OnnxFloatForms, SoftmaxSkipsMaskedKeysExactlyAndKeepsNaNRows) {
  for (const int live : {1, 3, 4, 5, 9, 13}) {
    std::vector<float> x(19);
    for (size_t k = 0; k < x.size(); ++k) x[k] = 0.37f * static_cast<float>(k % 7) - 1.f + (k < size_t(live) ? 0.f : -1e9f);
    const std::vector<float> y = run_float("Softmax", x);
    ASSERT_EQ(y.size(), x.size());
    double z = 0;
    for (int k = 0; k < live; ++k) z += std::exp(static_cast<double>(x[k]));
    double total = 0;
    for (size_t k = 0; k < x.size(); ++k) {
      total += y[k];
      if (static_cast<int>(k) < live) EXPECT_NEAR(y[k], std::exp(static_cast<double>(x[k])) / z, 1e-6) << live << " " << k;
      else EXPECT_EQ(y[k], 0.f) << live << " " << k;
    }
    EXPECT_NEAR(total, 1.0, 1e-6);
    std::vector<float> with_nan = x;
    with_nan[0] = std::numeric_limits<float>::quiet_NaN();
    for (float v : run_float("Softmax", with_nan)) EXPECT_TRUE(std::isnan(v)) << live;
  }
  std::vector<float> unmasked(19);
  for (size_t k = 0; k < unmasked.size(); ++k) unmasked[k] = 0.37f * static_cast<float>(k % 7) - 1.f;
  for (float v : run_float("Softmax", unmasked)) EXPECT_GT(v, 0.f);
}
