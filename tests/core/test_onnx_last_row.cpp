// A causal LM's batches on the last position alone (onnx/last_row.h, OnnxTextModel::run_batch): on the shipped
// stories260K and the GPT-2-shaped fixture, the planned tail is what follows the last attention (the LM head and the
// last layer's output projection, norms and MLP; never an attention Softmax), the batch's logits equal the whole
// pass's (natively Eigen rounds a one-row product otherwise: 1e-5; in wasm they are the same bits, checked by the page's
// parity tests), and the output holds one position; so does an inference run(). Negative controls: a plan that marks every node (the first ones
// read [B, T] ids or mix positions) fails the pass with the executor's message, and run_batch then runs whole and
// stays whole; with an empty plan the same pass keeps every position (the plan decides what runs cut).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "explain/onnx_text/onnx_text_model.h"
#include "onnx/last_row.h"
#include "onnx_text_test_util.h"

namespace {

using namespace attnlab;

// Four sequences of 12 tokens from ids below the smallest vocabulary.
std::vector<std::vector<int>> batch() {
  std::vector<std::vector<int>> s;
  for (int b = 0; b < 4; ++b) {
    std::vector<int> ids;
    for (int t = 0; t < 12; ++t) ids.push_back(1 + (7 * t + 13 * b) % 250);
    s.push_back(ids);
  }
  return s;
}

void expect_near_logits(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    ASSERT_EQ(a[k].size(), b[k].size());
    for (size_t v = 0; v < a[k].size(); ++v) ASSERT_NEAR(a[k][v], b[k][v], tol * std::max(1.f, std::abs(b[k][v]))) << k << "," << v;
  }
}

class LastRow : public ::testing::TestWithParam<const char*> {};

TEST_P(LastRow, TailRunsOnTheLastPositionWithTheWholePassLogits) {
  OnnxTextModel m;
  ASSERT_TRUE(test::load_text_model(&m, GetParam()));
  std::string err;
  ASSERT_TRUE(m.run(batch()[0], &err)) << err;  // a single run finds the output causal
  ASSERT_TRUE(m.causal());
  ASSERT_TRUE(m.batch_free());
  const auto& run = m.executor().runtime_nodes();
  const std::vector<char> tail = onnx::last_row_nodes(m.executor(), m.output_name());
  ASSERT_EQ(tail.size(), run.size());
  size_t planned = 0, matmuls = 0;
  bool head = false;
  for (size_t k = 0; k < run.size(); ++k) {
    if (!tail[k]) continue;
    ++planned;
    matmuls += run[k]->op_type == "MatMul";
    EXPECT_NE(run[k]->op_type, "Softmax") << run[k]->name;  // the attention mixes positions: never in the tail
    EXPECT_NE(run[k]->op_type, "Reshape") << run[k]->name;
    for (const auto& o : run[k]->outputs) head = head || o == m.output_name();
  }
  EXPECT_TRUE(head) << "the node that makes the logits runs on the last position";
  EXPECT_GE(matmuls, 3u) << "the LM head, the output projection and the MLP's products";
  EXPECT_LT(planned, run.size() / 3) << "the tail is the last layer's part after its attention, not the graph";

  std::vector<std::vector<float>> whole, cut;
  m.set_last_row_batches(false);
  ASSERT_TRUE(m.run_batch(batch(), &whole, &err)) << err;
  EXPECT_EQ(m.executor().value(m.output_name())->shape[1], 12);
  m.set_last_row_batches(true);
  ASSERT_TRUE(m.run_batch(batch(), &cut, &err)) << err;
  EXPECT_EQ(m.executor().value(m.output_name())->shape[1], 1) << "the output holds the last position alone";
  EXPECT_TRUE(m.last_row_batches());
  expect_near_logits(cut, whole, 1e-5);
  // one inference run: the same logits as a full run, from one position
  ASSERT_TRUE(m.run(batch()[1], &err)) << err;
  const std::vector<float> full = m.logits();
  ASSERT_TRUE(m.run(batch()[1], &err, /*inference=*/true)) << err;
  EXPECT_EQ(m.executor().value(m.output_name())->shape[1], 1);
  expect_near_logits({m.logits()}, {full}, 1e-5);
  expect_near_logits({m.logits()}, {whole[1]}, 1e-5);
  // each sequence's own logits, not another's (the batch is read at the right rows)
  std::vector<std::vector<float>> one;
  ASSERT_TRUE(m.run_batch({batch()[2]}, &one, &err)) << err;
  expect_near_logits({cut[2]}, one, 1e-5);

  // Negative control 1: a plan that also marks the first node (it mixes positions or reads [B, T] ids) fails the
  // pass with the executor's message; run_batch then runs whole (the same logits) and stays whole.
  std::vector<char> wrong = tail;
  std::fill(wrong.begin(), wrong.end(), 2);  // every node, positions on axis 1
  m.executor().set_last_row_nodes(wrong);
  std::vector<std::vector<float>> fallback;
  ASSERT_TRUE(m.run_batch(batch(), &fallback, &err)) << err;
  EXPECT_FALSE(m.last_row_batches());
  EXPECT_EQ(m.executor().value(m.output_name())->shape[1], 12);
  expect_near_logits(fallback, whole, 1e-6);
  std::map<std::string, onnx::Tensor<float>> in;
  onnx::Tensor<float> ids = onnx::Tensor<float>::ints({1, 12});
  for (int t = 0; t < 12; ++t) ids.i[t] = batch()[0][t];
  ids.dtype = m.executor().model().inputs[0].dtype;
  in[m.executor().model().inputs[0].name] = ids;
  for (size_t q = 1; q < m.executor().model().inputs.size(); ++q) {  // masks, positions: any values do here
    onnx::Tensor<float> t = onnx::Tensor<float>::ints({1, 12}, m.executor().model().inputs[q].dtype);
    std::fill(t.i.begin(), t.i.end(), 1);
    in[m.executor().model().inputs[q].name] = t;
  }
  static const std::vector<std::string> outputs_only;
  EXPECT_FALSE(m.executor().forward(in, &err, &outputs_only, 12));
  EXPECT_NE(err.find("last-row pass"), std::string::npos) << err;

  // Negative control 2: the plan decides what runs cut — with an empty one the same pass keeps every position.
  m.executor().set_last_row_nodes(std::vector<char>(run.size(), 0));
  ASSERT_TRUE(m.executor().forward(in, &err, &outputs_only, 12)) << err;
  EXPECT_EQ(m.executor().value(m.output_name())->shape[1], 12);
}

