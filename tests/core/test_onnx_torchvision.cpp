// Parity of the core's ONNX executor with PyTorch on torchvision architectures no one here wrote
// (tests/fixtures/onnx/<arch>/, made by models/tools/onnx-fixtures/make_fixtures.py: seeded weights,
// torch.onnx.export opset 13, int8-stored Conv/Linear weights that PyTorch used as well):
//   logits                       within 1e-4 of max |reference| (relative)
//   input gradient d logit_c/dx  within 1e-4 of max |reference|
//   Grad-CAM at the named layer  within 1e-4 of max |reference| (pytorch-grad-cam's definition)
// Negative controls that must fail the same comparisons: one weight perturbed (logits), the gradient of
// another class (input gradient), Grad-CAM at a wrong layer.
// Also MobileNetV2 (models/image/mobilenet_v2.onnx) against ONNX Runtime Web's logits
// (tests/fixtures/onnx/mobilenet_v2_ort.json, from models/tools/onnx-fixtures/ort_reference.mjs).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "explain/onnx/layer_method.h"
#include "explain/onnx/onnx_classifier.h"
#include "io/safetensors.h"
#include "onnx/reader.h"
#include "onnx_test_util.h"

using namespace attnlab;

namespace {

const std::string kDir = std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/onnx/";

using test::rel_err;

struct Fixture {
  std::vector<uint8_t> bytes;
  SafetensorsFile ref;
  nlohmann::json meta;
};

Fixture load(const std::string& arch) {
  Fixture f;
  std::vector<uint8_t> st;
  EXPECT_TRUE(test::read_bytes(kDir + arch + "/model.onnx", &f.bytes)) << arch;
  EXPECT_TRUE(test::read_bytes(kDir + arch + "/reference.safetensors", &st)) << arch;
  std::string err;
  EXPECT_TRUE(read_safetensors(st.data(), st.size(), &f.ref, &err)) << err;
  std::ifstream m(kDir + arch + "/meta.json");
  f.meta = nlohmann::json::parse(m);
  return f;
}

class TorchvisionParity : public ::testing::TestWithParam<std::string> {};

TEST_P(TorchvisionParity, LogitsGradientGradCam) {
  const Fixture f = load(GetParam());
  OnnxClassifier clf;
  std::string err;
  ASSERT_TRUE(clf.load(f.bytes.data(), f.bytes.size(), &err)) << err;
  const auto& x = f.ref.tensors.at("input").data;
  ASSERT_TRUE(clf.forward(x.data(), x.size(), &err)) << err;
  const double e_logits = rel_err(clf.logits(), f.ref.tensors.at("logits").data);
  EXPECT_LT(e_logits, 1e-4) << "logits";
  const int c = f.meta["class"];
  ASSERT_TRUE(clf.backward_class(c, &err)) << err;
  std::vector<float> g;
  ASSERT_TRUE(clf.input_gradient(&g, &err)) << err;
  const double e_grad = rel_err(g, f.ref.tensors.at("input_grad").data);
  EXPECT_LT(e_grad, 1e-4) << "input gradient";
  LayerTensors L;
  ASSERT_TRUE(clf.layer(f.meta["layer"], &L, &err)) << err;
  EXPECT_LT(rel_err(L.activation, f.ref.tensors.at("activation").data), 1e-4) << "activation";
  const double e_cam = rel_err(onnx_grad_cam(L), f.ref.tensors.at("gradcam").data);
  EXPECT_LT(e_cam, 1e-4) << "Grad-CAM";
  std::printf("[torchvision parity] %s: logits %.2e, input gradient %.2e, Grad-CAM %.2e (relative)\n",
              GetParam().c_str(), e_logits, e_grad, e_cam);
  // The layer `auto` picks is spatial.
  const std::string autol = clf.auto_layer();
  ASSERT_FALSE(autol.empty());
  // Negative control 1: the gradient of another class differs.
  ASSERT_TRUE(clf.backward_class((c + 1) % clf.num_classes(), &err)) << err;
  ASSERT_TRUE(clf.input_gradient(&g, &err));
  EXPECT_GT(rel_err(g, f.ref.tensors.at("input_grad").data), 1e-2) << "another class's gradient must not match";
  // Negative control 2: Grad-CAM at a wrong layer.
  ASSERT_TRUE(clf.backward_class(c, &err));
  LayerTensors W;
  ASSERT_TRUE(clf.layer(f.meta["wrong_layer"], &W, &err)) << err;
  EXPECT_GT(rel_err(onnx_grad_cam(W), f.ref.tensors.at("gradcam").data), 1e-2) << "a wrong layer's Grad-CAM must not match";
}

TEST_P(TorchvisionParity, PerturbedWeightFails) {
  const Fixture f = load(GetParam());
  onnx::Model m;
  std::string err;
  ASSERT_TRUE(onnx::read_model(f.bytes.data(), f.bytes.size(), &m, &err)) << err;
  // Perturb the largest float initializer (a BN or bias tensor) by 10 % at one entry.
  onnx::TensorData* t = nullptr;
  for (auto& init : m.initializers)
    if (!init.f.empty() && (!t || init.f.size() > t->f.size())) t = &init;
  ASSERT_NE(t, nullptr);
  for (auto& v : t->f) v *= 1.1f;
  onnx::Executor<float> ex;
  ASSERT_TRUE(ex.load(m, &err)) << err;
  const auto& xin = f.ref.tensors.at("input");
  onnx::Tensor<float> x = onnx::Tensor<float>::floats(xin.shape);
  x.f = onnx::to_values(xin.data);
  ASSERT_TRUE(ex.forward({{m.inputs[0].name, x}}, &err)) << err;
  EXPECT_GT(rel_err(onnx::to_std(ex.value(m.outputs[0].name)->f), f.ref.tensors.at("logits").data), 1e-3)
      << "a perturbed tensor (" << t->name << ") must change the logits";
}

INSTANTIATE_TEST_SUITE_P(Onnx, TorchvisionParity,
                         ::testing::Values("squeezenet1_1", "shufflenet_v2_x0_5", "mobilenet_v3_small", "resnet10"));

// Our shipped MobileNetV2 (TFLite → ONNX, DequantizeLinear + Clip + Conv) against ONNX Runtime Web.
TEST(OnnxOrtParity, MobileNetV2Logits) {
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(test::read_bytes(std::string(ATTNLAB_SOURCE_DIR) + "/models/image/mobilenet_v2.onnx", &bytes));
  std::ifstream jf(kDir + "mobilenet_v2_ort.json");
  ASSERT_TRUE(jf) << "fixture missing";
  const nlohmann::json ref = nlohmann::json::parse(jf);
  OnnxClassifier clf;
  std::string err;
  ASSERT_TRUE(clf.load(bytes.data(), bytes.size(), &err)) << err;
  // The input rule of ort_reference.mjs: x[k] = (k · 37 + 11) mod 256.
  std::vector<float> x(3 * 224 * 224);
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>((k * 37 + 11) % 256);
  ASSERT_TRUE(clf.forward(x.data(), x.size(), &err)) << err;
  const std::vector<float> want = ref["logits"].get<std::vector<float>>();
  const double e = rel_err(clf.logits(), want);
  std::printf("[ort parity] mobilenet_v2 logits: %.2e relative\n", e);
  EXPECT_LT(e, 1e-4);
  // Negative control: a shifted input (another image) does not match.
  for (auto& v : x) v = 255.f - v;
  ASSERT_TRUE(clf.forward(x.data(), x.size(), &err));
  EXPECT_GT(rel_err(clf.logits(), want), 1e-2);
}

}  // namespace
