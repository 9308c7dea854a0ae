// CNN checkpoints: config.json + safetensors round trip (F32 exact, F16 within rounding; same logits after
// reload), and clear messages for broken folders.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "gradcheck.h"
#include "model/cnn_checkpoint.h"

namespace attnlab {
namespace {

CnnModel make_model() {
  CnnModel m;
  m.config.image_size = 16;
  m.config.num_classes = 3;
  m.config.widths = {4, 8, 8};
  m.config.cbam = {false, true, true};
  m.config.head = PoolHead::Lse;
  m.config.lse_r = 3.5;
  m.class_names = {"circle", "square", "triangle"};
  Rng rng(4);
  m.params.init(m.config, rng);
  for (auto& b : m.params.buffers())  // non-trivial running statistics
    for (Eigen::Index i = 0; i < b.mat->size(); ++i) b.mat->data()[i] = float(0.5 + rng.uniform());
  m.params.fc.b << 0.1f, -0.2f, 0.3f;
  m.extra_json = R"({"training": {"seed": 4}})";
  return m;
}

Mat<float> logits_of(const CnnModel& m, const Mat<float>& x) {
  CnnCache<float> c;
  cnn_forward(m.config, m.params, x, false, c);
  return c.logits;
}

TEST(CnnCheckpoint, RoundTripF32IsExact) {
  const CnnModel m = make_model();
  const std::string cfg = cnn_model_config_json(m);
  const std::vector<uint8_t> w = cnn_model_weights(m, StorageType::F32);
  ASSERT_FALSE(w.empty());
  CnnModel back;
  std::string error;
  ASSERT_TRUE(load_cnn_model(cfg, w.data(), w.size(), &back, &error)) << error;
  EXPECT_EQ(back.config.widths, m.config.widths);
  EXPECT_EQ(back.config.cbam, m.config.cbam);
  EXPECT_EQ(back.config.head, PoolHead::Lse);
  EXPECT_EQ(back.config.lse_r, 3.5);
  EXPECT_EQ(back.class_names, m.class_names);
  EXPECT_EQ(nlohmann::json::parse(back.extra_json)["training"]["seed"], 4);
  CnnModel a = m;
  auto pa = a.params.trained(), pb = back.params.trained();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) EXPECT_EQ(*pa[i].mat, *pb[i].mat) << pa[i].name;
  auto ba = a.params.buffers(), bb = back.params.buffers();
  for (size_t i = 0; i < ba.size(); ++i) EXPECT_EQ(*ba[i].mat, *bb[i].mat) << ba[i].name;
  Rng rng(9);
  const Mat<float> x = test::random_mat(m.config.input_shape().size(), 2, rng).cast<float>();
  EXPECT_EQ(logits_of(m, x), logits_of(back, x));
}

TEST(CnnCheckpoint, StoredLayoutIsPyTorchs) {
  // fc.weight is stored row-major [C, K]: element (c, k) at c*K + k.
  const CnnModel m = make_model();
  const std::vector<uint8_t> w = cnn_model_weights(m, StorageType::F32);
  SafetensorsFile f;
  std::string error;
  ASSERT_TRUE(read_safetensors(w.data(), w.size(), &f, &error)) << error;
  const NamedTensor& fc = f.tensors.at("fc.weight");
  ASSERT_EQ(fc.shape, (std::vector<int64_t>{3, 8}));
  EXPECT_EQ(fc.data[1 * 8 + 5], m.params.fc.w(1, 5));
  const NamedTensor& conv = f.tensors.at("stages.1.conv.weight");
  ASSERT_EQ(conv.shape, (std::vector<int64_t>{8, 4, 3, 3}));
  // [out, in, ky, kx] = our column (out), row (in*9 + ky*3 + kx)
  EXPECT_EQ(conv.data[((6 * 4 + 2) * 3 + 1) * 3 + 2], m.params.stages[1].conv.w(2 * 9 + 1 * 3 + 2, 6));
  EXPECT_EQ(f.tensors.at("stages.2.cbam.spatial.weight").shape, (std::vector<int64_t>{1, 2, 7, 7}));
  EXPECT_EQ(f.tensors.count("stages.0.cbam.fc1.weight"), 0u);  // stage 1 has no CBAM
}

TEST(CnnCheckpoint, F16StorageRoundsWeights) {
  const CnnModel m = make_model();
  const std::vector<uint8_t> w = cnn_model_weights(m, StorageType::F16);
  CnnModel back;
  std::string error;
  ASSERT_TRUE(load_cnn_model(cnn_model_config_json(m), w.data(), w.size(), &back, &error)) << error;
  EXPECT_EQ(back.params.fc.w(2, 3), round_to_half(m.params.fc.w(2, 3)));
  EXPECT_NE(back.params.fc.w, m.params.fc.w);
}

TEST(CnnCheckpoint, BrokenFoldersGiveClearMessages) {
  const CnnModel m = make_model();
  const std::vector<uint8_t> w = cnn_model_weights(m, StorageType::F32);
  CnnModel back;
  std::string error;
  nlohmann::json cfg = nlohmann::json::parse(cnn_model_config_json(m));
  EXPECT_FALSE(load_cnn_model("[1,2]", w.data(), w.size(), &back, &error));
  EXPECT_NE(error.find("JSON object"), std::string::npos);
  auto bad = cfg;
  bad["format"] = "attnlab-text-v1";
  EXPECT_FALSE(load_cnn_model(bad.dump(), w.data(), w.size(), &back, &error));
  EXPECT_NE(error.find("format"), std::string::npos);
  bad = cfg;
  bad["head"] = "max";
  EXPECT_FALSE(load_cnn_model(bad.dump(), w.data(), w.size(), &back, &error));
  EXPECT_NE(error.find("head"), std::string::npos);
  bad = cfg;
  bad["cbam"] = {true, true, true};  // the weights lack stage 0's CBAM
  EXPECT_FALSE(load_cnn_model(bad.dump(), w.data(), w.size(), &back, &error));
  EXPECT_NE(error.find("stages.0.cbam"), std::string::npos) << error;
  bad = cfg;
  bad["widths"] = {4, 8, 16};
  EXPECT_FALSE(load_cnn_model(bad.dump(), w.data(), w.size(), &back, &error));
  EXPECT_NE(error.find("shape"), std::string::npos) << error;
  bad = cfg;
  bad["cbam"] = {false, false, true};  // stage 1's CBAM tensors are unexpected
  EXPECT_FALSE(load_cnn_model(bad.dump(), w.data(), w.size(), &back, &error));
  EXPECT_NE(error.find("unexpected tensor"), std::string::npos) << error;
  const std::vector<uint8_t> truncated(w.begin(), w.begin() + w.size() / 2);
  EXPECT_FALSE(load_cnn_model(cfg.dump(), truncated.data(), truncated.size(), &back, &error));
  EXPECT_NE(error.find("model.safetensors"), std::string::npos) << error;
}

TEST(CnnCheckpoint, ResidualRoundTripAndOldConfigs) {
  CnnModel m = make_model();  // widths 4 -> 8 -> 8 from 3 channels: projections at stages 1 and 2
  const std::string plain_cfg = cnn_model_config_json(m);
  EXPECT_FALSE(nlohmann::json::parse(plain_cfg).contains("residual"));  // plain configs are unchanged
  m.config.residual = true;
  Rng rng(5);
  m.params.init(m.config, rng);
  for (auto& b : m.params.buffers())
    for (Eigen::Index i = 0; i < b.mat->size(); ++i) b.mat->data()[i] = float(0.5 + rng.uniform());
  const std::string cfg = cnn_model_config_json(m);
  EXPECT_EQ(nlohmann::json::parse(cfg)["residual"], true);
  const std::vector<uint8_t> w = cnn_model_weights(m, StorageType::F32);
  SafetensorsFile f;
  std::string error;
  ASSERT_TRUE(read_safetensors(w.data(), w.size(), &f, &error)) << error;
  EXPECT_EQ(f.tensors.at("stages.0.shortcut.conv.weight").shape, (std::vector<int64_t>{4, 3, 1, 1}));
  EXPECT_EQ(f.tensors.at("stages.1.shortcut.bn.running_var").shape, (std::vector<int64_t>{8}));
  EXPECT_EQ(f.tensors.count("stages.2.shortcut.conv.weight"), 0u);  // 8 -> 8: identity
  CnnModel back;
  ASSERT_TRUE(load_cnn_model(cfg, w.data(), w.size(), &back, &error)) << error;
  EXPECT_TRUE(back.config.residual);
  Rng xr(9);
  const Mat<float> x = test::random_mat(m.config.input_shape().size(), 2, xr).cast<float>();
  EXPECT_EQ(logits_of(m, x), logits_of(back, x));
  // The residual weights under a plain config: the shortcut tensors are unexpected; a plain model's weights
  // under a residual config miss them; a non-boolean flag is refused.
  nlohmann::json j = nlohmann::json::parse(cfg);
  j.erase("residual");
  EXPECT_FALSE(load_cnn_model(j.dump(), w.data(), w.size(), &back, &error));
  EXPECT_NE(error.find("unexpected tensor 'stages.0.shortcut"), std::string::npos) << error;
  const CnnModel plain = make_model();
  const std::vector<uint8_t> pw = cnn_model_weights(plain, StorageType::F32);
  EXPECT_FALSE(load_cnn_model(cfg, pw.data(), pw.size(), &back, &error));
  EXPECT_NE(error.find("shortcut"), std::string::npos) << error;
  j["residual"] = 1;
  EXPECT_FALSE(load_cnn_model(j.dump(), w.data(), w.size(), &back, &error));
  EXPECT_NE(error.find("'residual' must be a boolean"), std::string::npos) << error;
  ASSERT_TRUE(load_cnn_model(plain_cfg, pw.data(), pw.size(), &back, &error)) << error;  // old configs load
  EXPECT_FALSE(back.config.residual);
}

}  // namespace
}  // namespace attnlab
