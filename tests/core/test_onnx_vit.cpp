// The attention methods on an image transformer (explain/onnx/vit_maps.h) against PyTorch: a torchvision
// VisionTransformer with seeded weights (tests/fixtures/onnx/vit_tiny/, made by
// models/tools/onnx-fixtures/make_vit_fixture.py: 48 × 48 input, 8 × 8 patches, 2 layers, 3 heads), whose reference
// maps come from our own re-implementation of the ViT forward in PyTorch (its logits checked against the module's):
//   logits                              within 1e-4 of max |reference| (relative)
//   attention, rollout, chefer maps     within 1e-4 of max |reference| over the 6 × 6 patch grid
//   attnlrp, cp-lrp maps and their sums within 1e-4, the rules in gradient form (reference.json "relevance")
// Negative controls that must fail the same comparison: each map against another method's reference, and against
// its own reference transposed (the grid's orientation). Also: Grad-CAM on the last block's tokens (a ViT's `auto`
// layer) = pytorch-grad-cam's recipe in PyTorch, the patch grid rule, a CNN refused with a message,
// the sanity check of a ViT map (every weight shuffled), and a distillation token.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "explain/onnx/onnx_explain.h"
#include "explain/onnx/vit_maps.h"
#include "onnx_test_util.h"

using namespace attnlab;

namespace {

const std::string kVitDir = std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/onnx/vit_tiny/";


std::vector<double> transposed(const std::vector<double>& m, int side) {
  std::vector<double> t(m.size());
  for (int i = 0; i < side; ++i)
    for (int j = 0; j < side; ++j) t[static_cast<size_t>(j * side + i)] = m[static_cast<size_t>(i * side + j)];
  return t;
}

struct VitFixture {
  OnnxClassifier clf;
  nlohmann::json ref;
  std::vector<float> x;
};

void load_vit(VitFixture* f) {
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(test::read_bytes(kVitDir + "model.onnx", &bytes));
  std::string err;
  ASSERT_TRUE(f->clf.load(bytes.data(), bytes.size(), &err)) << err;
  std::ifstream in(kVitDir + "reference.json");
  f->ref = nlohmann::json::parse(in);
  f->x = f->ref["input"].get<std::vector<float>>();
}

}  // namespace

TEST(OnnxVit, LogitsAndMapsEqualTorch) {
  VitFixture f;
  load_vit(&f);
  const int side = f.ref["grid"][0];
  for (const std::string method : {"attention", "rollout", "chefer"}) {
    OnnxExplainRequest r;
    r.method = method;
    nlohmann::json out;
    std::string err;
    ASSERT_TRUE(onnx_explain(f.clf, f.x, r, &out, &err)) << method << ": " << err;
    EXPECT_LT(test::rel_err(out["logits"].get<std::vector<float>>(), f.ref["logits"].get<std::vector<double>>()), 1e-4);
    EXPECT_EQ(out["class"], f.ref["class"]);
    EXPECT_EQ(out["layer"], "attention");
    EXPECT_EQ(out["map_shape"], nlohmann::json({side, side}));
    EXPECT_EQ(out["tokens"], f.ref["tokens"]);
    EXPECT_EQ(out["class_tokens"], 1);
    EXPECT_EQ(out["layers"], 2);
    EXPECT_EQ(out["heads"], 3);
    EXPECT_FALSE(out.contains("note"));
    const std::vector<float> map = out["map"];
    const std::vector<double> want = f.ref["maps"][method];
    EXPECT_LT(test::rel_err(map, want), 1e-4) << method;
    // Negative controls: the grid transposed, and every other method's reference.
    EXPECT_GT(test::rel_err(map, transposed(want, side)), 1e-2) << method;
    for (const std::string other : {"attention", "rollout", "chefer"})
      if (other != method) EXPECT_GT(test::rel_err(map, f.ref["maps"][other].get<std::vector<double>>()), 1e-2) << method << " vs " << other;
  }
}

