// A model's bytes with more graph outputs: the same ModelProto, its GraphProto's `output` list (field 12) extended
// by a FLOAT ValueInfoProto for each named value (no shape), every other byte as it was. For ONNX Runtime Web, which
// returns only a graph's outputs: the attention distributions that onnx/attention_finder.h finds in a model the core
// cannot run are made outputs, so "Your model" still maps a vision transformer's attention (web/runtime/labs/
// own-model.js). The input is read with the bounds-checked wire reader: a malformed file is an error, not a crash;
// a model without a graph, or a name already an output, is refused.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::onnx {

bool add_graph_outputs(const uint8_t* bytes, size_t size, const std::vector<std::string>& names,
                       std::vector<uint8_t>* out, std::string* error);

// The model with every attention distribution that find_attention locates made a graph output (*names: those
// values, in layer order, declared outputs among them too; none to add: *out the bytes unchanged). False with *error for a file the
// reader refuses.
bool expose_attention(const uint8_t* bytes, size_t size, std::vector<uint8_t>* out, std::vector<std::string>* names,
                      std::string* error);

}  // namespace attnlab::onnx
