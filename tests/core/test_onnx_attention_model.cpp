// The attention-model interface on a user's ONNX transformer (core/explain/onnx_text/onnx_attention_model.h), on the
// shipped stories260K (a Llama-architecture causal LM: RMSNorm, rotary positions, grouped-query attention):
//   - the gradient w.r.t. the imposed attention row equals central finite differences of the outputs (the executor
//     computes in float: step 1e-3, tolerance 2 % of the largest gradient plus 1e-5);
//   - the model's own weights reproduce the baseline, erasing units renormalises within the group, and the held
//     BOS is not a unit;
//   - an intervention between two reads of the baseline does not leak (the instance re-runs its forward);
//   - the gradient importance (attention detached) differs from the full gradient's (negative control that the
//     detachment acts), and both are finite, one per unit.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "explain/onnx_text/onnx_attention_model.h"
#include "text/subword_tokenizer.h"

namespace attnlab {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class OnnxAttention : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/models/text/stories260K/";
    const std::string bytes = read_all(dir + "model.onnx");
    std::string error;
    ASSERT_TRUE(model_.load(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "", &error)) << error;
    auto tok = load_tokenizer(read_all(dir + "tokenizer.bin"), &error);
    ASSERT_TRUE(tok) << error;
    Tokenization t;
    ASSERT_TRUE(tok->encode("Lily and Ben went to the park. They", true, &t, &error)) << error;
    inst_.ids = t.ids;
    inst_.special = t.special;
    am_ = std::make_unique<OnnxAttentionModel>(model_);
    ASSERT_TRUE(am_->prepare(inst_.ids, &error)) << error;
  }
  OnnxTextModel model_;
  Instance inst_;
  std::unique_ptr<OnnxAttentionModel> am_;
};

TEST_F(OnnxAttention, GradientWithRespectToTheRowMatchesFiniteDifferences) {
  std::string error;
  auto fi = am_->freeze(inst_, &error);
  ASSERT_TRUE(fi) << error;
  ASSERT_EQ(fi->size(), static_cast<int>(inst_.ids.size()) - 1) << "BOS is held, every other token is a unit";
  const int cls = fi->predicted();
  const std::vector<double> w = fi->attention();
  const std::vector<double> g = fi->d_output(w, cls);
  double largest = 0;
  for (double v : g) largest = std::max(largest, std::abs(v));
  ASSERT_GT(largest, 1e-4);
  for (int u = 0; u < fi->size(); ++u) {
    std::vector<double> up = w, down = w;
    up[u] += 1e-3;
    down[u] -= 1e-3;
    const double fd = (fi->output(up)[cls] - fi->output(down)[cls]) / 2e-3;
    EXPECT_NEAR(g[u], fd, 0.02 * largest + 1e-5) << "unit " << u;
  }
}

TEST_F(OnnxAttention, OwnWeightsGiveTheBaselineAndInterventionsDoNotLeak) {
  std::string error;
  auto fi = am_->freeze(inst_, &error);
  ASSERT_TRUE(fi) << error;
  double sum = 0;
  for (double v : fi->attention()) sum += v;
  EXPECT_NEAR(sum, 1.0, 1e-9);
  const std::vector<double> base = fi->output(fi->attention());
  for (size_t c = 0; c < base.size(); ++c) ASSERT_NEAR(base[c], fi->probs()[c], 1e-6);
  const std::vector<double> erased = erase_units(fi->attention(), fi->groups(), {0, 1, 2});
  EXPECT_EQ(erased[0], 0.0);
  double s2 = 0;
  for (double v : erased) s2 += v;
  EXPECT_NEAR(s2, 1.0, 1e-12);
  const std::vector<double> moved = fi->output(erased);
  double tv = 0;
  for (size_t c = 0; c < base.size(); ++c) tv += std::abs(moved[c] - base[c]);
  EXPECT_GT(tv, 1e-4) << "erasing three units changes the next-token distribution";
  // Another run in between (leave-one-out runs shortened inputs): the baseline is the same afterwards.
  const std::vector<double> loo = fi->importance(Importance::LeaveOneOut, fi->predicted());
  EXPECT_EQ(static_cast<int>(loo.size()), fi->size());
  const std::vector<double> again = fi->output(fi->attention());
  for (size_t c = 0; c < base.size(); ++c) EXPECT_NEAR(again[c], base[c], 1e-6);
}

TEST_F(OnnxAttention, GradientImportanceHoldsTheAttentionConstant) {
  std::string error;
  auto fi = am_->freeze(inst_, &error);
  ASSERT_TRUE(fi) << error;
  const std::vector<double> detached = fi->importance(Importance::Gradient, fi->predicted());
  ASSERT_EQ(static_cast<int>(detached.size()), fi->size());
  double sum = 0;
  for (double v : detached) {
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
  }
  EXPECT_NEAR(sum, 1.0, 1e-9);
  // The same quantity without the detachment (the executor's plain backward) is another vector.
  model_.executor().set_detached({});
  ASSERT_TRUE(model_.run(inst_.ids, &error)) << error;
  // d p_c / d logits, the seed the importance uses (softmax Jacobian row), without the detachment.
  const std::vector<float>& z = model_.logits();
  const int c = fi->predicted();
  double mx = -1e300, norm = 0;
  for (float v : z) mx = std::max(mx, static_cast<double>(v));
  for (float v : z) norm += std::exp(v - mx);
  std::vector<float> d(z.size());
  const double pc = std::exp(z[static_cast<size_t>(c)] - mx) / norm;
  for (size_t k = 0; k < z.size(); ++k)
    d[k] = static_cast<float>(pc * ((static_cast<int>(k) == c ? 1.0 : 0.0) - std::exp(z[k] - mx) / norm));
  ASSERT_TRUE(model_.backward_seeded(d, "", &error)) << error;
  std::vector<double> gx, gn;
  ASSERT_TRUE(model_.embedding_gradients(&gx, &gn, &error)) << error;
  double s = 0, diff = 0;
  for (size_t u = 0; u < detached.size(); ++u) s += std::abs(gx[u + 1]);
  for (size_t u = 0; u < detached.size(); ++u) diff = std::max(diff, std::abs(std::abs(gx[u + 1]) / s - detached[u]));
  EXPECT_GT(diff, 1e-3) << "detaching the attention must change the gradient";
}

}  // namespace
}  // namespace attnlab