INSTANTIATE_TEST_SUITE_P(CausalLMs, LastRow,
                         ::testing::Values("models/text/stories260K/model.onnx", "tests/fixtures/onnx-text/gpt2-sst2/model.onnx"));

// A classifier reads no position's row of a [B, T, …] output: its batches run whole, whatever the setting.
TEST(LastRowClassifier, BertBatchesRunWhole) {
  OnnxTextModel m;
  ASSERT_TRUE(test::load_text_model(&m, "tests/fixtures/onnx-text/bert-sst2/model.onnx"));
  std::string err;
  const std::vector<int> ids = {101, 1996, 3185, 2003, 2307, 102};
  ASSERT_TRUE(m.run(ids, &err)) << err;
  ASSERT_FALSE(m.causal());
  m.set_last_row_batches(true);
  std::vector<std::vector<float>> logits;
  ASSERT_TRUE(m.run_batch({ids, ids}, &logits, &err)) << err;
  ASSERT_EQ(logits.size(), 2u);
  for (size_t c = 0; c < m.logits().size(); ++c) EXPECT_NEAR(logits[1][c], m.logits()[c], 1e-5);
}

}  // namespace

namespace {

using namespace attnlab;

// x [B, T, 3] → Transpose(perm_a) → Transpose(perm_b) → y.
onnx::Model transposes(std::vector<int64_t> perm_a, std::vector<int64_t> perm_b) {
  onnx::Model m;
  m.ir_version = 8;
  m.opsets[""] = 17;
  for (const auto& [in, out, perm] : {std::tuple{"x", "xt", perm_a}, std::tuple{"xt", "y", perm_b}}) {
    onnx::Node n;
    n.name = out;
    n.op_type = "Transpose";
    n.inputs = {in};
    n.outputs = {out};
    n.opset = 17;
    onnx::Attribute a;
    a.name = "perm";
    a.type = onnx::Attribute::kInts;
    a.ints = perm;
    n.attributes.push_back(a);
    m.nodes.push_back(n);
  }
  test::add_float_io(&m, {"x"}, {"y"});
  return m;
}

// The positions' axis followed through two Transposes (axis 2 between them): both run on the last position and y is
// x's last row; a perm from the file that is no permutation of 0, 1, 2 plans nothing (and never indexes an axis).
// The once-per-model comparison of OnnxTextModel is LastRow.* above (its first cut pass).
TEST(LastRowPlan, PositionsFollowedThroughTransposesAndABadPermPlansNothing) {
  const onnx::Model m = transposes({0, 2, 1}, {0, 2, 1});
  onnx::Executor<float> ex;
  std::string err;
  ASSERT_TRUE(ex.load(m, &err)) << err;
  const std::vector<char> plan = onnx::last_row_nodes(ex, "y");
  ASSERT_EQ(plan, (std::vector<char>{3, 2}));  // 1 + the positions' axis: 2 after the first Transpose, 1 after both
  ex.set_last_row_nodes(plan);
  onnx::Tensor<float> x = onnx::Tensor<float>::floats({2, 4, 3});
  for (size_t k = 0; k < x.f.size(); ++k) x.f[k] = static_cast<float>(k);
  static const std::vector<std::string> outputs_only;
  ASSERT_TRUE(ex.forward({{"x", x}}, &err, &outputs_only, 4)) << err;
  const onnx::Tensor<float>& y = *ex.value("y");
  ASSERT_EQ(y.shape, (onnx::Shape{2, 1, 3}));
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t d = 0; d < 3; ++d) EXPECT_EQ(y.f[b * 3 + d], x.f[(b * 4 + 3) * 3 + d]);
  // negative control: with the second Transpose the identity, y carries the positions on axis 2; the plan takes
  // its input for [B, T, …] (what enters a tail from outside is assumed to be) and the executor's shape check fails
  // the pass (OnnxTextModel then runs whole; its first cut pass is also compared with a whole one)
  onnx::Executor<float> ex2;
  const onnx::Model m2 = transposes({0, 2, 1}, {0, 1, 2});
  ASSERT_TRUE(ex2.load(m2, &err)) << err;
  ex2.set_last_row_nodes(onnx::last_row_nodes(ex2, "y"));
  EXPECT_FALSE(ex2.forward({{"x", x}}, &err, &outputs_only, 4));
  EXPECT_NE(err.find("last-row pass"), std::string::npos) << err;
  for (const auto& bad : {std::vector<int64_t>{0, 5, 1}, std::vector<int64_t>{0, -1, 1}, std::vector<int64_t>{0, 1, 1}}) {
    const onnx::Model mb = transposes(bad, {0, 2, 1});
    onnx::Executor<float> exb;
    if (!exb.load(mb, &err)) continue;  // the reader may refuse it first
    EXPECT_EQ(onnx::last_row_nodes(exb, "y"), (std::vector<char>{0, 0}));
  }
}

}  // namespace
