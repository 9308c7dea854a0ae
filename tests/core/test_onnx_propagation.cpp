// The propagation rules on an ONNX graph (onnx/propagation.h): the tiny transformer of tests/fixtures/propagation,
// exported by models/tools/export-transformer-onnx.mjs (LayerNormalization, Erf-decomposed GELU, Softmax, MatMul),
// run through the executor with the rules found from its operators, equals the core's transformer under the same
// rules (itself equal to the PyTorch reference, test_propagation_rules.cpp) — two independent implementations: one
// by graph patterns, one written into the layers. Negative controls: without the plan the executor gives the
// gradient, which misses; the plan's counts say what was found.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

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

// Hand-built graphs, one pattern each, with the relevance worked out by hand (x · r summed over x):
//   y = RMSNorm(x) · w  →  the scale held: Σ_i x_i · r_i = y (conservative, a bias-free linear map once the scale is
//   fixed); y = Σ SiLU(x) = Σ x · σ(x) → the gate held: x_i · r_i = x_i σ(x_i) (the identity rule); a Sigmoid on the
//   path with no rule is named in the notes and its gradient is used.
onnx::Model pattern_model(const std::vector<std::tuple<std::string, std::vector<std::string>, std::string>>& nodes,
                          const std::vector<std::pair<std::string, std::vector<float>>>& constants, int opset = 13) {
  onnx::Model m;
  m.ir_version = 8;
  m.opsets[""] = opset;
  for (const auto& [op, in, out] : nodes) {
    onnx::Node n;
    n.name = out;
    n.op_type = op;
    n.inputs = in;
    n.outputs = {out};
    n.opset = opset;
    if (op == "ReduceMean" || op == "ReduceSum") n.attributes.push_back(test::int_attr("keepdims", 1));
    m.nodes.push_back(n);
  }
  for (const auto& [name, values] : constants) {
    onnx::TensorData t;
    t.name = name;
    t.dtype = onnx::kFloat;
    t.dims = {static_cast<int64_t>(values.size())};
    t.f = values;
    m.initializers.push_back(t);
  }
  test::add_float_io(&m, {"x"}, {"y"});
  return m;
}

// Σ x · r over x after the plan's backward from y (seed 1), with the plan's notes.
double pattern_relevance(const onnx::Model& m, const std::vector<float>& x, std::vector<std::string>* notes,
                         std::vector<double>* per = nullptr) {
  onnx::Executor<double> ex;
  std::string err;
  EXPECT_TRUE(ex.load(m, &err)) << err;
  onnx::Tensor<double> t = onnx::Tensor<double>::floats({static_cast<int64_t>(x.size())});
  for (size_t k = 0; k < x.size(); ++k) t.f[k] = x[k];
  EXPECT_TRUE(ex.forward({{"x", t}}, &err)) << err;
  const onnx::PropagationPlan plan = onnx::plan_propagation(ex, onnx::RelevanceRule::AttnLrp, "y");
  ex.set_propagation(&plan);
  onnx::Tensor<double> seed = onnx::Tensor<double>::floats(ex.value("y")->shape, 1.0);
  EXPECT_TRUE(ex.backward("y", seed, &err)) << err;
  *notes = plan.notes;
  double s = 0;
  if (per) per->clear();
  for (size_t k = 0; k < x.size(); ++k) {
    const double r = x[k] * ex.gradient("x")->f[k];
    s += r;
    if (per) per->push_back(r);
  }
  return s;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "; ";
  return s;
}

