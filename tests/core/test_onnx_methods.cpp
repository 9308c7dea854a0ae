// The CAM-family methods on ONNX layers (core/explain/onnx): closed forms on hand-made tensors, and
// agreement with the image lab's own Grad-CAM / Grad-CAM++ (core/explain/image) on a GAP + linear head,
// whose gradient d logit_c / dF = W[c, k] / (h·w) is exact. On real models (the end of the file): AblationCAM
// against the gradient path, weight shuffling after a layer (the sanity check), a backward stopped at a layer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "explain/image/image_method.h"
#include "explain/onnx/layer_method.h"
#include "explain/onnx/onnx_classifier.h"
#include "explain/onnx/onnx_explain.h"
#include "nn/rng.h"
#include "onnx_test_util.h"

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

// A random GAP + linear head (C classes over K channels, no bias), and L's gradient set to what that head gives
// for class c: d logit_c / dF_k,p = W[c,k] / (h·w) at every position.
GapLinearHead<float> gap_linear_head(LayerTensors& L, int C, int c, uint64_t seed) {
  GapLinearHead<float> head;
  head.classes = C;
  head.channels = L.k;
  Rng rng(seed);
  for (int q = 0; q < C * L.k; ++q) head.weight.push_back(static_cast<float>(rng.normal()));
  head.bias.assign(C, 0.f);
  const int hw = L.h * L.w;
  for (int k = 0; k < L.k; ++k)
    for (int p = 0; p < hw; ++p) L.gradient[k * hw + p] = head.weight[c * L.k + k] / hw;
  return head;
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
  const int c = 1;
  const GapLinearHead<float> head = gap_linear_head(L, C, c, 2);
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

// CAM from the gradient on a GAP + linear head equals the image lab's CAM from the weights (Σ_k W[c,k] F_k, no
// ReLU); one gradient entry off the constant (a head that is not GAP + linear) and CAM refuses: an empty map.
TEST(OnnxMethods, CamReadsTheClassWeightsOffAGapLinearGradient) {
  const int K = 5, h = 4, w = 3, C = 2, c = 1;
  LayerTensors L = random_layer(K, h, w, 21);
  const GapLinearHead<float> head = gap_linear_head(L, C, c, 4);
  FeatureMapsView F{L.activation.data(), K, h, w};
  const auto a = onnx_cam(L), b = cam_map(F, head, c, {});
  ASSERT_EQ(a.size(), b.size());
  bool negative = false;
  for (size_t p = 0; p < a.size(); ++p) {
    EXPECT_NEAR(a[p], b[p], 1e-5) << p;
    negative = negative || b[p] < 0;
  }
  EXPECT_TRUE(negative) << "the fixture should have negative class-map values (CAM has no ReLU)";
  L.gradient[2 * h * w + 5] *= 1.01f;
  EXPECT_TRUE(onnx_cam(L).empty());
  EXPECT_NE(layer_method_no_map_reason("cam").find("global-average-pooling + linear"), std::string::npos);
  EXPECT_EQ(layer_method_no_map_reason("gradcam"), "");
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
  // Unknown names give nullptr; the list has all seven.
  EXPECT_EQ(find_layer_method("nope"), nullptr);
  EXPECT_EQ(layer_method_names().size(), 7u);
}

// ---- on real models ----
namespace {

const char* kSqueezenet = "/tests/fixtures/onnx/squeezenet1_1/model.onnx";
const char* kMobileNet = "/models/image/mobilenet_v2.onnx";
const char* kSqueezeMid = "/features/features.9/Concat_output_0";

// Loads a model of the repository, runs it on a fixed input ((k·37 + 11) mod 256 per value; squeezenet's scaled
// to [−0.5, 0.5)) and returns that input.
std::vector<float> load_and_run(const std::string& file, int size, OnnxClassifier* clf) {
  std::vector<uint8_t> bytes;
  std::string err;
  EXPECT_TRUE(test::read_bytes(std::string(ATTNLAB_SOURCE_DIR) + file, &bytes)) << file;
  EXPECT_TRUE(clf->load(bytes.data(), bytes.size(), &err)) << err;
  std::vector<float> x(3 * size * size);
  for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>((k * 37 + 11) % 256);
  if (file == kSqueezenet)
    for (float& v : x) v = v / 255.f - 0.5f;
  EXPECT_TRUE(clf->forward(x.data(), x.size(), &err)) << err;
  return x;
}

// AblationCAM's forward re-runs against the gradient: after MobileNetV2's last spatial layer come global average
// pooling and one linear layer, so zeroing channel k lowers the logit by exactly W_ck · mean(A_k) = Σ_p G_k,p A_k,p
// (G = the executor's backward, another code path) and w_k = that / y_c. Returns the largest relative difference.
double ablation_vs_gradient(const std::string& file, const std::string& layer_or_auto, int size) {
  OnnxClassifier clf;
  std::string err;
  const std::vector<float> x = load_and_run(file, size, &clf);
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
  EXPECT_LT(ablation_vs_gradient(kMobileNet, "auto", 224), 1e-3);
}

// Negative control: after squeezenet's features.3 come max pooling and eight Fire modules; zeroing a whole channel
// there changes which units are active, so the first-order gradient path no longer equals the drop.
TEST(OnnxMethods, AblationCamDiffersWhereTheRestIsNonLinear) {
  EXPECT_GT(ablation_vs_gradient(kSqueezenet, "/features/features.3/Concat_output_0", 112), 1e-2);
}

// Weight shuffling after a layer (OnnxClassifier::randomized_after): the activation at the layer stays, the logits
// move; shuffling everything moves the activation too; the same seed gives the same network; the sanity check
// reports a finite ρ and the tensors shuffled.
TEST(OnnxMethods, WeightShufflingAfterALayer) {
  OnnxClassifier clf;
  std::string err;
  const std::vector<float> x = load_and_run(kSqueezenet, 112, &clf);
  const std::string layer = kSqueezeMid;
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

// A backward that stops at a layer (Grad-CAM's) gives that layer exactly the full backward's gradient and computes
// nothing upstream (the input gets no gradient).
TEST(OnnxMethods, BackwardStopsAtTheLayer) {
  OnnxClassifier clf;
  std::string err;
  load_and_run(kSqueezenet, 112, &clf);
  LayerTensors full, part;
  std::vector<float> g;
  ASSERT_TRUE(clf.backward_class(3, &err)) << err;
  ASSERT_TRUE(clf.layer(kSqueezeMid, &full, &err)) << err;
  ASSERT_TRUE(clf.input_gradient(&g, &err)) << err;
  ASSERT_TRUE(clf.backward_class(3, &err, kSqueezeMid)) << err;
  ASSERT_TRUE(clf.layer(kSqueezeMid, &part, &err)) << err;
  EXPECT_EQ(part.gradient, full.gradient);
  EXPECT_FALSE(clf.input_gradient(&g, &err));
}

}  // namespace

// CAM on MobileNetV2 (its head after the last spatial layer: global average pooling, one linear layer): the map's
// spatial mean is the class logit minus the class bias (Zhou et al.: the class score is the pooled class map), the
// bias read as the logit with that layer's activation replaced by zeros (forward_from_layer, another code path).
// Negative control: at squeezenet's features.9, eight non-linear layers follow — CAM is refused with its reason.
TEST(OnnxMethods, CamPoolsToTheLogitOnMobileNetV2) {
  OnnxClassifier clf;
  std::string err;
  const std::vector<float> x = load_and_run(kMobileNet, 224, &clf);
  const auto logits = clf.logits();
  const int c = static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
  OnnxExplainRequest r;
  r.method = "cam";
  r.class_index = c;
  nlohmann::json out;
  ASSERT_TRUE(onnx_explain(clf, x, r, &out, &err)) << err;
  const std::vector<float> map = out["map"].get<std::vector<float>>();
  double mean = 0;
  for (float v : map) mean += v;
  mean /= static_cast<double>(map.size());
  LayerTensors L;
  ASSERT_TRUE(clf.backward_class(c, &err)) << err;
  ASSERT_TRUE(clf.layer(out["layer"].get<std::string>(), &L, &err)) << err;
  ASSERT_TRUE(clf.forward_from_layer(out["layer"].get<std::string>(), std::vector<float>(L.activation.size(), 0.f), &err)) << err;
  const double bias = clf.logits()[c];
  EXPECT_NEAR(mean, logits[c] - bias, 1e-4 * std::abs(logits[c])) << "logit " << logits[c] << ", bias " << bias;
  EXPECT_GT(std::abs(logits[c] - bias), 1.0);  // the check is not vacuous

  OnnxClassifier sq;
  const std::vector<float> xs = load_and_run(kSqueezenet, 112, &sq);
  r.layer = kSqueezeMid;
  r.class_index = -1;
  EXPECT_FALSE(onnx_explain(sq, xs, r, &out, &err));
  EXPECT_NE(err.find("global-average-pooling + linear"), std::string::npos) << err;
  EXPECT_NE(err.find(kSqueezeMid), std::string::npos) << err;
}

// The random baseline over a layer's grid: the values are Rng(seed)'s uniform stream in order (the closed form), the
// grid is the layer's (auto and a middle layer of squeezenet), the class changes nothing, and another seed gives
// another map (negative control: the closed form with seed 8 does not match seed 7's map).
TEST(OnnxMethods, RandomBaselineIsTheSeedsStreamOverTheLayersGrid) {
  OnnxClassifier sq;
  std::string err;
  const std::vector<float> x = load_and_run(kSqueezenet, 112, &sq);
  auto stream = [](uint64_t seed, size_t n) {
    Rng rng(seed);
    std::vector<float> v(n);
    for (float& f : v) f = static_cast<float>(rng.uniform());
    return v;
  };
  for (const std::string layer : {std::string("auto"), std::string(kSqueezeMid)}) {
    OnnxExplainRequest r;
    r.method = "random";
    r.layer = layer;
    r.options.seed = 7;
    nlohmann::json a, b;
    ASSERT_TRUE(onnx_explain(sq, x, r, &a, &err)) << err;
    r.class_index = 3;
    ASSERT_TRUE(onnx_explain(sq, x, r, &b, &err)) << err;
    const std::string name = a["layer"];
    const auto shape = a["map_shape"].get<std::vector<int>>();
    bool found = false;
    for (const SpatialLayer& l : sq.spatial_layers())
      if (l.name == name) {
        found = true;
        EXPECT_EQ(shape, (std::vector<int>{l.height, l.width})) << name;
      }
    EXPECT_TRUE(found) << name;
    const std::vector<float> map = a["map"];
    EXPECT_EQ(map, stream(7, map.size())) << name;
    EXPECT_EQ(b["map"].get<std::vector<float>>(), map) << "the class must not matter";
    EXPECT_NE(stream(8, map.size()), map);
  }
  OnnxExplainRequest bad;
  bad.method = "random";
  bad.layer = "no-such-layer";
  nlohmann::json out;
  EXPECT_FALSE(onnx_explain(sq, x, bad, &out, &err));
  EXPECT_NE(err.find("no-such-layer"), std::string::npos) << err;
}

// Gradient × input on a model whose logits are its input (the Flatten-only probe, 3×16×16 → 768 classes): for class
// c the gradient is the unit vector e_c, so the map is x_c at pixel c mod 256 and zero elsewhere, and the attributions
// sum to y_c = x_c (Euler's identity for a function linear in x without bias).
TEST(OnnxMethods, GradientTimesInputOnALinearProbe) {
  OnnxClassifier clf;
  std::string err;
  const std::vector<float> x = load_and_run("/tests/fixtures/onnx/flatten_probe/model.onnx", 16, &clf);
  for (int c : {5, 300, 767}) {
    OnnxExplainRequest r;
    r.method = "gradient-x-input";
    r.class_index = c;
    nlohmann::json out;
    ASSERT_TRUE(onnx_explain(clf, x, r, &out, &err)) << err;
    const std::vector<float> map = out["map"].get<std::vector<float>>();
    ASSERT_EQ(map.size(), 256u);
    for (int p = 0; p < 256; ++p) EXPECT_FLOAT_EQ(map[p], p == c % 256 ? x[c] : 0.f) << "class " << c << " pixel " << p;
    EXPECT_DOUBLE_EQ(out["sum"].get<double>(), x[c]);
    EXPECT_EQ(out["layer"], "input");
  }
}
