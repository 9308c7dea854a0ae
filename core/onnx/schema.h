// Every node checked against its operator's schema at load, as the ONNX checker does, before anything runs:
// the number of inputs and outputs (ONNX's min / max arity of the operators the executor implements), no
// attribute given twice, and the type of each attribute the executor reads (axis is an INT, perm INTS, alpha a
// FLOAT, mode a STRING, …), with NaN / ±Inf refused in float attributes. Ranges that depend on the input's
// rank (axes, perms, split sizes) are checked by the operator itself before it computes.
#pragma once
#include <string>

#include "onnx/model.h"

namespace attnlab::onnx {

// "" when the node conforms, else a message naming what is wrong (the caller adds the node's name).
std::string check_node_schema(const Node& n);

}  // namespace attnlab::onnx