TEST(OnnxPropagation, RmsNormScaleHeldSiluGatedAndAnUnruledOperatorNamed) {
  const std::vector<float> x = {0.5f, -1.25f, 2.0f, 0.75f};
  // RMSNorm: y = ReduceSum(x · 1/sqrt(mean(x²) + eps) · w)
  const onnx::Model rms = pattern_model(
      {{"Mul", {"x", "x"}, "sq"}, {"ReduceMean", {"sq"}, "ms"}, {"Add", {"ms", "eps"}, "mse"}, {"Sqrt", {"mse"}, "rms"},
       {"Reciprocal", {"rms"}, "inv"}, {"Mul", {"x", "inv"}, "xn"}, {"Mul", {"xn", "w"}, "yw"}, {"ReduceSum", {"yw"}, "y"}},
      {{"eps", {1e-6f}}, {"w", {1.5f, -0.5f, 2.0f, 1.0f}}});
  std::vector<std::string> notes;
  double ms = 0;
  for (float v : x) ms += double(v) * v;
  ms /= x.size();
  double y = 0;
  const std::vector<double> w = {1.5, -0.5, 2.0, 1.0};
  for (size_t k = 0; k < x.size(); ++k) y += x[k] / std::sqrt(ms + 1e-6) * w[k];
  EXPECT_NEAR(pattern_relevance(rms, x, &notes), y, 1e-6) << joined(notes);
  EXPECT_NE(joined(notes).find("1 normalising scales held"), std::string::npos) << joined(notes);
  EXPECT_EQ(joined(notes).find("halved"), std::string::npos) << joined(notes);  // x·x under the reduction is not reached
  // SiLU: y = ReduceSum(x · Sigmoid(x)): each x_i · r_i = x_i σ(x_i)
  const onnx::Model silu = pattern_model({{"Sigmoid", {"x"}, "s"}, {"Mul", {"x", "s"}, "xs"}, {"ReduceSum", {"xs"}, "y"}}, {});
  std::vector<double> per;
  pattern_relevance(silu, x, &notes, &per);
  for (size_t k = 0; k < x.size(); ++k) EXPECT_NEAR(per[k], x[k] / (1 + std::exp(-double(x[k]))), 1e-6);
  EXPECT_NE(joined(notes).find("1 gated activations by the identity rule"), std::string::npos) << joined(notes);
  EXPECT_EQ(joined(notes).find("no rule"), std::string::npos) << joined(notes);  // the Sigmoid inside the gate needs none
  // a Sigmoid on the path by itself has no rule: named, and its gradient used
  const onnx::Model sig = pattern_model({{"Sigmoid", {"x"}, "s"}, {"ReduceSum", {"s"}, "y"}}, {});
  pattern_relevance(sig, x, &notes, &per);
  EXPECT_NE(joined(notes).find("no rule for Sigmoid (1): their gradient is used"), std::string::npos) << joined(notes);
  for (size_t k = 0; k < x.size(); ++k) {
    const double sg = 1 / (1 + std::exp(-double(x[k])));
    EXPECT_NEAR(per[k], x[k] * sg * (1 - sg), 1e-6);  // gradient × input
  }
}

// Opset 20's fused Gelu takes the identity rule, as its decomposed form x · Φ(x) with the gate held: each x_i · r_i =
// GELU(x_i); without the rules its gradient × input x_i · GELU'(x_i) is another value (the negative control).
TEST(OnnxPropagation, FusedGeluTakesTheIdentityRuleAsItsDecomposedForm) {
  const std::vector<float> x = {0.5f, -1.25f, 2.0f, 0.75f};
  const onnx::Model fused = pattern_model({{"Gelu", {"x"}, "g"}, {"ReduceSum", {"g"}, "y"}}, {}, 20);
  const onnx::Model decomposed = pattern_model(
      {{"Mul", {"x", "inv_sqrt2"}, "xs"}, {"Erf", {"xs"}, "e"}, {"Add", {"e", "one"}, "e1"}, {"Mul", {"e1", "half"}, "phi"},
       {"Mul", {"x", "phi"}, "g"}, {"ReduceSum", {"g"}, "y"}},
      {{"inv_sqrt2", {0.70710678f}}, {"one", {1.0f}}, {"half", {0.5f}}});
  std::vector<std::string> notes, notes_decomposed;
  std::vector<double> per, per_decomposed;
  pattern_relevance(fused, x, &notes, &per);
  pattern_relevance(decomposed, x, &notes_decomposed, &per_decomposed);
  EXPECT_NE(joined(notes).find("1 Gelu by the identity rule"), std::string::npos) << joined(notes);
  EXPECT_NE(joined(notes_decomposed).find("1 gated activations by the identity rule"), std::string::npos);
  for (size_t k = 0; k < x.size(); ++k) {
    const double v = x[k], gelu = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
    EXPECT_NEAR(per[k], gelu, 1e-6) << k;
    EXPECT_NEAR(per_decomposed[k], gelu, 1e-6) << k;
    const double d_gelu = 0.5 * (1 + std::erf(v / std::sqrt(2.0))) + v * std::exp(-0.5 * v * v) / std::sqrt(2 * M_PI);
    EXPECT_GT(std::abs(v * d_gelu - gelu), 1e-3) << k;  // the plain gradient × input differs
  }
}

}  // namespace
}  // namespace attnlab
