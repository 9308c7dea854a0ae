// What a model costs to hold and to run once (issue 29: the first photo's map, run by the core while ONNX Runtime
// starts): 8-bit weights read as bytes, not 8-byte integers; a constant that only folded nodes read is let go after
// folding (the shipped MobileNetV2's uint8 weights once dequantized); an inference pass keeps only the graph outputs
// and what it is asked for, and then backward / forward_from refuse until a full pass ran. On the shipped model.
#include <gtest/gtest.h>

#include <random>

#include "explain/onnx/onnx_classifier.h"
#include "onnx/executor.h"
#include "onnx/reader.h"
#include "onnx_test_util.h"

namespace attnlab {
namespace {

const std::string kModel = std::string(ATTNLAB_SOURCE_DIR) + "/models/image/mobilenet_v2.onnx";

TEST(OnnxExecutorMemory, EightBitTensorsAreReadAsBytesWithTheirSign) {
  // TensorProto {dims: [3], data_type: INT8 (3), raw_data: ff 01 80}
  const std::vector<uint8_t> proto = {0x08, 0x03, 0x10, 0x03, 0x4a, 0x03, 0xff, 0x01, 0x80};
  onnx::TensorData t;
  std::string err;
  ASSERT_TRUE(onnx::read_tensor(proto.data(), proto.size(), &t, &err)) << err;
  EXPECT_TRUE(t.i.empty());
  ASSERT_EQ(t.bytes.size(), 3u);
  EXPECT_EQ(t.stored(), 3u);
  EXPECT_EQ(t.int_at(0), -1);
  EXPECT_EQ(t.int_at(1), 1);
  EXPECT_EQ(t.int_at(2), -128);
  const onnx::Tensor<float> x = onnx::tensor_from_data<float>(t);
  EXPECT_EQ(x.i, (std::vector<int64_t>{-1, 1, -128}));
  // UINT8 (2): the same bytes unsigned
  std::vector<uint8_t> u = proto;
  u[3] = 0x02;
  onnx::TensorData tu;
  ASSERT_TRUE(onnx::read_tensor(u.data(), u.size(), &tu, &err)) << err;
  EXPECT_EQ(onnx::tensor_from_data<float>(tu).i, (std::vector<int64_t>{255, 1, 128}));
}

TEST(OnnxExecutorMemory, DequantizedWeightsAreHeldOnceAsFloats) {
  onnx::Model m;
  std::string err;
  ASSERT_TRUE(test::load_model_file(kModel, &m, &err)) << err;
  int64_t eight_bit = 0, params = 0;
  std::vector<std::string> quantized;
  for (const auto& t : m.initializers) {
    params += t.numel();
    if (t.dtype == onnx::kUInt8 || t.dtype == onnx::kInt8) {
      eight_bit += t.numel();
      quantized.push_back(t.name);
      EXPECT_EQ(static_cast<int64_t>(t.bytes.size()), t.numel()) << t.name << " is held one byte a value";
    }
  }
  ASSERT_GT(eight_bit, 3'000'000) << "the shipped MobileNetV2 stores its weights as uint8";
  onnx::Executor<float> ex;
  ASSERT_TRUE(ex.load(m, &err)) << err;
  for (const auto& name : quantized) {
    EXPECT_TRUE(ex.is_constant(name)) << name;
    EXPECT_EQ(ex.value(name), nullptr) << name << ": only DequantizeLinear read it, so it was let go";
  }
  // What stays: the weights as floats (4 bytes a value) and the small float initializers. Holding the 8-bit
  // weights as int64 as well (what the executor did before) would add 8 bytes a value.
  EXPECT_LE(ex.live_bytes(), 4 * params + (1 << 20)) << "live " << ex.live_bytes() << " B for " << params << " values";
  EXPECT_GE(ex.live_bytes(), 4 * eight_bit);
  // A Conv's weight (a runtime node reads it) is held: the first Conv's second input
  for (const auto* n : ex.runtime_nodes())
    if (n->op_type == "Conv") {
      const onnx::Tensor<float>* w = ex.value(n->inputs[1]);
      ASSERT_NE(w, nullptr) << n->inputs[1];
      EXPECT_TRUE(w->is_float());
      break;
    }
}

TEST(OnnxExecutorMemory, AnInferencePassGivesTheSameOutputsAndKeepsOnlyThem) {
  OnnxClassifier clf;
  std::string err;
  ASSERT_TRUE(test::load_classifier_file(kModel, &clf, &err)) << err;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.f, 255.f);
  std::vector<float> x(3 * 224 * 224);
  for (float& v : x) v = u(rng);

  ASSERT_TRUE(clf.forward(x.data(), x.size(), &err)) << err;
  const int64_t full_bytes = clf.executor().live_bytes();
  const std::vector<float> logits = clf.logits(), features = onnx::to_std(clf.executor().value("features")->f);
  ASSERT_NE(clf.executor().value("op0_conv_0"), nullptr);
  ASSERT_TRUE(clf.backward_class(1, &err)) << err;

  const std::vector<std::string> keep = {"clip_1"};
  ASSERT_TRUE(clf.forward(x.data(), x.size(), &err, &keep)) << err;
  EXPECT_EQ(clf.logits(), logits) << "the same nodes run: the same numbers";
  ASSERT_NE(clf.executor().value("features"), nullptr) << "a graph output is kept";
  EXPECT_EQ(onnx::to_std(clf.executor().value("features")->f), features);
  EXPECT_NE(clf.executor().value("clip_1"), nullptr) << "asked for";
  EXPECT_EQ(clf.executor().value("op0_conv_0"), nullptr) << "read by later nodes only, so let go";
  EXPECT_LT(clf.executor().live_bytes(), full_bytes / 2) << clf.executor().live_bytes() << " vs " << full_bytes;
  // Nothing to go back through: backward and forward_from say so
  EXPECT_FALSE(clf.backward_class(1, &err));
  EXPECT_NE(err.find("needs a forward pass that kept every value"), std::string::npos) << err;
  EXPECT_FALSE(clf.forward_from_layer("clip_1", std::vector<float>(32 * 112 * 112, 0.f), &err));
  EXPECT_NE(err.find("kept every value"), std::string::npos) << err;
  // a full pass again: everything back
  ASSERT_TRUE(clf.forward(x.data(), x.size(), &err)) << err;
  EXPECT_NE(clf.executor().value("op0_conv_0"), nullptr);
  EXPECT_TRUE(clf.backward_class(1, &err)) << err;
}

}  // namespace
}  // namespace attnlab
