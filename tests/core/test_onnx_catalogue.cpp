// "Your model"'s shared pieces (core/explain/onnx/method_catalogue, core/image/model_input): every catalogue
// method is a registered layer or input method and back; the options' defaults are InputMethodOptions' own and the
// spec checks name the key; the input scalings in closed form on a constant photo (and the grey / resized paths);
// the refusals with their messages.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "catalogue/catalogue.h"
#include "explain/onnx/input_method.h"
#include "explain/onnx/layer_method.h"
#include "explain/onnx/method_catalogue.h"
#include "explain/onnx/onnx_explain.h"
#include "image/model_input.h"

namespace attnlab {
namespace {

TEST(OnnxCatalogue, EveryMethodIsRegisteredAndBack) {
  int layer = 0, input = 0;
  for (const OnnxMethodInfo& m : onnx_method_catalogue()) {
    if (m.kind == "layer") {
      if (m.name != "ablationcam") {  // forward passes instead of a LayerMethodFn (layer_method.h)
        EXPECT_NE(find_layer_method(m.name), nullptr) << m.name;
        ++layer;
      }
    } else {
      EXPECT_EQ(m.kind, "input") << m.name;
      EXPECT_NE(find_input_method(m.name), nullptr) << m.name;
      ++input;
    }
  }
  EXPECT_EQ(layer, static_cast<int>(layer_method_names().size()));
  EXPECT_EQ(input, 3);
  EXPECT_EQ(onnx_method_names().size(), onnx_method_catalogue().size());
  const auto c = catalogue_json();
  EXPECT_EQ(c["onnx"]["methods"].size(), onnx_method_catalogue().size());
  EXPECT_EQ(c["onnx"]["scalings"].size(), 4u);
  for (const auto& p : c["onnx"]["plans"]) {  // each plan named is an image-lab method of the catalogue
    bool found = false;
    for (const auto& m : c["image"]["methods"]) found = found || m["name"] == p;
    EXPECT_TRUE(found) << p;
  }
}

TEST(OnnxCatalogue, OptionDefaultsAndChecks) {
  InputMethodOptions o, defaults;
  o.samples = 3;  // overwritten by the defaults
  ASSERT_EQ(onnx_options_from_json(nlohmann::json::object(), &o), "");
  EXPECT_EQ(o.samples, defaults.samples);
  EXPECT_DOUBLE_EQ(o.noise, defaults.noise);
  EXPECT_EQ(o.steps, defaults.steps);
  EXPECT_EQ(o.seed, defaults.seed);
  ASSERT_EQ(onnx_options_from_json({{"steps", 7}, {"seed", 9}}, &o), "");
  EXPECT_EQ(o.steps, 7);
  EXPECT_EQ(o.seed, 9u);
  EXPECT_NE(onnx_options_from_json({{"samples", 0}}, &o).find("samples"), std::string::npos);
  EXPECT_NE(onnx_options_from_json({{"noise", "a lot"}}, &o).find("noise"), std::string::npos);
  EXPECT_NE(onnx_options_from_json({{"steps", 2.5}}, &o).find("integer"), std::string::npos);
  EXPECT_EQ(onnx_options_from_json(nlohmann::json::array(), &o), "options must be a JSON object");
}

TEST(ModelInput, ScalingsInClosedForm) {
  const int S = 4;
  std::vector<float> rgb(3 * S * S);
  for (int c = 0; c < 3; ++c)
    for (int p = 0; p < S * S; ++p) rgb[c * S * S + p] = 51.f * (c + 1);  // R 51, G 102, B 153
  const float mean[3] = {0.485f, 0.456f, 0.406f}, sd[3] = {0.229f, 0.224f, 0.225f};
  std::vector<float> x;
  std::string err;
  struct Case { const char* name; float r, g, b; };
  const Case cases[] = {
      {"imagenet", (0.2f - mean[0]) / sd[0], (0.4f - mean[1]) / sd[1], (0.6f - mean[2]) / sd[2]},
      {"unit", 0.2f, 0.4f, 0.6f}, {"raw", 51.f, 102.f, 153.f}, {"signed", 51.f / 127.5f - 1, 102.f / 127.5f - 1, 153.f / 127.5f - 1}};
  for (const Case& k : cases) {
    InputScaling s;
    ASSERT_TRUE(parse_input_scaling(k.name, &s, &err)) << err;
    ASSERT_TRUE(model_input_from_planar(rgb.data(), S, 3, S, S, s, &x, &err)) << err;
    ASSERT_EQ(x.size(), rgb.size());
    EXPECT_NEAR(x[0], k.r, 1e-6) << k.name;
    EXPECT_NEAR(x[S * S + 5], k.g, 1e-6) << k.name;
    EXPECT_NEAR(x[2 * S * S + 15], k.b, 1e-6) << k.name;
  }
  // grey: the mean of R, G, B (102), then the first mean / std; a constant photo stays constant when resized
  InputScaling unit;
  ASSERT_TRUE(parse_input_scaling("unit", &unit, &err));
  ASSERT_TRUE(model_input_from_planar(rgb.data(), S, 1, 7, 7, unit, &x, &err)) << err;
  ASSERT_EQ(x.size(), 49u);
  for (float v : x) EXPECT_NEAR(v, 0.4f, 1e-6);
}

TEST(ModelInput, Refusals) {
  std::vector<float> rgb(3 * 16, 0.f), x;
  std::string err;
  InputScaling s;
  EXPECT_FALSE(parse_input_scaling("bgr", &s, &err));
  EXPECT_NE(err.find("imagenet, unit, raw or signed"), std::string::npos);
  EXPECT_FALSE(model_input_from_planar(rgb.data(), 4, 2, 4, 4, InputScaling::Unit, &x, &err));
  EXPECT_NE(err.find("2 channels"), std::string::npos);
  EXPECT_FALSE(model_input_from_planar(rgb.data(), 4, 3, 4, 8, InputScaling::Unit, &x, &err));
  EXPECT_NE(err.find("square"), std::string::npos);
  EXPECT_FALSE(model_input_from_planar(nullptr, 4, 3, 4, 4, InputScaling::Unit, &x, &err));
}

}  // namespace
}  // namespace attnlab

