// eval-onnx-shapes (experiments/onnx_shapes_localization.h) on the ViT fixture (tests/fixtures/onnx/vit_tiny, 48 px):
//   - its accuracy, mask area and centre baseline equal a direct count over the same test split; the maps are the
//     6 × 6 patch grid; every rate lies in [0, 1] and a 0-px hit is a hit at the standard tolerance; progress is
//     called once per image, and returning false stops with "cancelled";
//   - a model whose input is not the shapes' size is refused with a message.
//   - the shipped ViT (models/image/vit-shapes) gives torch's logits on its probe images.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "experiments/onnx_shapes_localization.h"
#include "onnx_test_util.h"

using namespace attnlab;

static const std::string kVitTiny = std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/onnx/vit_tiny/model.onnx";


TEST(OnnxShapes, AccuracyBaselineAndMaskAreaAreTheDataSets) {
  // The ViT fixture (48 × 48, 5 classes, seeded weights): the shapes are made at its size.
  OnnxClassifier clf;
  std::string err;
  ASSERT_TRUE(test::load_classifier_file(kVitTiny, &clf, &err)) << err;
  OnnxShapesRequest r;
  r.shapes.image_size = 48;
  r.seed = 3;
  r.n = 12;
  r.methods = {"rollout", "attention"};
  nlohmann::json out;
  int calls = 0;
  ASSERT_TRUE(onnx_shapes_localization(clf, r, &out, &err, [&](int done, int total) {
    EXPECT_EQ(total, 12);
    EXPECT_EQ(done, ++calls);
    return true;
  })) << err;
  EXPECT_EQ(calls, 12);
  // accuracy, mask area and the centre baseline: a direct count over the same split
  const ShapesDataset test(r.shapes, r.seed, Split::Test, r.n);
  int correct = 0, centre = 0;
  double area = 0;
  for (int i = 0; i < r.n; ++i) {
    const ShapeExample ex = test.example(i);
    ASSERT_TRUE(clf.forward(ex.image.data(), ex.image.size(), &err)) << err;
    const std::vector<float> l = clf.logits();
    correct += static_cast<int>(std::max_element(l.begin(), l.end()) - l.begin()) == ex.label;
    centre += ex.mask[static_cast<size_t>(23 * 48 + 23)] == 1;  // centre_point(48, 48) = (23, 23)
    for (uint8_t v : ex.mask) area += v == 1;
  }
  EXPECT_DOUBLE_EQ(out["accuracy"].get<double>(), correct / 12.0);
  EXPECT_DOUBLE_EQ(out["centre_baseline"]["pointing_game"].get<double>(), centre / 12.0);
  EXPECT_NEAR(out["mask_fraction"].get<double>(), area / (12.0 * 48 * 48), 1e-12);
  EXPECT_EQ(out["image_size"], 48);
  for (const std::string m : {"rollout", "attention"}) {
    const auto& row = out["methods"][m];
    EXPECT_EQ(row["map_shape"], nlohmann::json({6, 6})) << m;
    for (const char* k : {"pointing_game", "pointing_game_standard", "pointing_feature_cell", "energy_in_mask", "mask_iou"})
      EXPECT_TRUE(row[k].get<double>() >= 0 && row[k].get<double>() <= 1) << m << " " << k;
    // a hit at 0 px is a hit at the standard tolerance
    EXPECT_LE(row["pointing_game"].get<double>(), row["pointing_game_standard"].get<double>()) << m;
  }
  // Stopping from the progress callback: an error, "cancelled".
  EXPECT_FALSE(onnx_shapes_localization(clf, r, &out, &err, [](int done, int) { return done < 3; }));
  EXPECT_EQ(err, "cancelled");
}

TEST(OnnxShapes, AModelOfAnotherInputSizeIsRefused) {
  OnnxClassifier clf;
  std::string err;
  ASSERT_TRUE(test::load_classifier_file(kVitTiny, &clf, &err)) << err;
  OnnxShapesRequest r;  // the shapes at their default 64 px
  r.n = 2;
  r.methods = {"rollout"};
  nlohmann::json out;
  EXPECT_FALSE(onnx_shapes_localization(clf, r, &out, &err));
  EXPECT_NE(err.find("the model's input is [1,3,48,48]; the shapes need [1,3,64,64]"), std::string::npos) << err;
}

// The shipped ViT trained on the shapes (models/image/vit-shapes, models/tools/train-vit-shapes.py): the core's
// executor gives PyTorch's logits on the first four validation images the recipe trained against (meta.json "probe",
// torch's own forward before the export), to 1e-4. Negative control: another image's logits are not the probe's.
TEST(OnnxShapes, ShippedVitGivesTorchsLogitsOnItsProbeImages) {
  const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/models/image/vit-shapes/";
  OnnxClassifier clf;
  std::string err;
  ASSERT_TRUE(test::load_classifier_file(dir + "model.onnx", &clf, &err)) << err;
  const nlohmann::json meta = nlohmann::json::parse(test::read_text(dir + "meta.json"), nullptr, false);
  ASSERT_TRUE(meta.is_object());
  const nlohmann::json& probe = meta["probe"]["logits"];
  ASSERT_EQ(probe.size(), 4u);
  ShapesConfig cfg;
  cfg.image_size = meta["image_size"].get<int>();
  cfg.num_classes = meta["num_classes"].get<int>();
  cfg.confounder = meta["data"]["confounder"].get<double>();
  cfg.texture_contrast = meta["data"]["texture_contrast"].get<double>();
  const ShapesDataset validation(cfg, meta["data"]["seed"].get<uint64_t>(), Split::Validation, meta["data"]["validation"].get<int>());
  std::vector<std::vector<float>> got;
  for (int i = 0; i < 5; ++i) {
    const ShapeExample ex = validation.example(i);
    ASSERT_TRUE(clf.forward(ex.image.data(), ex.image.size(), &err)) << err;
    got.push_back(clf.logits());
  }
  double worst = 0;
  for (size_t i = 0; i < 4; ++i) {
    ASSERT_EQ(got[i].size(), probe[i].size());
    for (size_t k = 0; k < got[i].size(); ++k)
      worst = std::max(worst, std::abs(got[i][k] - probe[i][k].get<double>()) / std::max(1.0, std::abs(probe[i][k].get<double>())));
  }
  EXPECT_LT(worst, 1e-4);
  double other = 0;  // image 4's logits against image 0's probe
  for (size_t k = 0; k < got[4].size(); ++k) other = std::max(other, std::abs(got[4][k] - probe[0][k].get<double>()));
  EXPECT_GT(other, 1e-2);
}
