// The CAM equivalence the lab teaches (Zhou et al. 2016): for a GAP + linear head the class score is the
// spatial mean of the class activation map — computed at feature resolution, before pooling, not normalised —
// plus the class bias: logit_c = mean_q cam_c(q) + b_c, with cam_c = Σ_k W[c, k] F_k.
// Checked to float precision on (a) the localisation CNN (model/cnn_model.h, cnn_cam) with random weights, (b) the
// shipped models/cnn/gap on real shapes test images, (c) the page's image head (nn/gap_linear_head.h with
// explain/image cam_map, the Images view's path) on random features. Negative controls, each must break the
// equality by far more than the tolerance: another class's map, the bias dropped, the min–max normalised map.
// Grad-CAM at the last layer = ReLU(CAM) / (h·w) (the positive factor the page shows) is tested in
// tests/core/test_image_head.cpp (ImageMaps.CamEqualsGradCamTimesPositions); (c) re-checks the factor here.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "data/shapes_dataset.h"
#include "explain/image/image_method.h"
#include "gradcheck.h"
#include "image/map_ops.h"
#include "model/cnn_checkpoint.h"
#include "model/cnn_model.h"
#include "nn/gap_linear_head.h"

namespace attnlab {
namespace {

double mean_of(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += x;
  return s / static_cast<double>(v.size());
}

// Checks logit = mean(cam) + bias for every example and class, and the three negative controls. tol is
// relative to the scale of the terms (float sums of K·h·w products).
void check_cnn(const CnnConfig& cfg, const CnnParams<float>& p, const Mat<float>& x, const std::string& what) {
  ASSERT_EQ(cfg.head, PoolHead::Gap);
  CnnCache<float> c;
  cnn_forward(cfg, p, x, false, c);
  const int C = cfg.num_classes;
  int other_class_far = 0, no_bias_far = 0, normalised_far = 0, cases = 0;
  for (Eigen::Index b = 0; b < x.cols(); ++b)
    for (int k = 0; k < C; ++k) {
      const std::vector<float> cam = cnn_cam(cfg, p, c, static_cast<int>(b), k);
      ASSERT_EQ(cam.size(), static_cast<size_t>(cfg.feature_shape().hw()));
      const double bias = p.fc.b(k, 0), logit = c.logits(k, b), mean = mean_of(cam);
      double scale = std::abs(bias) + std::abs(logit);
      for (float v : cam) scale = std::max(scale, static_cast<double>(std::abs(v)));
      const double tol = 1e-5 * (1 + scale);
      EXPECT_NEAR(mean + bias, logit, tol) << what << " example " << b << " class " << k;
      ++cases;
      // negative controls: each must miss by more than 100× the tolerance
      const int other = (k + 1) % C;
      const double other_mean = mean_of(cnn_cam(cfg, p, c, static_cast<int>(b), other));
      other_class_far += std::abs(other_mean + bias - logit) > 100 * tol;
      no_bias_far += std::abs(mean - logit) > 100 * tol;
      normalised_far += std::abs(mean_of(normalize_minmax(cam)) + bias - logit) > 100 * tol;
    }
  // a control may coincide by chance on a case; it must fail on nearly all of them
  EXPECT_GE(other_class_far, cases - 1) << what << ": another class's map must not give this class's logit";
  EXPECT_GE(no_bias_far, cases - 1) << what << ": without the bias the mean of the map is not the logit";
  EXPECT_GE(normalised_far, cases - 1) << what << ": the normalised map does not average to the logit";
}

TEST(CamEquivalence, CnnRandomWeights) {
  CnnConfig cfg;  // the lab's default network: 64×64 input, 64 × 16 × 16 last features, GAP head
  Rng rng(21);
  CnnParams<float> p;
  p.init(cfg, rng);
  // BN off its defaults (running statistics and affine) and a bias of magnitude ≥ 0.5 per class, so that
  // "drop the bias" is a real control
  for (auto& np : p.trained())
    if (np.name.find("bn.") != std::string::npos)
      *np.mat = (test::random_mat(np.mat->rows(), 1, rng).array() * 0.3 + 1.0).cast<float>();
  for (int k = 0; k < cfg.num_classes; ++k) p.fc.b(k, 0) = static_cast<float>((k % 2 ? -1 : 1) * (0.5 + 0.25 * k));
  const Mat<float> x = test::random_mat(cfg.input_shape().size(), 3, rng).cast<float>();
  check_cnn(cfg, p, x, "random weights");
}

bool read_file(const std::string& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

TEST(CamEquivalence, ShippedGapModelOnShapesImages) {
  const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/models/cnn/gap/";
  std::string config, weights, err;
  ASSERT_TRUE(read_file(dir + "config.json", &config)) << dir;
  ASSERT_TRUE(read_file(dir + "model.safetensors", &weights)) << dir;
  CnnModel m;
  ASSERT_TRUE(load_cnn_model(config, reinterpret_cast<const uint8_t*>(weights.data()), weights.size(), &m, &err)) << err;
  ShapesConfig sc;
  sc.image_size = m.config.image_size;
  sc.num_classes = m.config.num_classes;
  const ShapesDataset data(sc, 1, Split::Test, 8);
  Mat<float> x;
  std::vector<int> labels;
  data.batch({0, 1, 2, 3, 4, 5, 6, 7}, x, labels);
  // the shipped biases are small; the control "drop the bias" needs |b_c| well above the tolerance
  int big_bias = 0;
  for (int k = 0; k < m.config.num_classes; ++k) big_bias += std::abs(m.params.fc.b(k, 0)) > 1e-2;
  ASSERT_EQ(big_bias, m.config.num_classes) << "a shipped bias is too small for the no-bias control";
  check_cnn(m.config, m.params, x, "models/cnn/gap");
}

TEST(CamEquivalence, ImageHeadCamMeanAndGradCamFactor) {
  // The Images view's path: cam_map / grad_cam_map of explain/image on a GapLinearHead (MobileNetV2's head is
  // this type, K = 1280 at 7×7; here smaller, random).
  Rng rng(4);
  const int K = 96, h = 7, w = 7, C = 6;
  GapLinearHead<float> head;
  head.classes = C;
  head.channels = K;
  for (int i = 0; i < C * K; ++i) head.weight.push_back(static_cast<float>(0.1 * rng.normal()));
  for (int i = 0; i < C; ++i) head.bias.push_back(static_cast<float>((i % 2 ? -1 : 1) * (0.5 + 0.1 * i)));
  std::vector<float> f(static_cast<size_t>(K) * h * w);
  for (float& v : f) v = static_cast<float>(std::max(0.0, rng.normal()) * 3);  // ReLU6-like features
  std::vector<float> logits(C);
  head.forward(f.data(), 1, h * w, logits.data());
  const FeatureMapsView view{f.data(), K, h, w};
  for (int c = 0; c < C; ++c) {
    const std::vector<float> cam = cam_map(view, head, c, {});
    const double tol = 1e-5 * (1 + std::abs(logits[c]) + std::abs(head.bias[c]));
    EXPECT_NEAR(mean_of(cam) + head.bias[c], logits[c], tol) << "class " << c;
    EXPECT_GT(std::abs(mean_of(cam) - logits[c]), 100 * tol) << "no-bias control, class " << c;
    EXPECT_GT(std::abs(mean_of(cam_map(view, head, (c + 1) % C, {})) + head.bias[c] - logits[c]), 100 * tol)
        << "other-class control, class " << c;
    // Grad-CAM = ReLU(CAM) · 1/(h·w), the factor shown in the page
    const std::vector<float> gc = grad_cam_map(view, head, c, {});
    for (size_t q = 0; q < cam.size(); ++q)
      EXPECT_NEAR(gc[q], std::max(0.f, cam[q]) / (h * w), 1e-6 * (1 + std::abs(cam[q])));
  }
}

}  // namespace
}  // namespace attnlab