TEST(OnnxVit, AttnLrpAndCpLrpEqualTorchsRulesInGradientForm) {
  // reference.json "relevance": the re-implementation with the LayerNorms' variance and GELU's Φ detached, half the
  // gradient to each factor of Q·Kᵀ and A·V (AttnLRP) or the attention detached (CP-LRP), in double; x · r per
  // pixel, summed over the channels and each 8 × 8 patch.
  VitFixture f;
  load_vit(&f);
  const int side = f.ref["grid"][0];
  const auto& rel = f.ref["relevance"];
  for (const auto& [method, key] : {std::pair<std::string, std::string>{"attnlrp", "attnlrp"}, {"cp-lrp", "cp_lrp"}}) {
    OnnxExplainRequest r;
    r.method = method;
    nlohmann::json out;
    std::string err;
    ASSERT_TRUE(onnx_explain(f.clf, f.x, r, &out, &err)) << method << ": " << err;
    EXPECT_EQ(out["map_shape"], nlohmann::json({side, side}));
    const std::vector<float> map = out["map"];
    const std::vector<double> want = rel[key]["map"];
    EXPECT_LT(test::rel_err(map, want), 1e-4) << method;
    const double total = out["conservation"]["pixels"], logit = out["conservation"]["logit"];
    EXPECT_NEAR(total, rel[key]["total"].get<double>(), 1e-4 * std::abs(rel[key]["total"].get<double>())) << method;
    EXPECT_NEAR(logit, rel[key]["logit"].get<double>(), 1e-4) << method;
    EXPECT_NEAR(out["conservation"]["unexplained"].get<double>(), logit - total, 1e-9);
    EXPECT_FALSE(out["rules"].empty());
    // Negative controls: the other rule's reference, plain gradient × input, and the grid transposed.
    const std::string other = key == "attnlrp" ? "cp_lrp" : "attnlrp";
    EXPECT_GT(test::rel_err(map, rel[other]["map"].get<std::vector<double>>()), 1e-2) << method;
    EXPECT_GT(test::rel_err(map, rel["gradient_x_input"]["map"].get<std::vector<double>>()), 1e-2) << method;
    EXPECT_GT(test::rel_err(map, transposed(want, side)), 1e-2) << method;
  }
}

TEST(OnnxVit, CheferExplainsTheAskedClass) {
  // The gradient-weighted map depends on the class; the attention maps do not.
  VitFixture f;
  load_vit(&f);
  const int top = f.ref["class"];
  auto map_of = [&](const std::string& method, int cls) {
    OnnxExplainRequest r;
    r.method = method;
    r.class_index = cls;
    nlohmann::json out;
    std::string err;
    EXPECT_TRUE(onnx_explain(f.clf, f.x, r, &out, &err)) << err;
    return out["map"].get<std::vector<float>>();
  };
  const std::vector<float> a = map_of("chefer", top), b = map_of("chefer", (top + 1) % 5);
  EXPECT_GT(test::rel_err(b, std::vector<double>(a.begin(), a.end())), 1e-2);
  const std::vector<float> c = map_of("rollout", top), d = map_of("rollout", (top + 1) % 5);
  EXPECT_EQ(c, d);
}

TEST(OnnxVit, PatchGridFromTheTokenCount) {
  PatchGrid g = patch_grid(37);  // class token + 6 × 6
  EXPECT_EQ(g.class_tokens, 1);
  EXPECT_EQ(g.grid_h, 6);
  EXPECT_EQ(g.grid_w, 6);
  EXPECT_TRUE(g.note.empty());
  g = patch_grid(198);  // DeiT: class + distillation token + 14 × 14
  EXPECT_EQ(g.class_tokens, 2);
  EXPECT_EQ(g.grid_h, 14);
  g = patch_grid(197);  // ViT-B/16 at 224
  EXPECT_EQ(g.class_tokens, 1);
  EXPECT_EQ(g.grid_w, 14);
  g = patch_grid(13);  // 12 tokens: no square grid
  EXPECT_EQ(g.class_tokens, 1);
  EXPECT_EQ(g.grid_h, 1);
  EXPECT_EQ(g.grid_w, 12);
  EXPECT_NE(g.note.find("not a square patch grid"), std::string::npos);
}

