// The propagation rules on an ONNX graph (onnx/propagation.h): the tiny transformer of tests/fixtures/propagation,
// exported by models/tools/export-transformer-onnx.mjs (LayerNormalization, Erf-decomposed GELU, Softmax, MatMul),
// run through the executor with the rules found from its operators, equals the core's transformer under the same
// rules (itself equal to the PyTorch reference, test_propagation_rules.cpp) — two independent implementations: one
// by graph patterns, one written into the layers. Negative controls: without the plan the executor gives the
// gradient, which misses; the plan's counts say what was found.
#include <gtest/gtest.h>

#include <cmath>

#include "explain/lrp_relevance.h"
#include "explain/onnx_text/onnx_text_explain.h"
#include "model/text_checkpoint.h"
#include "onnx/propagation.h"
#include "onnx_test_util.h"
#include "text/subword_tokenizer.h"

namespace attnlab {
namespace {

const std::string kDir = std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/propagation/";

struct OnnxRun {
  onnx::Model model;
  onnx::Executor<float> ex;
};

// Σ_e x·r per token at the Gather output "embedded" [1, T, d], from the logit of `target` (one logit: ±).
std::vector<double> onnx_relevance(OnnxRun& r, const std::vector<int>& ids, int target, const onnx::PropagationPlan* plan,
                                   onnx::PropagationPlan* made = nullptr, onnx::RelevanceRule rule = onnx::RelevanceRule::AttnLrp) {
  std::string err;
  onnx::Tensor<float> t = onnx::Tensor<float>::ints({1, static_cast<int64_t>(ids.size())});
  for (size_t k = 0; k < ids.size(); ++k) t.i[k] = ids[k];
  EXPECT_TRUE(r.ex.forward({{"token_ids", t}}, &err)) << err;
  if (made) {
    *made = onnx::plan_propagation(r.ex, rule, "logits");
    plan = made;
  }
  r.ex.set_propagation(plan);
  const onnx::Tensor<float>* logits = r.ex.value("logits");
  EXPECT_NE(logits, nullptr);
  onnx::Tensor<float> seed = onnx::Tensor<float>::floats(logits->shape);
  seed.f[0] = target == 1 ? 1.f : -1.f;
  EXPECT_TRUE(r.ex.backward("logits", seed, &err)) << err;
  r.ex.set_propagation(nullptr);
  const onnx::Tensor<float>* x = r.ex.value("embedded");
  const onnx::Tensor<float>* g = r.ex.gradient("embedded");
  EXPECT_TRUE(x && g);
  const int64_t d = x->shape.back();
  std::vector<double> out(ids.size(), 0.0);
  for (size_t k = 0; k < ids.size(); ++k)
    for (int64_t e = 0; e < d; ++e) out[k] += double(x->f[k * d + e]) * double(g->f[k * d + e]);
  return out;
}

double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
  return m;
}

TEST(OnnxPropagation, TheExportedGraphUnderTheFoundRulesEqualsTheCoresRules) {
  std::string err;
  TextModel core;
  std::vector<uint8_t> config, weights;
  ASSERT_TRUE(test::read_bytes(kDir + "tiny/config.json", &config) && test::read_bytes(kDir + "tiny/model.safetensors", &weights));
  ASSERT_TRUE(load_text_model(std::string(config.begin(), config.end()), weights.data(), weights.size(), &core, &err)) << err;
  OnnxRun r;
  ASSERT_TRUE(test::load_model_file(kDir + "tiny-transformer.onnx", &r.model, &err)) << err;
  ASSERT_TRUE(r.ex.load(r.model, &err)) << err;
  r.ex.set_gradient_roots({"embedded"});
  int compared = 0;
  for (const std::vector<int>& ids : {std::vector<int>{2, 3, 4, 5}, std::vector<int>{6, 7, 2, 8, 9, 3}, std::vector<int>{4}})
    for (int target : {1, 0}) {
      for (auto [rule, core_rule] : {std::pair{onnx::RelevanceRule::AttnLrp, PropagationRule::AttnLrp},
                                     std::pair{onnx::RelevanceRule::CpLrp, PropagationRule::CpLrp}}) {
        onnx::PropagationPlan plan;
        const std::vector<double> got = onnx_relevance(r, ids, target, nullptr, &plan, rule);
        const std::vector<double> want = transformer_relevance(core.config, core.params, ids, target, core_rule).tokens;
        double scale = 1e-3;
        for (double v : want) scale = std::max(scale, std::abs(v));
        EXPECT_LT(max_abs_diff(got, want), 2e-5 * scale) << (rule == onnx::RelevanceRule::AttnLrp ? "AttnLRP" : "CP-LRP")
                                                         << " target " << target << " T " << ids.size();
        ++compared;
      }
      // negative control: no plan = the gradient × input, which is the core's Gradient rule and not AttnLRP
      const std::vector<double> plain = onnx_relevance(r, ids, target, nullptr);
      EXPECT_LT(max_abs_diff(plain, transformer_relevance(core.config, core.params, ids, target, PropagationRule::Gradient).tokens), 2e-5);
      if (ids.size() > 1)
        EXPECT_GT(max_abs_diff(plain, transformer_relevance(core.config, core.params, ids, target, PropagationRule::AttnLrp).tokens), 1e-3);
    }
  EXPECT_EQ(compared, 12);
}

TEST(OnnxPropagation, ThePlanSaysWhatItFound) {
  std::string err;
  OnnxRun r;
  ASSERT_TRUE(test::load_model_file(kDir + "tiny-transformer.onnx", &r.model, &err)) << err;
  ASSERT_TRUE(r.ex.load(r.model, &err)) << err;
  r.ex.set_gradient_roots({"embedded"});
  onnx::PropagationPlan at, cp;
  onnx_relevance(r, {2, 3, 4}, 1, nullptr, &at, onnx::RelevanceRule::AttnLrp);
  onnx_relevance(r, {2, 3, 4}, 1, nullptr, &cp, onnx::RelevanceRule::CpLrp);
  std::string a, c;
  for (const auto& s : at.notes) a += s + "; ";
  for (const auto& s : cp.notes) c += s + "; ";
  // 2 layers: 5 LayerNormalization (2 per block + the final), 2 GELU gates, 2 × 2 attention products (QKᵀ, PV)
  EXPECT_NE(a.find("5 LayerNormalization with the scale held"), std::string::npos) << a;
  EXPECT_NE(a.find("2 gated activations by the identity rule"), std::string::npos) << a;
  EXPECT_NE(a.find("4 products of two activations halved"), std::string::npos) << a;
  EXPECT_TRUE(at.no_rule.empty()) << a;
  EXPECT_NE(c.find("attention distributions held constant"), std::string::npos) << c;
  EXPECT_EQ(c.find("products of two activations halved"), std::string::npos) << c;  // QKᵀ and PV need no halving
}

// stories260K (Karpathy's Llama-2-architecture story model, shipped in models/) has no biases: RMSNorm, rotary
// positions, SiLU-gated FFN, no position table. With the attention held (CP-LRP) every other rule is conservative, so
// the tokens' relevances add up to the next-token logit; AttnLRP's softmax rule keeps a bias term, so it does not;
// the plain gradient × input is not conservative either (negative controls).
TEST(OnnxPropagation, CpLrpConservesTheNextTokenLogitOfTheBiasFreeStories260K) {
  const std::string dir = std::string(ATTNLAB_SOURCE_DIR) + "/models/text/stories260K/";
  std::vector<uint8_t> bytes, tok_bytes;
  ASSERT_TRUE(test::read_bytes(dir + "model.onnx", &bytes) && test::read_bytes(dir + "tokenizer.bin", &tok_bytes));
  std::string err;
  OnnxTextModel model;
  ASSERT_TRUE(model.load(bytes.data(), bytes.size(), "", &err)) << err;
  auto tok = load_tokenizer(std::string(tok_bytes.begin(), tok_bytes.end()), &err);
  ASSERT_TRUE(tok) << err;
  Tokenization t;
  ASSERT_TRUE(tok->encode("Once upon a time, there was a little girl", true, &t, &err)) << err;
  const std::vector<int> ids = t.ids;  // BOS first
  ASSERT_TRUE(model.run(ids, &err)) << err;
  const std::vector<float> logits = model.logits();
  const int next = onnx_text_top_k(logits, 1).at(0);
  auto sum_of = [&](onnx::RelevanceRule rule, std::vector<std::string>* notes) {
    std::vector<double> tokens;
    EXPECT_TRUE(onnx_text_relevance(model, next, rule, &tokens, notes, &err)) << err;
    double s = 0;
    for (double v : tokens) s += v;
    return s;
  };
  std::vector<std::string> cp_notes, at_notes;
  const double logit = logits[static_cast<size_t>(next)];
  const double cp = sum_of(onnx::RelevanceRule::CpLrp, &cp_notes);
  const double at = sum_of(onnx::RelevanceRule::AttnLrp, &at_notes);
  EXPECT_GT(std::abs(logit), 1.0);
  EXPECT_NEAR(cp, logit, 1e-4 * std::abs(logit)) << "CP-LRP on a bias-free model conserves the logit";
  EXPECT_GT(std::abs(at - logit), 1e-2 * std::abs(logit)) << "AttnLRP's softmax rule keeps a bias term";
  std::vector<double> gx, gn;
  ASSERT_TRUE(model.backward(next, &err) && model.embedding_gradients(&gx, &gn, &err)) << err;
  double plain = 0;
  for (double v : gx) plain += v;
  EXPECT_GT(std::abs(plain - logit), 1e-2 * std::abs(logit)) << "the plain gradient × input is not conservative";
  std::string notes;
  for (const auto& n : cp_notes) notes += n + "; ";
  EXPECT_NE(notes.find("normalising scales held"), std::string::npos) << notes;  // RMSNorm, decomposed
  EXPECT_NE(notes.find("gated activations by the identity rule"), std::string::npos) << notes;  // SiLU
  EXPECT_NE(notes.find("attention distributions held constant"), std::string::npos) << notes;
}

}  // namespace
}  // namespace attnlab
