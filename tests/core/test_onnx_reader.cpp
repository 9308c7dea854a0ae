// ONNX reader and graph validation on bad input: every case gives a clear message, never a crash
// (hand-made protobuf bytes; every prefix of a real model; structural errors built as Model structs).
#include <gtest/gtest.h>

#include "onnx/executor.h"
#include "onnx/reader.h"
#include "onnx_test_util.h"

using namespace attnlab;
using namespace attnlab::onnx;

namespace {

using Bytes = std::string;
Bytes varint(uint64_t v) {
  Bytes b;
  do {
    uint8_t c = v & 0x7f;
    v >>= 7;
    if (v) c |= 0x80;
    b.push_back(static_cast<char>(c));
  } while (v);
  return b;
}
Bytes field_varint(int f, uint64_t v) { return varint(static_cast<uint64_t>(f) << 3) + varint(v); }
Bytes field_bytes(int f, const Bytes& payload) { return varint((static_cast<uint64_t>(f) << 3) | 2) + varint(payload.size()) + payload; }

// A model with one initializer tensor (given as TensorProto bytes), ir 8, opset 13, one Identity node.
Bytes model_with_tensor(const Bytes& tensor) {
  const Bytes node = field_bytes(1, "w") + field_bytes(2, "y") + field_bytes(4, "Identity");
  const Bytes out = field_bytes(1, "y");
  const Bytes graph = field_bytes(1, node) + field_bytes(5, tensor) + field_bytes(12, out);
  return field_varint(1, 8) + field_bytes(8, field_varint(2, 13)) + field_bytes(7, graph);
}
Bytes tensor(std::vector<int64_t> dims, int dtype, const Bytes& raw, const std::string& name = "w") {
  Bytes t;
  for (int64_t d : dims) t += field_varint(1, static_cast<uint64_t>(d));
  t += field_varint(2, dtype) + field_bytes(8, name) + field_bytes(9, raw);
  return t;
}

std::string read_error(const Bytes& b, const ReaderLimits& limits = ReaderLimits()) {
  Model m;
  std::string err;
  const bool ok = read_model(reinterpret_cast<const uint8_t*>(b.data()), b.size(), &m, &err, limits);
  return ok ? "" : err;
}

}  // namespace

TEST(OnnxReader, ReadsAWellFormedModel) {
  const Bytes b = model_with_tensor(tensor({2}, kFloat, Bytes(8, '\0')));
  Model m;
  std::string err;
  ASSERT_TRUE(read_model(reinterpret_cast<const uint8_t*>(b.data()), b.size(), &m, &err)) << err;
  ASSERT_EQ(m.initializers.size(), 1u);
  EXPECT_EQ(m.initializers[0].dims, (std::vector<int64_t>{2}));
  Executor<float> ex;
  EXPECT_TRUE(ex.load(m, &err)) << err;
}

TEST(OnnxReader, RefusesBadFilesWithMessages) {
  EXPECT_NE(read_error("this is not a model").find("not an ONNX model"), std::string::npos);
  EXPECT_NE(read_error("").find("empty"), std::string::npos);
  Bytes ext = tensor({2}, kFloat, Bytes(8, '\0'));
  ext += field_bytes(13, field_bytes(1, "location") + field_bytes(2, "../../etc/passwd"));
  EXPECT_NE(read_error(model_with_tensor(ext)).find("external_data is refused"), std::string::npos);
  Bytes loc = tensor({2}, kFloat, Bytes(8, '\0')) + field_varint(14, 1);
  EXPECT_NE(read_error(model_with_tensor(loc)).find("EXTERNAL is refused"), std::string::npos);
  EXPECT_NE(read_error(model_with_tensor(tensor({0}, kFloat, ""))).find("dims must be > 0"), std::string::npos);
  EXPECT_NE(read_error(model_with_tensor(tensor({static_cast<int64_t>(-3)}, kFloat, ""))).find("dims must be > 0"), std::string::npos);
  EXPECT_NE(read_error(model_with_tensor(tensor({int64_t(1) << 40, int64_t(1) << 40}, kFloat, ""))).find("overflows"),
            std::string::npos);
  EXPECT_NE(read_error(model_with_tensor(tensor({2}, kString, ""))).find("STRING (8) is not supported"), std::string::npos);
  EXPECT_NE(read_error(model_with_tensor(tensor({2}, 99, ""))).find("not supported"), std::string::npos);
  EXPECT_NE(read_error(model_with_tensor(tensor({3}, kFloat, Bytes(8, '\0')))).find("raw_data has 8 bytes"), std::string::npos);
  ReaderLimits small;
  small.max_bytes = 16;
  EXPECT_NE(read_error(model_with_tensor(tensor({2}, kFloat, Bytes(8, '\0'))), small).find("more than the limit"),
            std::string::npos);
  // IR version out of range
  Bytes m = model_with_tensor(tensor({2}, kFloat, Bytes(8, '\0')));
  m[1] = 99;
  EXPECT_NE(read_error(m).find("IR version"), std::string::npos);
}

