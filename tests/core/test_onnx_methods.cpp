// The CAM-family methods on ONNX layers (core/explain/onnx): closed forms on hand-made tensors, and
// agreement with the image lab's own Grad-CAM / Grad-CAM++ (core/explain/image) on a GAP + linear head,
// whose gradient d logit_c / dF = W[c, k] / (h·w) is exact.
#include <gtest/gtest.h>

#include "explain/image/image_method.h"
#include "explain/onnx/layer_method.h"
#include "nn/rng.h"

using namespace attnlab;

namespace {

LayerTensors random_layer(int k, int h, int w, uint64_t seed) {
  Rng rng(seed);
  LayerTensors L;
  L.k = k;
  L.h = h;
  L.w = w;
  for (int q = 0; q < k * h * w; ++q) {
    L.activation.push_back(static_cast<float>(std::max(0.0, rng.normal())));
    L.gradient.push_back(static_cast<float>(rng.normal()));
  }
  return L;
}

}  // namespace

TEST(OnnxMethods, ClosedFormsOnOneChannel) {
  // One channel, A = [1, 2, 0, 3], G = constant g: every gradient method gives ReLU(g·A) up to its scale.
  LayerTensors L;
  L.k = 1;
  L.h = 2;
  L.w = 2;
  L.activation = {1, 2, 0, 3};
  for (float g : {0.5f, -0.5f}) {
    L.gradient.assign(4, g);
    const std::vector<float> expect = g > 0 ? std::vector<float>{0.5f, 1.f, 0.f, 1.5f} : std::vector<float>(4, 0.f);
    for (const char* name : {"gradcam", "hirescam", "xgradcam", "layercam"}) {
      const auto m = find_layer_method(name)(L);
      ASSERT_EQ(m.size(), 4u) << name;
      for (int p = 0; p < 4; ++p) EXPECT_NEAR(m[p], expect[p], 1e-6) << name << " g=" << g;
    }
    // Grad-CAM++: a = g²/(2g² + ΣA·g³) = 1/(2 + 6g) for g ≠ 0; w = ReLU(g)·Σ_p a = 4·0.5/(2 + 3) = 0.4 for g = 0.5.
    const auto pp = onnx_grad_cam_pp(L);
    for (int p = 0; p < 4; ++p) EXPECT_NEAR(pp[p], g > 0 ? 0.4 * L.activation[p] : 0.0, 1e-5);
  }
}

TEST(OnnxMethods, HiResCamIsElementwise) {
  LayerTensors L = random_layer(3, 2, 3, 5);
  const auto m = onnx_hires_cam(L);
  for (int p = 0; p < 6; ++p) {
    double s = 0;
    for (int k = 0; k < 3; ++k) s += L.gradient[k * 6 + p] * L.activation[k * 6 + p];
    EXPECT_NEAR(m[p], std::max(0.0, s), 1e-6);
  }
  // LayerCAM keeps only positive gradients.
  const auto lc = onnx_layer_cam(L);
  for (int p = 0; p < 6; ++p) {
    double s = 0;
    for (int k = 0; k < 3; ++k) s += std::max(0.f, L.gradient[k * 6 + p]) * L.activation[k * 6 + p];
    EXPECT_NEAR(lc[p], s, 1e-6);
  }
}

TEST(OnnxMethods, MatchTheImageLabOnAGapLinearHead) {
  const int K = 4, h = 3, w = 3, C = 3;
  LayerTensors L = random_layer(K, h, w, 9);
  GapLinearHead<float> head;
  head.classes = C;
  head.channels = K;
  Rng rng(2);
  for (int q = 0; q < C * K; ++q) head.weight.push_back(static_cast<float>(rng.normal()));
  head.bias.assign(C, 0.f);
  const int c = 1;
  for (int k = 0; k < K; ++k)  // d logit_c / dF_k,p = W[c,k] / (h·w)
    for (int p = 0; p < h * w; ++p) L.gradient[k * h * w + p] = head.weight[c * K + k] / (h * w);
  FeatureMapsView F{L.activation.data(), K, h, w};
  const auto a = onnx_grad_cam(L), b = grad_cam_map(F, head, c, {});
  const auto pa = onnx_grad_cam_pp(L), pb = grad_cam_plus_plus_map(F, head, c, {});
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(pa.size(), pb.size());
  double scale = 0;
  for (float v : pb) scale = std::max(scale, static_cast<double>(std::abs(v)));
  for (size_t p = 0; p < a.size(); ++p) {
    EXPECT_NEAR(a[p], b[p], 1e-6);
    EXPECT_NEAR(pa[p] / std::max(1e-12, scale), pb[p] / std::max(1e-12, scale), 1e-4) << p;
  }
}

TEST(OnnxMethods, EigenCamFindsARankOneSpatialPattern) {
  // A_k,p = u_k · s_p + c_k: the centred activations are rank one along s, so the map is ReLU(s − mean s)
  // times a positive scale (sign fixed by the correlation with Σ_k A_k, which grows with s since Σ u_k > 0).
  const int K = 5, h = 2, w = 3;
  const float s[6] = {0.f, 1.f, 3.f, 0.5f, 2.f, 5.f}, u[5] = {1.f, 0.5f, 2.f, 0.2f, 1.5f};
  LayerTensors L;
  L.k = K;
  L.h = h;
  L.w = w;
  for (int k = 0; k < K; ++k)
    for (int p = 0; p < 6; ++p) L.activation.push_back(u[k] * s[p] + 0.3f * k);
  L.gradient.assign(L.activation.size(), 0.f);
  const auto m = onnx_eigen_cam(L);
  ASSERT_EQ(m.size(), 6u);
  double mean = 0;
  for (float v : s) mean += v / 6;
  double ratio = -1;
  for (int p = 0; p < 6; ++p) {
    const double e = std::max(0.0, s[p] - mean);
    if (e > 0) {
      if (ratio < 0) ratio = m[p] / e;
      EXPECT_NEAR(m[p], ratio * e, 1e-4 * ratio);
    } else {
      EXPECT_NEAR(m[p], 0.0, 1e-5);
    }
  }
  EXPECT_GT(ratio, 0);
  // Unknown names give nullptr; the list has all six.
  EXPECT_EQ(find_layer_method("nope"), nullptr);
  EXPECT_EQ(layer_method_names().size(), 6u);
}