// AblationCAM's forward re-runs against the gradient, on a real model: after MobileNetV2's last spatial layer
// comes global average pooling and one linear layer, so zeroing channel k lowers the logit by exactly
// W_ck · mean(A_k) = Σ_p G_k,p A_k,p (G = the executor's backward, another code path) and w_k = that / y_c.
// Negative control: after squeezenet's features.3 come max pooling and eight Fire modules; zeroing a whole channel
// there changes which units are active, so the first-order gradient path no longer equals the drop.
#include "explain/onnx/onnx_classifier.h"
#include "onnx_test_util.h"

namespace attnlab {
namespace {

double ablation_vs_gradient(const std::string& file, const std::string& layer_or_auto, int size) {
  std::vector<uint8_t> bytes;
  EXPECT_TRUE(test::read_bytes(std::string(ATTNLAB_SOURCE_DIR) + file, &bytes)) << file;
  OnnxClassifier clf;
  std::string err;
  EXPECT_TRUE(clf.load(bytes.data(), bytes.size(), &err)) << err;
  std::vector<float> x(3 * size * size);
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>((k * 37 + 11) % 256);
  if (file.find("squeezenet") != std::string::npos)
    for (float& v : x) v = v / 255.f - 0.5f;
  EXPECT_TRUE(clf.forward(x.data(), x.size(), &err)) << err;
  const std::string layer = layer_or_auto == "auto" ? clf.auto_layer() : layer_or_auto;
  const auto logits = clf.logits();
  const int c = static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
  EXPECT_TRUE(clf.backward_class(c, &err)) << err;
  LayerTensors L;
  EXPECT_TRUE(clf.layer(layer, &L, &err)) << err;
  LayerMapResult r;
  EXPECT_TRUE(onnx_ablation_cam(clf, x, layer, c, &r, &err)) << err;
  EXPECT_EQ(static_cast<int>(r.weights.size()), L.k);
  EXPECT_EQ(clf.logits(), logits);  // the network is restored afterwards
  const size_t hw = static_cast<size_t>(L.h) * L.w;
  double worst = 0, scale = 0;
  for (int k = 0; k < L.k; ++k) {
    double d = 0;
    for (size_t p = 0; p < hw; ++p) d += static_cast<double>(L.gradient[k * hw + p]) * L.activation[k * hw + p];
    const double want = d / logits[c];
    worst = std::max(worst, std::abs(r.weights[k] - want));
    scale = std::max(scale, std::abs(want));
  }
  return worst / scale;
}

TEST(OnnxMethods, AblationCamEqualsTheGradientPathBeforeALinearHead) {
  EXPECT_LT(ablation_vs_gradient("/models/image/mobilenet_v2.onnx", "auto", 224), 1e-3);
}

TEST(OnnxMethods, AblationCamDiffersWhereTheRestIsNonLinear) {
  EXPECT_GT(ablation_vs_gradient("/tests/fixtures/onnx/squeezenet1_1/model.onnx", "/features/features.3/Concat_output_0", 112), 1e-2);
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

// Weight shuffling after a layer (OnnxClassifier::randomized_after): the activation at the layer stays, the logits
// move; shuffling everything moves the activation too; the same seed gives the same network; the sanity check
// reports a finite ρ and the tensors shuffled.
TEST(OnnxMethods, WeightShufflingAfterALayer) {
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(test::read_bytes(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/onnx/squeezenet1_1/model.onnx", &bytes));
  OnnxClassifier clf;
  std::string err;
  ASSERT_TRUE(clf.load(bytes.data(), bytes.size(), &err)) << err;
  std::vector<float> x(3 * 112 * 112);
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>((k * 37 + 11) % 256) / 255.f - 0.5f;
  ASSERT_TRUE(clf.forward(x.data(), x.size(), &err)) << err;
  const std::string layer = "/features/features.9/Concat_output_0";
  LayerTensors A;
  ASSERT_TRUE(clf.layer(layer, &A, &err)) << err;
  const auto logits = clf.logits();

  auto shuffled = [&](const std::string& after, uint64_t seed, LayerTensors* at, std::vector<float>* out_logits) {
    OnnxClassifier r;
    int n = 0;
    EXPECT_TRUE(clf.randomized_after(after, seed, &r, &n, &err)) << err;
    EXPECT_TRUE(r.forward(x.data(), x.size(), &err)) << err;
    EXPECT_TRUE(r.layer(layer, at, &err)) << err;
    *out_logits = r.logits();
    return n;
  };
  LayerTensors B, C, D;
  std::vector<float> lb, lc, ld;
  const int n_after = shuffled(layer, 1, &B, &lb);
  EXPECT_GT(n_after, 0);
  EXPECT_EQ(B.activation, A.activation);  // nothing before the layer changed
  EXPECT_NE(lb, logits);
  shuffled(layer, 1, &C, &lc);
  EXPECT_EQ(lc, lb);  // deterministic
  shuffled(layer, 2, &C, &lc);
  EXPECT_NE(lc, lb);
  const int n_all = shuffled("", 1, &D, &ld);
  EXPECT_GT(n_all, n_after);
  EXPECT_NE(D.activation, A.activation);
  OnnxClassifier none;
  int n = 0;
  EXPECT_FALSE(clf.randomized_after("no-such-layer", 1, &none, &n, &err));
  EXPECT_NE(err.find("no-such-layer"), std::string::npos);

  OnnxExplainRequest req;
  req.method = "gradcam";
  req.layer = layer;
  nlohmann::json out;
  ASSERT_TRUE(onnx_sanity(clf, x, req, 1, &out, &err)) << err;
  EXPECT_EQ(out["layer"], layer);
  EXPECT_EQ(out["shuffled"], n_after);
  ASSERT_TRUE(out["spearman"].is_number());
  EXPECT_LT(out["spearman"].get<double>(), 0.999);
  EXPECT_EQ(out["map"].size(), out["randomized_map"].size());
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

// A backward that stops at a layer (Grad-CAM's) gives that layer exactly the full backward's gradient and computes
// nothing upstream (the input gets no gradient).
TEST(OnnxMethods, BackwardStopsAtTheLayer) {
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(test::read_bytes(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/onnx/squeezenet1_1/model.onnx", &bytes));
  OnnxClassifier clf;
  std::string err;
  ASSERT_TRUE(clf.load(bytes.data(), bytes.size(), &err)) << err;
  std::vector<float> x(3 * 112 * 112), g;
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>((k * 37 + 11) % 256) / 255.f - 0.5f;
  ASSERT_TRUE(clf.forward(x.data(), x.size(), &err)) << err;
  const std::string layer = "/features/features.9/Concat_output_0";
  LayerTensors full, part;
  ASSERT_TRUE(clf.backward_class(3, &err)) << err;
  ASSERT_TRUE(clf.layer(layer, &full, &err)) << err;
  ASSERT_TRUE(clf.input_gradient(&g, &err)) << err;
  ASSERT_TRUE(clf.backward_class(3, &err, layer)) << err;
  ASSERT_TRUE(clf.layer(layer, &part, &err)) << err;
  EXPECT_EQ(part.gradient, full.gradient);
  EXPECT_FALSE(clf.input_gradient(&g, &err));
}

}  // namespace
}  // namespace attnlab
