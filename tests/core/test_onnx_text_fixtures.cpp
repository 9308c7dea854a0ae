// The BERT-, RoBERTa- and GPT-2-shaped fixtures (tests/fixtures/onnx-text/, models/tools/make-text-fixtures.py:
// trained in PyTorch, exported by torch.onnx.export) run by the core's executor directly, against the torch
// tensors in each folder's reference.json (float64 torch on the float32 weights of model.onnx):
//   - Executor<float> (the product path): the explained position's logits, every found attention distribution
//     ([1, heads, T, T], layers in graph order) and the whole gradient of the target logit w.r.t. the token
//     embeddings ([T, d], the output of the Gather that reads input_ids) — max |Δ| / max |reference| ≤ 1e-4
//     (attention: max |Δ| ≤ 1e-5);
//   - Executor<double> (the gradient-check path): the same within 1e-6 relative (attention 1e-7) — float64 against
//     float64; what is left (measured 1e-9 … 3e-8) is the graph's constants, which the exporter stores as float32
//     (√2 of the erf GELU, 1/√8, LayerNorm's eps), where torch uses them in double;
//   - negative controls (the same comparisons, required to fail): the gradient of the runner-up logit, the
//     attention of the layer above, and the logits with one weight of the first attention's query changed.
// The tokenizer, ORT and the CLI's rows (gradient norm, gradient × input, Chefer relevance) are checked by
// tests/node/onnx_text_fixtures.test.mjs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "onnx/attention_finder.h"
#include "onnx/executor.h"
#include "onnx/reader.h"

namespace {

using attnlab::onnx::Executor;
using attnlab::onnx::FoundAttention;
using attnlab::onnx::Model;
using attnlab::onnx::Tensor;
using nlohmann::json;

std::string fixture_dir(const std::string& name) {
  return std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/onnx-text/" + name;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// max |a − b| / max |b| (b = the reference).
double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0, m = 0;
  for (size_t k = 0; k < a.size() && k < b.size(); ++k) {
    const double e = std::abs(a[k] - b[k]);
    d = std::max(d, std::isnan(e) ? INFINITY : e);
    m = std::max(m, std::abs(b[k]));
  }
  return d / m;
}

void flatten(const json& j, std::vector<double>* out) {
  if (j.is_array())
    for (const auto& e : j) flatten(e, out);
  else
    out->push_back(j.get<double>());
}

// The name of the token embeddings: the output of a Gather (axis 0) whose indices are input_ids.
std::string embedding_value(const Model& m) {
  for (const auto& n : m.nodes)
    if (n.op_type == "Gather" && n.inputs.size() == 2 && n.inputs[1] == "input_ids" && n.attr_int("axis", 0) == 0)
      return n.outputs[0];
  return "";
}

template <class T>
struct FixtureRun {
  Model model;
  Executor<T> ex;
  std::string embedding;
  std::vector<FoundAttention> attention;
  bool causal = false;

