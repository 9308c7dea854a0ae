// Opsets 19–21 in the executor (issue 28: graphs newer exporters write): opset 20's Gelu (both approximations) and an
// opset-21 feed-forward block (LayerNormalization, MatMul, Gelu, Cast with opset 19's `saturate`) give ONNX Runtime
// Web's outputs (tests/fixtures/onnx/opset21, models/tools/onnx-fixtures/make_opset21_fixtures.mjs); negative
// controls: the other approximation's outputs and a changed weight are told apart. What opsets 19–21 changed in the
// operators the executor implements and it does not follow is refused by name (blocked dequantization, an unknown
// approximation); opset 22 is outside the range. Gelu's backward is gradient-checked in
// test_onnx_gradcheck.cpp, its propagation rule in test_onnx_propagation.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "onnx_test_util.h"

namespace attnlab {
namespace {

const std::string kOpset21Dir = std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/onnx/opset21/";

nlohmann::json opset21_reference() { return nlohmann::json::parse(test::read_text(kOpset21Dir + "ort.json")); }

// The executor's output y of model m on a fixture case's input (empty when it did not run: *err says).
std::vector<float> run_opset21(const onnx::Model& m, const nlohmann::json& c, std::string* err) {
  onnx::Executor<float> ex;
  if (!ex.load(m, err)) return {};
  onnx::Tensor<float> x = onnx::Tensor<float>::floats(c["shape"].get<onnx::Shape>());
  x.f = onnx::to_values(c["input"].get<std::vector<float>>());
  if (!ex.forward({{"x", x}}, err)) return {};
  return onnx::to_std(ex.value("y")->f);
}

TEST(OnnxOpset21, GeluAndAnOpset21BlockGiveOnnxRuntimesOutputs) {
  const nlohmann::json ref = opset21_reference();
  for (const char* name : {"gelu_none", "gelu_tanh", "mlp_block"}) {
    onnx::Model m;
    std::string err;
    ASSERT_TRUE(test::load_model_file(kOpset21Dir + name + ".onnx", &m, &err)) << name << ": " << err;
    EXPECT_EQ(m.opsets[""], std::string(name) == "mlp_block" ? 21 : 20) << name;
    const nlohmann::json& c = ref["cases"][name];
    const std::vector<float> y = run_opset21(m, c, &err);
    ASSERT_FALSE(y.empty()) << name << ": " << err;
    EXPECT_LT(test::rel_err(y, c["output"].get<std::vector<float>>()), 1e-6) << name;
  }
}

TEST(OnnxOpset21, NegativeControlsTheApproximationAndAWeightAreSeen) {
  const nlohmann::json ref = opset21_reference();
  onnx::Model none, block;
  std::string err;
  ASSERT_TRUE(test::load_model_file(kOpset21Dir + "gelu_none.onnx", &none, &err)) << err;
  // Gelu "none" against ORT's "tanh" outputs: the two differ by far more than the tolerance above.
  const std::vector<float> y = run_opset21(none, ref["cases"]["gelu_none"], &err);
  EXPECT_GT(test::rel_err(y, ref["cases"]["gelu_tanh"]["output"].get<std::vector<float>>()), 1e-5);
  ASSERT_TRUE(test::load_model_file(kOpset21Dir + "mlp_block.onnx", &block, &err)) << err;
  for (auto& t : block.initializers)
    if (t.name == "w2") t.f[5] += 0.01f;
  const std::vector<float> yb = run_opset21(block, ref["cases"]["mlp_block"], &err);
  ASSERT_FALSE(yb.empty()) << err;
  EXPECT_GT(test::rel_err(yb, ref["cases"]["mlp_block"]["output"].get<std::vector<float>>()), 1e-5);
}

// What the executor does not follow is named; opset 22 is outside the range.
TEST(OnnxOpset21, WhatIsNotFollowedIsRefusedByName) {
  onnx::Model m;
  std::string err;
  ASSERT_TRUE(test::load_model_file(kOpset21Dir + "gelu_tanh.onnx", &m, &err)) << err;
  const nlohmann::json c = opset21_reference()["cases"]["gelu_tanh"];
  m.nodes[0].attributes[0].s = "erf";
  EXPECT_TRUE(run_opset21(m, c, &err).empty());
  EXPECT_NE(err.find("approximate 'erf' is not one of the spec's"), std::string::npos) << err;
  m.nodes[0].attributes.clear();
  m.opsets[""] = 22;
  for (auto& n : m.nodes) n.opset = 22;
  EXPECT_TRUE(run_opset21(m, c, &err).empty());
  EXPECT_NE(err.find("opset 22 of the default domain is outside the supported range 1 to 21"), std::string::npos) << err;
  // Gelu is an opset-20 operator
  m.opsets[""] = 18;
  for (auto& n : m.nodes) n.opset = 18;
  EXPECT_TRUE(run_opset21(m, c, &err).empty());
  EXPECT_NE(err.find("from opset 20"), std::string::npos) << err;
  // DequantizeLinear's blocked quantization (opset 21)
  onnx::Model q;
  q.ir_version = 10;
  q.opsets[""] = 21;
  onnx::Node d;
  d.name = "dq";
  d.op_type = "DequantizeLinear";
  d.opset = 21;
  d.inputs = {"qx", "s"};
  d.outputs = {"y"};
  d.attributes = {test::int_attr("block_size", 2)};
  q.nodes = {d};
  onnx::TensorData qx;
  qx.name = "qx";
  qx.dtype = onnx::kInt8;
  qx.dims = {4};
  qx.i = {1, 2, 3, 4};
  onnx::TensorData s;
  s.name = "s";
  s.dtype = onnx::kFloat;
  s.dims = {2};
  s.f = {0.5f, 0.25f};
  q.initializers = {qx, s};
  onnx::ValueInfo yo;
  yo.name = "y";
  q.outputs = {yo};
  onnx::Executor<float> ex;
  if (ex.load(q, &err)) EXPECT_FALSE(ex.forward({}, &err));
  EXPECT_NE(err.find("blocked quantization (block_size, opset 21) is not supported"), std::string::npos) << err;
}

}  // namespace
}  // namespace attnlab
