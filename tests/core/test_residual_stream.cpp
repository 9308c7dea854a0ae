// The residual stream found in real exported graphs (explain/onnx/residual_stream.h), checked against the torch
// module that made each value (torch.onnx.export keeps the module scope in node names):
//   bert-sst2 (post-LN): block l's output is /m/layers.l/ln2 (its LayerNorm after the FFN sum), the last layer's too;
//   gpt2-sst2 (pre-LN): /layers.l/Add_3 (the FFN's residual sum), the last layer's too — not ln_f after it;
//   vit_tiny (torchvision's pre-LN ViT, decomposed LayerNorms, the residual Adds with the skip as second input):
//     /encoder/layers/encoder_layer_l/Add_1, not /encoder/ln.
// Bad input: a BERT whose second layer's residual Add is cut (its skip input replaced by the attention output: no
// Add(x, f(x)) left) is refused with the layer named, and the CLI row says why (value_zeroing_note) elsewhere.
// Value zeroing's and ALTI's numbers: tests/node/onnx_context_mixing.test.mjs (ONNX Runtime) and onnx_text_parity.test.mjs
// (native).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "explain/onnx/onnx_classifier.h"
#include "explain/onnx/residual_stream.h"
#include "explain/onnx_text/onnx_text_model.h"
#include "onnx_test_util.h"