  bool load(const std::string& bytes, std::string* error) {
    Model m;
    if (!attnlab::onnx::read_model(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &m, error)) return false;
    return load_model(std::move(m), error);
  }
  bool load_model(Model m, std::string* error) {
    model = std::move(m);
    if (!ex.load(model, error)) return false;
    embedding = embedding_value(model);
    if (embedding.empty()) {
      *error = "no Gather reads input_ids";
      return false;
    }
    ex.set_gradient_roots({embedding});
    attention = attnlab::onnx::find_attention(model);
    return true;
  }
  // Forward on ids (mask 1, token types 0); returns the explained position's logits.
  std::vector<double> forward(const std::vector<int64_t>& ids, std::string* error) {
    const int64_t n = static_cast<int64_t>(ids.size());
    std::map<std::string, Tensor<T>> in;
    for (const auto& vi : model.inputs) {
      Tensor<T> t = Tensor<T>::ints({1, n}, vi.dtype);
      for (int64_t k = 0; k < n; ++k) t.i[k] = vi.name == "input_ids" ? ids[k] : vi.name == "attention_mask" ? 1 : 0;
      in[vi.name] = t;
    }
    if (!ex.forward(in, error)) return {};
    const Tensor<T>& y = *ex.value("logits");
    causal = y.rank() == 3;
    const size_t V = static_cast<size_t>(y.shape.back());
    return std::vector<double>(y.f.end() - static_cast<std::ptrdiff_t>(V), y.f.end());
  }
  // d logits[explained, target] / d token embeddings, [T·d].
  std::vector<double> gradient(int target, std::string* error) {
    const Tensor<T>& y = *ex.value("logits");
    Tensor<T> seed = Tensor<T>::floats(y.shape);
    seed.f[y.f.size() - static_cast<size_t>(y.shape.back()) + static_cast<size_t>(target)] = T(1);
    if (!ex.backward("logits", seed, error)) return {};
    const Tensor<T>* g = ex.gradient(embedding);
    return g ? std::vector<double>(g->f.begin(), g->f.end()) : std::vector<double>();
  }
  std::vector<double> attention_of(size_t layer) const {
    const Tensor<T>& p = *ex.value(attention[layer].probabilities);
    return std::vector<double>(p.f.begin(), p.f.end());
  }
};

// The explained position's logits against the reference: [C] directly; a causal LM's [V] through the sampled entries
// and the sums of all V (reference.json keeps 200+ of the 50,265).
double logits_diff(const std::vector<double>& got, const json& ref) {
  if (ref.is_array()) return rel_diff(got, ref.get<std::vector<double>>());
  EXPECT_EQ(got.size(), ref["vocabulary"].get<size_t>());
  std::vector<double> a, b;
  for (const auto& [k, v] : ref["sample"].items()) {
    a.push_back(got.at(std::stoul(k)));
    b.push_back(v.get<double>());
  }
  double sum = 0, sq = 0;
  for (double v : got) sum += v, sq += v * v;
  return std::max({rel_diff(a, b), std::abs(sum - ref["sum"].get<double>()) / ref["sum_abs"].get<double>(),
                   std::abs(sq - ref["sum_of_squares"].get<double>()) / ref["sum_of_squares"].get<double>()});
}

int runner_up(const std::vector<double>& logits, int target) {
  int best = -1;
  for (int k = 0; k < static_cast<int>(logits.size()); ++k)
    if (k != target && (best < 0 || logits[k] > logits[best])) best = k;
  return best;
}

template <class T>
void check_fixture(const std::string& name, double tol, double attention_tol) {
  const std::string bytes = read_bytes(fixture_dir(name) + "/model.onnx");
  const std::string ref_text = read_bytes(fixture_dir(name) + "/reference.json");
  ASSERT_FALSE(bytes.empty()) << name << "/model.onnx missing";
  const json ref = json::parse(ref_text);
  FixtureRun<T> run;
  std::string error;
  ASSERT_TRUE(run.load(bytes, &error)) << name << ": " << error;
  ASSERT_FALSE(ref["cases"].empty());
  for (const auto& c : ref["cases"]) {
    SCOPED_TRACE(name + " \"" + c["text"].get<std::string>() + "\"");
    const std::vector<int64_t> ids = c["ids"].get<std::vector<int64_t>>();
    const std::vector<double> logits = run.forward(ids, &error);
    ASSERT_FALSE(logits.empty()) << error;
    EXPECT_LE(logits_diff(logits, c["logits"]), tol);
    // Attention: one found per layer, [1, H, T, T] each, equal to torch's layer by layer.
    ASSERT_EQ(run.attention.size(), c["attention"].size());
    for (size_t l = 0; l < run.attention.size(); ++l) {
      std::vector<double> want;
      flatten(c["attention"][l], &want);
      const std::vector<double> got = run.attention_of(l);
      ASSERT_EQ(got.size(), want.size());
      double d = 0;
      for (size_t k = 0; k < got.size(); ++k) d = std::max(d, std::abs(got[k] - want[k]));
      EXPECT_LE(d, attention_tol) << "layer " << l;
      if (l + 1 < run.attention.size()) {  // negative control: the layer above
        std::vector<double> above;
        flatten(c["attention"][l + 1], &above);
        double e = 0;
        for (size_t k = 0; k < got.size(); ++k) e = std::max(e, std::abs(got[k] - above[k]));
        EXPECT_GT(e, attention_tol) << "negative control: layer " << l + 1 << "'s attention must differ";
      }
    }
    // The whole gradient on the token embeddings [T, d].
    const int target = c["target"].get<int>();
    std::vector<double> want;
    flatten(c["embedding_gradient"], &want);
    const std::vector<double> g = run.gradient(target, &error);
    ASSERT_FALSE(g.empty()) << error;
    EXPECT_LE(rel_diff(g, want), tol);
    // Negative control: the gradient of another logit.
    const std::vector<double> other = run.gradient(runner_up(logits, target), &error);
    ASSERT_FALSE(other.empty()) << error;
    EXPECT_GT(rel_diff(other, want), tol) << "negative control: the runner-up logit's gradient must differ";
  }
}

TEST(OnnxTextFixtures, BertFloatEqualsTorch) { check_fixture<float>("bert-sst2", 1e-4, 1e-5); }
TEST(OnnxTextFixtures, RobertaFloatEqualsTorch) { check_fixture<float>("roberta-sst2", 1e-4, 1e-5); }
TEST(OnnxTextFixtures, Gpt2FloatEqualsTorch) { check_fixture<float>("gpt2-sst2", 1e-4, 1e-5); }
TEST(OnnxTextFixtures, BertDoubleEqualsTorch) { check_fixture<double>("bert-sst2", 1e-6, 1e-7); }
TEST(OnnxTextFixtures, RobertaDoubleEqualsTorch) { check_fixture<double>("roberta-sst2", 1e-6, 1e-7); }
TEST(OnnxTextFixtures, Gpt2DoubleEqualsTorch) { check_fixture<double>("gpt2-sst2", 1e-6, 1e-7); }

// Negative control for the logits: the weight of the graph's first MatMul that reads an initializer (layer 0's query
// projection) scaled by 1.1 gives other logits, so the comparison above would see a wrong weight or operator.
TEST(OnnxTextFixtures, ChangedWeightIsSeen) {
  for (const std::string name : {"bert-sst2", "roberta-sst2", "gpt2-sst2"}) {
    const json ref = json::parse(read_bytes(fixture_dir(name) + "/reference.json"));
    const std::string bytes = read_bytes(fixture_dir(name) + "/model.onnx");
    Model m;
    std::string error;
    ASSERT_TRUE(attnlab::onnx::read_model(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), &m, &error)) << error;
    std::string weight;
    for (const auto& n : m.nodes)
      if (weight.empty() && n.op_type == "MatMul" && n.inputs.size() == 2)
        for (const auto& init : m.initializers)
          if (init.name == n.inputs[1]) weight = init.name;
    bool changed = false;
    for (auto& init : m.initializers)
      if (init.name == weight) {
        for (auto& v : init.f) v *= 1.1f;
        changed = !init.f.empty();
      }
    ASSERT_TRUE(changed) << name << ": no MatMul weight found";
    FixtureRun<double> run;
    ASSERT_TRUE(run.load_model(std::move(m), &error)) << error;
    const auto& c = ref["cases"][0];
    const std::vector<double> logits = run.forward(c["ids"].get<std::vector<int64_t>>(), &error);
    ASSERT_FALSE(logits.empty()) << error;
    EXPECT_GT(logits_diff(logits, c["logits"]), 1e-4) << name << ": a changed weight (" << weight << ") must be seen";
  }
}

}  // namespace
