// Node schema checks (see schema.h). Arity from the ONNX operator specs (opsets 1–21).
#include "onnx/schema.h"

#include <cmath>
#include <map>
#include <set>

namespace attnlab::onnx {
namespace {

struct Arity {
  int min_in, max_in, min_out, max_out;
};
constexpr int kMany = 1 << 30;

const std::map<std::string, Arity>& arities() {
  static const std::map<std::string, Arity> a = {
      {"Relu", {1, 1, 1, 1}},      {"LeakyRelu", {1, 1, 1, 1}}, {"Sigmoid", {1, 1, 1, 1}},
      {"HardSigmoid", {1, 1, 1, 1}}, {"HardSwish", {1, 1, 1, 1}}, {"Tanh", {1, 1, 1, 1}},
      {"Erf", {1, 1, 1, 1}},       {"Sqrt", {1, 1, 1, 1}},      {"Exp", {1, 1, 1, 1}},
      {"Neg", {1, 1, 1, 1}},       {"Abs", {1, 1, 1, 1}},       {"Identity", {1, 1, 1, 1}},
      {"Sin", {1, 1, 1, 1}},       {"Cos", {1, 1, 1, 1}},       {"Log", {1, 1, 1, 1}},
      {"Reciprocal", {1, 1, 1, 1}}, {"Softplus", {1, 1, 1, 1}}, {"Gelu", {1, 1, 1, 1}},
      {"Dropout", {1, 3, 1, 2}},   {"Clip", {1, 3, 1, 1}},
      {"Add", {2, 2, 1, 1}},       {"Sub", {2, 2, 1, 1}},       {"Mul", {2, 2, 1, 1}},
      {"Div", {2, 2, 1, 1}},       {"Pow", {2, 2, 1, 1}},       {"Equal", {2, 2, 1, 1}},
      {"Where", {3, 3, 1, 1}},     {"Conv", {2, 3, 1, 1}},      {"Gemm", {2, 3, 1, 1}},
      {"MatMul", {2, 2, 1, 1}},    {"Transpose", {1, 1, 1, 1}}, {"Slice", {1, 5, 1, 1}},
      {"Gather", {2, 2, 1, 1}},    {"Pad", {1, 4, 1, 1}},       {"Concat", {1, kMany, 1, 1}},
      {"Split", {1, 2, 1, kMany}}, {"MaxPool", {1, 1, 1, 2}},   {"AveragePool", {1, 1, 1, 1}},
      {"GlobalAveragePool", {1, 1, 1, 1}}, {"GlobalMaxPool", {1, 1, 1, 1}},
      {"BatchNormalization", {5, 5, 1, 5}}, {"DequantizeLinear", {2, 3, 1, 1}},
      {"ReduceMean", {1, 2, 1, 1}}, {"ReduceSum", {1, 2, 1, 1}}, {"Reshape", {1, 2, 1, 1}},
      {"Flatten", {1, 1, 1, 1}},   {"Squeeze", {1, 2, 1, 1}},   {"Unsqueeze", {1, 2, 1, 1}},
      {"Expand", {2, 2, 1, 1}},    {"Shape", {1, 1, 1, 1}},     {"ConstantOfShape", {1, 1, 1, 1}},
      {"Constant", {0, 0, 1, 1}},  {"Cast", {1, 1, 1, 1}},      {"Softmax", {1, 1, 1, 1}},
      {"LogSoftmax", {1, 1, 1, 1}}, {"LayerNormalization", {2, 3, 1, 3}},
      {"Range", {3, 3, 1, 1}},     {"CumSum", {2, 2, 1, 1}},    {"Trilu", {1, 2, 1, 1}},
      {"Tile", {2, 2, 1, 1}},      {"Less", {2, 2, 1, 1}},      {"Greater", {2, 2, 1, 1}},
      {"LessOrEqual", {2, 2, 1, 1}}, {"GreaterOrEqual", {2, 2, 1, 1}}, {"And", {2, 2, 1, 1}},
      {"Or", {2, 2, 1, 1}},        {"Xor", {2, 2, 1, 1}},       {"Not", {1, 1, 1, 1}},
      {"Min", {1, kMany, 1, 1}},   {"Max", {1, kMany, 1, 1}},
  };
  return a;
}

// The attribute types the executor reads, by attribute name (the same name has one type in every operator
// implemented here).
const std::map<std::string, int>& attribute_types() {
  using A = Attribute;
  static const std::map<std::string, int> t = {
      {"axis", A::kInt},       {"keepdims", A::kInt},   {"group", A::kInt},      {"transA", A::kInt},
      {"transB", A::kInt},     {"broadcast", A::kInt},  {"allowzero", A::kInt},  {"num_outputs", A::kInt},
      {"to", A::kInt},         {"ceil_mode", A::kInt},  {"count_include_pad", A::kInt},
      {"storage_order", A::kInt}, {"start", A::kInt},   {"end", A::kInt},        {"noop_with_empty_axes", A::kInt},
      {"value_int", A::kInt},  {"training_mode", A::kInt}, {"is_test", A::kInt},  {"spatial", A::kInt},
      {"stash_type", A::kInt}, {"exclusive", A::kInt}, {"reverse", A::kInt}, {"upper", A::kInt},
      {"saturate", A::kInt},   {"block_size", A::kInt},
      {"perm", A::kInts},      {"pads", A::kInts},      {"strides", A::kInts},   {"dilations", A::kInts},
      {"kernel_shape", A::kInts}, {"split", A::kInts},  {"shape", A::kInts},     {"starts", A::kInts},
      {"ends", A::kInts},      {"value_ints", A::kInts}, {"axes", A::kInts},
      {"alpha", A::kFloat},    {"beta", A::kFloat},     {"epsilon", A::kFloat},  {"min", A::kFloat},
      {"max", A::kFloat},      {"value_float", A::kFloat}, {"momentum", A::kFloat}, {"ratio", A::kFloat},
      {"value_floats", A::kFloats},
      {"mode", A::kString},    {"auto_pad", A::kString}, {"approximate", A::kString},
      {"value", A::kTensor},
  };
  return t;
}

const char* attribute_type_name(int t) {
  switch (t) {
    case Attribute::kFloat: return "FLOAT";
    case Attribute::kInt: return "INT";
    case Attribute::kString: return "STRING";
    case Attribute::kTensor: return "TENSOR";
    case Attribute::kGraph: return "GRAPH";
    case Attribute::kFloats: return "FLOATS";
    case Attribute::kInts: return "INTS";
    case Attribute::kStrings: return "STRINGS";
    default: return "an unknown type";
  }
}

}  // namespace

std::string check_node_schema(const Node& n) {
  auto it = arities().find(n.op_type);
  if (it != arities().end()) {
    const Arity& a = it->second;
    const int ni = static_cast<int>(n.inputs.size()), no = static_cast<int>(n.outputs.size());
    if (ni < a.min_in || ni > a.max_in)
      return "has " + std::to_string(ni) + " inputs; " + n.op_type + " takes " + std::to_string(a.min_in) +
             (a.max_in == a.min_in ? "" : a.max_in == kMany ? " or more" : " to " + std::to_string(a.max_in));
    if (no < a.min_out || no > a.max_out)
      return "has " + std::to_string(no) + " outputs; " + n.op_type + " gives " + std::to_string(a.min_out) +
             (a.max_out == a.min_out ? "" : a.max_out == kMany ? " or more" : " to " + std::to_string(a.max_out));
    bool any_output = false;
    for (const auto& o : n.outputs) any_output = any_output || !o.empty();
    if (!any_output) return "names none of its outputs";
  }
  std::set<std::string> seen;
  for (const Attribute& at : n.attributes) {
    if (!seen.insert(at.name).second) return "attribute '" + at.name + "' is given twice";
    auto t = attribute_types().find(at.name);
    const bool pad_value = n.op_type == "Pad" && at.name == "value";  // Pad before opset 11: a FLOAT
    if (pad_value && at.type != Attribute::kFloat) return "attribute 'value' must be FLOAT";
    if (!pad_value && t != attribute_types().end() && at.type != t->second)
      return "attribute '" + at.name + "' must be " + attribute_type_name(t->second) + ", got " + attribute_type_name(at.type);
    if (at.type == Attribute::kFloat && !std::isfinite(at.f)) return "attribute '" + at.name + "' is not a finite number";
    if (at.type == Attribute::kFloats)
      for (float f : at.floats)
        if (!std::isfinite(f)) return "attribute '" + at.name + "' holds a value that is not a finite number";
  }
  return "";
}

}  // namespace attnlab::onnx
