// "Your model"'s shared pieces (core/explain/onnx/method_catalogue, core/image/model_input): every catalogue
// method is a registered layer, input or attention method and back; the options' defaults are InputMethodOptions' own and the
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
#include "explain/onnx/vit_maps.h"
#include "image/model_input.h"

namespace attnlab {
namespace {

TEST(OnnxCatalogue, EveryMethodIsRegisteredAndBack) {
  int layer = 0, input = 0, attention = 0;
  for (const OnnxMethodInfo& m : onnx_method_catalogue()) {
    if (m.kind == "layer") {
      if (m.name != "ablationcam" && m.name != "random") {  // not LayerMethodFns (layer_method.h)
        EXPECT_NE(find_layer_method(m.name), nullptr) << m.name;
        ++layer;
      }
    } else if (m.kind == "attention") {
      EXPECT_TRUE(is_vit_method(m.name)) << m.name;
      EXPECT_EQ(find_input_method(m.name), nullptr) << m.name;
      ++attention;
    } else {
      EXPECT_EQ(m.kind, "input") << m.name;
      EXPECT_NE(find_input_method(m.name), nullptr) << m.name;
      ++input;
    }
  }
  EXPECT_EQ(layer, static_cast<int>(layer_method_names().size()));
  EXPECT_EQ(input, 4);
  EXPECT_EQ(attention, static_cast<int>(vit_method_names().size()));
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
