// add_graph_outputs / expose_attention (core/onnx/graph_outputs.h): the torchvision ViT fixture with its two
// attention distributions made graph outputs reads back as the same model plus those outputs (FLOAT), and the
// executor runs it with the same logits and those values; a CNN has nothing to add (bytes unchanged); a name already
// an output, a file without a graph and every truncation of a real model are refused with a message, never a crash.
// ONNX Runtime Web running the rewritten file: tests/node/onnx_vit_ort.test.mjs.
#include <gtest/gtest.h>

#include "onnx/attention_finder.h"
#include "onnx/graph_outputs.h"
#include "onnx_test_util.h"

namespace attnlab {
namespace {

const std::string kGoFixtures = std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/onnx/";

TEST(OnnxGraphOutputs, AttentionMadeOutputsReadsBackAndRunsTheSame) {
  std::vector<uint8_t> bytes, out;
  ASSERT_TRUE(test::read_bytes(kGoFixtures + "vit_tiny/model.onnx", &bytes));
  std::vector<std::string> names;
  std::string err;
  ASSERT_TRUE(onnx::expose_attention(bytes.data(), bytes.size(), &out, &names, &err)) << err;
  ASSERT_EQ(names.size(), 2u);
  onnx::Model before, after;
  ASSERT_TRUE(onnx::read_model(bytes.data(), bytes.size(), &before, &err)) << err;
  ASSERT_TRUE(onnx::read_model(out.data(), out.size(), &after, &err)) << err;
  ASSERT_EQ(after.outputs.size(), before.outputs.size() + 2);
  EXPECT_EQ(after.outputs[0].name, before.outputs[0].name);
  EXPECT_EQ(after.outputs[1].name, names[0]);
  EXPECT_EQ(after.outputs[2].name, names[1]);
  EXPECT_EQ(after.outputs[2].dtype, onnx::kFloat);
  EXPECT_EQ(after.nodes.size(), before.nodes.size());
  EXPECT_EQ(after.initializers.size(), before.initializers.size());
  // the executor runs both; same logits, and the added outputs are the attention values
  onnx::Tensor<float> x = onnx::Tensor<float>::floats({1, 3, 48, 48});
  for (size_t k = 0; k < x.f.size(); ++k) x.f[k] = static_cast<float>((k * 37 % 101) / 101.0 - 0.5);
  onnx::Executor<float> a, b;
  ASSERT_TRUE(a.load(before, &err) && a.forward({{"image", x}}, &err)) << err;
  ASSERT_TRUE(b.load(after, &err) && b.forward({{"image", x}}, &err)) << err;
  EXPECT_EQ(a.value(before.outputs[0].name)->f, b.value(after.outputs[0].name)->f);
  EXPECT_EQ(b.value(names[1])->f, a.value(names[1])->f);
  // twice: the names are outputs already
  std::vector<uint8_t> again;
  EXPECT_FALSE(onnx::add_graph_outputs(out.data(), out.size(), {names[0]}, &again, &err));
  EXPECT_NE(err.find("is already a graph output"), std::string::npos) << err;
}

TEST(OnnxGraphOutputs, NothingToAddHostileBytesRefused) {
  std::vector<uint8_t> cnn, out;
  ASSERT_TRUE(test::read_bytes(kGoFixtures + "squeezenet1_1/model.onnx", &cnn));
  std::vector<std::string> names;
  std::string err;
  ASSERT_TRUE(onnx::expose_attention(cnn.data(), cnn.size(), &out, &names, &err)) << err;
  EXPECT_TRUE(names.empty());
  EXPECT_EQ(out, cnn);  // a CNN: the bytes unchanged
  const std::vector<uint8_t> no_graph = {0x08, 0x07};  // ir_version = 7, nothing else
  EXPECT_FALSE(onnx::add_graph_outputs(no_graph.data(), no_graph.size(), {"a"}, &out, &err));
  EXPECT_EQ(err, "the model has no graph");
  std::vector<uint8_t> vit;
  ASSERT_TRUE(test::read_bytes(kGoFixtures + "vit_tiny/model.onnx", &vit));
  int refused = 0;
  for (size_t n = 0; n < vit.size(); n += 97) {  // truncations: a message each, no crash (ASan in CI)
    err.clear();
    if (!onnx::add_graph_outputs(vit.data(), n, {"x"}, &out, &err)) {
      EXPECT_FALSE(err.empty());
      ++refused;
    }
  }
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace attnlab