TEST(OnnxReader, EveryPrefixOfARealModelFailsCleanly) {
  std::vector<uint8_t> b;
  ASSERT_TRUE(test::read_bytes("/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding/model.onnx", &b) ||
              test::read_bytes(std::string(ATTNLAB_SOURCE_DIR) + "/tests/fixtures/onnx/squeezenet1_1/model.onnx", &b));
  const size_t n = std::min<size_t>(b.size(), 4096);
  int ok = 0;
  for (size_t k = 0; k < n; ++k) {
    Model m;
    std::string err;
    if (read_model(b.data(), k, &m, &err)) {
      Executor<float> ex;
      ok += ex.load(m, &err);  // a prefix that happens to parse must still validate or fail with a message
    } else {
      EXPECT_FALSE(err.empty());
    }
  }
  SUCCEED() << ok << " prefixes parsed";
}

// Found by fuzz_onnx (tests/fixtures/reliability/fuzz/onnx/): an attribute whose packed floats field is empty
// made the reader memcpy 0 bytes into a null vector buffer (undefined behaviour; UBSan stops the sanitized run
// of this suite in build-fuzz/). It must read as a model or fail with a message.
TEST(OnnxReader, EmptyPackedFloatsAttribute) {
  std::vector<uint8_t> b;
  ASSERT_TRUE(test::read_bytes(std::string(ATTNLAB_SOURCE_DIR) +
                                   "/tests/fixtures/reliability/fuzz/onnx/empty-packed-floats-attribute", &b));
  Model m;
  std::string err;
  if (read_model(b.data(), b.size(), &m, &err)) {
    Executor<float> ex;
    if (!ex.load(m, &err)) {
      EXPECT_FALSE(err.empty());
    }
  } else {
    EXPECT_FALSE(err.empty());
  }
}

// Also found by fuzz_onnx: a graph input with an empty name indexed past the executor's (empty) value table.
TEST(OnnxReader, UnnamedGraphInputIsRefused) {
  std::vector<uint8_t> b;
  ASSERT_TRUE(test::read_bytes(std::string(ATTNLAB_SOURCE_DIR) +
                                   "/tests/fixtures/reliability/fuzz/onnx/unnamed-graph-input", &b));
  Model m;
  std::string err;
  ASSERT_TRUE(read_model(b.data(), b.size(), &m, &err)) << err;
  Executor<float> ex;
  EXPECT_FALSE(ex.load(m, &err));
  EXPECT_NE(err.find("no name"), std::string::npos) << err;
}

TEST(OnnxReader, GraphErrors) {
  auto node = [](const std::string& op, std::vector<std::string> in, std::vector<std::string> out) {
    Node n;
    n.name = out[0];
    n.op_type = op;
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    n.opset = 13;
    return n;
  };
  Model m;
  m.ir_version = 8;
  m.opsets[""] = 13;
  ValueInfo x;
  x.name = "x";
  x.dtype = kFloat;
  m.inputs = {x};
  ValueInfo y;
  y.name = "b";
  m.outputs = {y};
  m.nodes = {node("Add", {"x", "b"}, {"a"}), node("Relu", {"a"}, {"b"})};
  Executor<float> ex;
  std::string err;
  EXPECT_FALSE(ex.load(m, &err));
  EXPECT_NE(err.find("cycle"), std::string::npos) << err;
  m.nodes = {node("Relu", {"nowhere"}, {"b"})};
  EXPECT_FALSE(ex.load(m, &err));
  EXPECT_NE(err.find("'nowhere', which nothing defines"), std::string::npos) << err;
  m.nodes = {node("Relu", {"x"}, {"b"}), node("Relu", {"x"}, {"b"})};
  EXPECT_FALSE(ex.load(m, &err));
  EXPECT_NE(err.find("defined twice"), std::string::npos) << err;
  m.nodes = {node("LSTM", {"x"}, {"a"}), node("LSTM", {"a"}, {"c"}), node("Resize", {"c"}, {"b"})};
  EXPECT_FALSE(ex.load(m, &err));
  EXPECT_EQ(err, "unsupported operators: LSTM (2), Resize (1)");
  m.nodes = {node("Relu", {"x"}, {"b"})};
  m.opsets[""] = 30;
  EXPECT_FALSE(ex.load(m, &err));
  EXPECT_NE(err.find("opset 30"), std::string::npos) << err;
  m.opsets[""] = 13;
  ValueInfo xs = x;
  xs.has_shape = true;
  xs.dims = {1, 3};
  xs.dim_names = {"", ""};
  m.inputs = {xs};
  ASSERT_TRUE(ex.load(m, &err)) << err;
  EXPECT_FALSE(ex.forward({{"x", Tensor<float>::floats({1, 4})}}, &err));
  EXPECT_EQ(err, "input 'x' has shape [1,4], the model expects [1,3]");
  EXPECT_FALSE(ex.forward({}, &err));
  EXPECT_NE(err.find("was not given"), std::string::npos);
  // An Expand to a huge shape is refused before allocating.
  TensorData s;
  s.name = "s";
  s.dtype = kInt64;
  s.dims = {2};
  s.i = {int64_t(1) << 20, int64_t(1) << 20};
  m.initializers = {s};
  m.inputs = {x};
  m.nodes = {node("Expand", {"x", "s"}, {"b"})};
  ASSERT_TRUE(ex.load(m, &err)) << err;
  EXPECT_FALSE(ex.forward({{"x", Tensor<float>::floats({1})}}, &err));
  EXPECT_NE(err.find("would have more than"), std::string::npos) << err;
}