namespace attnlab {
namespace {

const std::string kStreamFixtures = std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/";
// "a gorgeous , witty , seductive movie ." with [CLS] … [SEP]
const std::vector<int> kStreamBertIds = {101, 1037, 9882, 1010, 25591, 1010, 23182, 3185, 1012, 102};

void stream_load_text(const std::string& name, OnnxTextModel* m) {
  const std::string b = test::read_text(kStreamFixtures + "onnx-text/" + name + "/model.onnx");
  std::string err;
  ASSERT_TRUE(m->load(reinterpret_cast<const uint8_t*>(b.data()), b.size(), "", &err)) << err;
}

std::vector<std::string> stream_names(const std::string& prefix, const std::string& suffix, int layers) {
  std::vector<std::string> v;
  for (int l = 0; l < layers; ++l) v.push_back(prefix + std::to_string(l) + suffix);
  return v;
}

// The BERT fixture run on kStreamBertIds, and its residual stream.
void bert_stream(OnnxTextModel* m, ResidualStream* s) {
  stream_load_text("bert-sst2", m);
  std::string err;
  ASSERT_TRUE(m->run(kStreamBertIds, &err)) << err;
  ASSERT_TRUE(find_residual_stream(m->executor(), m->attention(), m->output_name(), s, &err)) << err;
}

TEST(ResidualStream, BertPostNormBlocksEndAtTheirSecondLayerNorm) {
  OnnxTextModel m;
  ResidualStream s;
  ASSERT_NO_FATAL_FAILURE(bert_stream(&m, &s));
  EXPECT_TRUE(s.post_norm);
  EXPECT_EQ(s.layer_outputs, stream_names("/m/layers.", "/ln2/LayerNormalization_output_0", 4));
  ASSERT_EQ(s.attention.size(), 4u);
  EXPECT_EQ(s.attention[0].skip, "/m/emb_ln/LayerNormalization_output_0");
  EXPECT_EQ(s.attention[1].skip, "/m/layers.0/ln2/LayerNormalization_output_0");
  EXPECT_EQ(s.attention[1].branch, "/m/layers.1/attention/dense/Add_output_0");
  EXPECT_EQ(s.attention[1].sum, "/m/layers.1/Add_output_0");
}

TEST(ResidualStream, Gpt2PreNormBlocksEndAtTheFfnSumNotTheFinalNorm) {
  OnnxTextModel m;
  stream_load_text("gpt2-sst2", &m);
  std::string err;
  ASSERT_TRUE(m.run({0, 64, 35697, 11, 30537, 4}, &err)) << err;
  ResidualStream s;
  ASSERT_TRUE(find_residual_stream(m.executor(), m.attention(), m.output_name(), &s, &err)) << err;
  EXPECT_FALSE(s.post_norm);
  EXPECT_EQ(s.layer_outputs, stream_names("/layers.", "/Add_3_output_0", 4));
}

TEST(ResidualStream, TorchvisionVitBlocksEndAtTheirSecondResidualAdd) {
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(test::read_bytes(kStreamFixtures + "onnx/vit_tiny/model.onnx", &bytes));
  OnnxClassifier clf;
  std::string err;
  ASSERT_TRUE(clf.load(bytes.data(), bytes.size(), &err)) << err;
  const auto& in = clf.model().inputs.at(0).dims;
  size_t count = 1;
  for (size_t k = 1; k < in.size(); ++k) count *= static_cast<size_t>(in[k]);
  std::vector<float> x(count, 0.25f);
  ASSERT_TRUE(clf.forward(x.data(), x.size(), &err)) << err;
  ResidualStream s;
  ASSERT_TRUE(find_residual_stream(clf.executor(), clf.attention(), clf.model().outputs.at(0).name, &s, &err)) << err;
  EXPECT_FALSE(s.post_norm);
  EXPECT_EQ(s.layer_outputs, stream_names("/encoder/layers/encoder_layer_", "/Add_1_output_0", static_cast<int>(clf.attention().size())));
}

// Executor::forward_from's stop_after, which value zeroing and ALTI use to run only as far as the value they read: the
// value asked for is recomputed, the logits after it are left as they were, and a full forward_from puts them right.
TEST(ResidualStream, ForwardFromStopsAfterTheValueAsked) {
  OnnxTextModel m;
  ResidualStream s;
  ASSERT_NO_FATAL_FAILURE(bert_stream(&m, &s));
  std::string err;
  auto& ex = m.executor();
  const std::string& values = m.attention()[0].values;
  const onnx::Tensor<float> V = *ex.value(values), out0 = *ex.value(s.layer_outputs[0]);
  const std::vector<float> logits = m.current_logits();
  onnx::Tensor<float> z = V;
  std::fill(z.f.begin(), z.f.end(), 0.f);
  ASSERT_TRUE(ex.forward_from(values, z, &err, s.layer_outputs[0])) << err;
  EXPECT_NE(ex.value(s.layer_outputs[0])->f, out0.f);  // recomputed with the values zeroed
  EXPECT_EQ(m.current_logits(), logits);                // not reached: as before
  ASSERT_TRUE(ex.forward_from(values, z, &err)) << err;
  EXPECT_NE(m.current_logits(), logits);  // control: the whole graph sees the change
  ASSERT_TRUE(ex.forward_from(values, V, &err)) << err;
  EXPECT_EQ(m.current_logits(), logits);
  EXPECT_EQ(ex.value(s.layer_outputs[0])->f, out0.f);
}

// The walk's bound: a budget far below what the BERT fixture needs refuses it with the reason (a hostile graph of many
// Adds and layers meets the default bound the same way); the default finds it (control).
TEST(ResidualStream, TheGraphWalkIsBounded) {
  OnnxTextModel m;
  ResidualStream s;
  ASSERT_NO_FATAL_FAILURE(bert_stream(&m, &s));
  std::string err;
  EXPECT_FALSE(find_residual_stream(m.executor(), m.attention(), m.output_name(), &s, &err, 10));
  EXPECT_NE(err.find("too large to find its residual connections"), std::string::npos) << err;
  EXPECT_TRUE(find_residual_stream(m.executor(), m.attention(), m.output_name(), &s, &err)) << err;
}

TEST(ResidualStream, AGraphWithoutTheResidualIsRefusedWithTheLayerNamed) {
  auto model = std::make_unique<onnx::Model>();
  std::string err;
  ASSERT_TRUE(test::load_model_file(kStreamFixtures + "onnx-text/bert-sst2/model.onnx", model.get(), &err)) << err;
  bool cut = false;
  for (auto& n : model->nodes)
    if (n.name == "/m/layers.1/Add") {  // Add(layer 0's output, attention output) -> Add(attention output, itself)
      n.inputs[0] = n.inputs[1];
      cut = true;
    }
  ASSERT_TRUE(cut);
  onnx::Executor<float> ex;
  ASSERT_TRUE(ex.load(*model, &err)) << err;
  OnnxTextModel m;  // for the run's inputs and the found attention, then the cut graph on the same inputs
  stream_load_text("bert-sst2", &m);
  ASSERT_TRUE(m.run(kStreamBertIds, &err)) << err;
  std::map<std::string, onnx::Tensor<float>> inputs;
  for (const auto& i : model->inputs) inputs[i.name] = *m.executor().value(i.name);
  ASSERT_TRUE(ex.forward(inputs, &err)) << err;
  ResidualStream s;
  EXPECT_FALSE(find_residual_stream(ex, m.attention(), m.output_name(), &s, &err));
  EXPECT_NE(err.find("layer 1's attention has no residual connection"), std::string::npos) << err;
  // Control: the uncut graph on the same executor type passes.
  EXPECT_TRUE(find_residual_stream(m.executor(), m.attention(), m.output_name(), &s, &err)) << err;
}

}  // namespace
}  // namespace attnlab
