// The in-memory form of an ONNX model as read from its protobuf bytes (core/onnx/reader.cpp): the graph's
// nodes, initializers, inputs and outputs, with tensor data already converted (float types → float,
// double → double, integer and bool types → int64). Only what the executor needs is kept (doc strings,
// metadata and value_info types beyond the inputs/outputs are dropped).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attnlab::onnx {

// ONNX TensorProto.DataType values.
enum DataType : int {
  kUndefined = 0, kFloat = 1, kUInt8 = 2, kInt8 = 3, kUInt16 = 4, kInt16 = 5, kInt32 = 6, kInt64 = 7,
  kString = 8, kBool = 9, kFloat16 = 10, kDouble = 11, kUInt32 = 12, kUInt64 = 13, kComplex64 = 14,
  kComplex128 = 15, kBFloat16 = 16
};
const char* data_type_name(int dtype);
bool is_float_type(int dtype);    // FLOAT, FLOAT16, BFLOAT16, DOUBLE
bool is_integer_type(int dtype);  // (U)INT8..64, BOOL

struct TensorData {
  std::string name;
  int dtype = kUndefined;
  std::vector<int64_t> dims;
  std::vector<float> f;     // FLOAT, FLOAT16, BFLOAT16 (converted)
  std::vector<double> d;    // DOUBLE
  std::vector<int64_t> i;   // integer and bool types (INT8 / UINT8 from raw_data: in `bytes` instead)
  std::vector<uint8_t> bytes;  // INT8 / UINT8 as stored in raw_data, one byte a value (a quantized model's weights)
  int64_t numel() const;
  size_t stored() const;           // how many values are held, whatever the storage
  int64_t int_at(size_t k) const;  // integer value k, from `i` or `bytes`
};

struct Attribute {
  enum Type { kUnknown = 0, kFloat = 1, kInt = 2, kString = 3, kTensor = 4, kGraph = 5, kFloats = 6, kInts = 7,
              kStrings = 8 };
  std::string name;
  int type = kUnknown;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<TensorData> tensor;  // 0 or 1 entry (TENSOR)
};

struct Node {
  std::string name, op_type, domain;
  std::vector<std::string> inputs, outputs;  // "" = an omitted optional input/output
  std::vector<Attribute> attributes;
  int opset = 0;  // the model's opset for the node's domain

  const Attribute* attr(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  float attr_float(const std::string& name, float fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& name, const std::vector<int64_t>& fallback = {}) const;
  std::vector<float> attr_floats(const std::string& name) const;
};

struct ValueInfo {
  std::string name;
  int dtype = kUndefined;
  std::vector<int64_t> dims;         // -1 for a symbolic or unknown dimension
  std::vector<std::string> dim_names;  // dim_param ("" when a number)
  bool has_shape = false;
};

struct Model {
  int64_t ir_version = 0;
  std::map<std::string, int64_t> opsets;  // domain ("" = ai.onnx) -> version
  std::string producer_name, producer_version, graph_name;
  std::vector<Node> nodes;
  std::vector<TensorData> initializers;
  std::vector<ValueInfo> inputs;   // graph inputs, initializers excluded
  std::vector<ValueInfo> outputs;
};

// Sizes checked before anything is allocated.
struct ReaderLimits {
  size_t max_bytes = size_t(256) << 20;         // the whole file
  int64_t max_tensor_elements = int64_t(1) << 28;  // one tensor
  int64_t max_total_elements = int64_t(1) << 28;   // all initializers together
  size_t max_nodes = 100000;
  size_t max_rank = 8;
  size_t max_name = 4096;
};

}  // namespace attnlab::onnx