TEST(OnnxVit, ACnnIsRefusedWithAMessage) {
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(test::read_bytes(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/onnx/squeezenet1_1/model.onnx", &bytes));
  OnnxClassifier clf;
  std::string err;
  ASSERT_TRUE(clf.load(bytes.data(), bytes.size(), &err)) << err;
  const auto shape = clf.input_shape();
  std::vector<float> x(static_cast<size_t>(shape[1] * shape[2] * shape[3]), 0.1f);
  OnnxExplainRequest r;
  r.method = "rollout";
  nlohmann::json out;
  EXPECT_FALSE(onnx_explain(clf, x, r, &out, &err));
  EXPECT_NE(err.find("no attention was found"), std::string::npos) << err;
  // The same model's Grad-CAM still runs (negative control: the refusal is the method's, not the model's).
  r.method = "gradcam";
  EXPECT_TRUE(onnx_explain(clf, x, r, &out, &err)) << err;
}

TEST(OnnxVit, SanityCheckShufflesEveryWeight) {
  VitFixture f;
  load_vit(&f);
  OnnxExplainRequest r;
  r.method = "rollout";
  nlohmann::json out;
  std::string err;
  ASSERT_TRUE(onnx_sanity(f.clf, f.x, r, 3, &out, &err)) << err;
  EXPECT_EQ(out["layer"], "attention");
  EXPECT_GT(out["shuffled"].get<int>(), 10);
  EXPECT_NE(out["map"], out["randomized_map"]);
  EXPECT_EQ(out["map"].size(), 36u);
  EXPECT_EQ(out["randomized_map"].size(), 36u);
}

TEST(OnnxVit, GradCamOnTheLastBlocksTokensEqualsTorch) {
  // pytorch-grad-cam's ViT recipe: the tokens without the class token read as [D, g, g], at the last block's
  // normalised input — what `auto` picks for a ViT.
  VitFixture f;
  load_vit(&f);
  std::string err;
  ASSERT_TRUE(f.clf.forward(f.x.data(), f.x.size(), &err)) << err;
  const std::string want_layer = f.ref["token_layer"];
  EXPECT_EQ(f.clf.auto_layer(), want_layer);
  int token_layers = 0;
  std::string last_token_layer;
  for (const SpatialLayer& l : f.clf.spatial_layers())
    if (l.class_tokens > 0) {
      EXPECT_EQ(l.class_tokens, 1) << l.name;
      EXPECT_EQ(l.height, 6) << l.name;
      EXPECT_EQ(l.width, 6) << l.name;
      ++token_layers;
      last_token_layer = l.name;
    }
  EXPECT_GT(token_layers, 10);
  auto cam_at = [&](const std::string& method, const std::string& layer) {
    OnnxExplainRequest r;
    r.method = method;
    r.layer = layer;
    nlohmann::json out;
    std::string e;
    EXPECT_TRUE(onnx_explain(f.clf, f.x, r, &out, &e)) << method << " at " << layer << ": " << e;
    EXPECT_EQ(out["map_shape"], nlohmann::json({6, 6}));
    return out.value("map", std::vector<float>{});
  };
  const std::vector<float> map = cam_at("gradcam", "auto");
  const std::vector<double> want = f.ref["gradcam_tokens"];
  EXPECT_LT(test::rel_err(map, want), 1e-4);
  EXPECT_GT(test::rel_err(map, transposed(want, 6)), 1e-2);  // negative control: the grid's orientation
  // The last token layer (after the final LayerNorm) reaches the head through the class token only: no gradient at the
  // patches, so Grad-CAM there is zero everywhere — why `auto` walks back to the last block's input instead.
  const std::vector<float> last = cam_at("gradcam", last_token_layer);
  ASSERT_EQ(last.size(), 36u);
  for (float v : last) EXPECT_EQ(v, 0.f);
  // AblationCAM writes its ablated grid back into the tokens (class token kept) and re-runs the rest.
  const std::vector<float> ablation = cam_at("ablationcam", "auto");
  ASSERT_EQ(ablation.size(), 36u);
  EXPECT_GT(*std::max_element(ablation.begin(), ablation.end()), *std::min_element(ablation.begin(), ablation.end()));
}
