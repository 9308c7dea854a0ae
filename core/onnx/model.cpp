// Small helpers of the ONNX model structures (names of data types, attribute look-up).
#include "onnx/model.h"

namespace attnlab::onnx {

const char* data_type_name(int dtype) {
  switch (dtype) {
    case kFloat: return "FLOAT"; case kUInt8: return "UINT8"; case kInt8: return "INT8";
    case kUInt16: return "UINT16"; case kInt16: return "INT16"; case kInt32: return "INT32";
    case kInt64: return "INT64"; case kString: return "STRING"; case kBool: return "BOOL";
    case kFloat16: return "FLOAT16"; case kDouble: return "DOUBLE"; case kUInt32: return "UINT32";
    case kUInt64: return "UINT64"; case kComplex64: return "COMPLEX64"; case kComplex128: return "COMPLEX128";
    case kBFloat16: return "BFLOAT16"; case kUndefined: return "UNDEFINED";
    default: return "unknown";
  }
}
bool is_float_type(int dt) { return dt == kFloat || dt == kFloat16 || dt == kBFloat16 || dt == kDouble; }
bool is_integer_type(int dt) {
  return dt == kUInt8 || dt == kInt8 || dt == kUInt16 || dt == kInt16 || dt == kInt32 || dt == kInt64 || dt == kBool ||
         dt == kUInt32 || dt == kUInt64;
}

int64_t TensorData::numel() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}
size_t TensorData::stored() const {
  if (dtype == kDouble) return d.size();
  if (is_float_type(dtype)) return f.size();
  return bytes.empty() ? i.size() : bytes.size();
}
int64_t TensorData::int_at(size_t k) const {
  if (bytes.empty()) return i[k];
  return dtype == kInt8 ? static_cast<int8_t>(bytes[k]) : bytes[k];
}

const Attribute* Node::attr(const std::string& n) const {
  for (const auto& a : attributes)
    if (a.name == n) return &a;
  return nullptr;
}
int64_t Node::attr_int(const std::string& n, int64_t fallback) const {
  const Attribute* a = attr(n);
  return a ? a->i : fallback;
}
float Node::attr_float(const std::string& n, float fallback) const {
  const Attribute* a = attr(n);
  return a ? a->f : fallback;
}
std::string Node::attr_string(const std::string& n, const std::string& fallback) const {
  const Attribute* a = attr(n);
  return a ? a->s : fallback;
}
std::vector<int64_t> Node::attr_ints(const std::string& n, const std::vector<int64_t>& fallback) const {
  const Attribute* a = attr(n);
  return a ? a->ints : fallback;
}
std::vector<float> Node::attr_floats(const std::string& n) const {
  const Attribute* a = attr(n);
  return a ? a->floats : std::vector<float>{};
}

}  // namespace attnlab::onnx
