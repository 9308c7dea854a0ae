// ONNX model reader: protobuf bytes → Model, or a message saying what is wrong. One entry point per
// message kind, each taking (bytes, size), so the reader is fuzzable (tests/fuzz/onnx_reader_fuzz.cpp).
//
// A reader of our own rather than libprotobuf: the wasm core is built with Debian's emscripten without
// exception catching and without a protobuf port, and generated protobuf code would add ~1 MB and its own
// allocation behaviour for a handful of messages. The wire format is small (core/onnx/protobuf_wire.h).
//
// Refused with a message: more than limits.max_bytes, truncated or malformed protobuf, external_data /
// data_location = EXTERNAL (path traversal in other runtimes), dims ≤ 0 in tensors (empty tensors are
// allowed only where an op takes them, i.e. a dim of 0 is refused in initializers too), element counts that
// overflow or pass the limits, data that does not match the dims, unknown or unsupported dtypes (STRING,
// COMPLEX), sparse initializers, subgraphs (GRAPH attributes), more than limits.max_nodes nodes.
// Graph structure (cycles, undefined inputs, duplicate outputs) is checked by validate_graph (graph.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "onnx/model.h"

namespace attnlab::onnx {

// Parses a ModelProto. Returns true and fills *out, or false with *error set (out is then unspecified).
bool read_model(const uint8_t* bytes, size_t size, Model* out, std::string* error,
                const ReaderLimits& limits = ReaderLimits());

// Parses one TensorProto (the .pb files of the ONNX backend tests). Same checks as initializers, except
// that a dim of 0 (an empty tensor) is allowed.
bool read_tensor(const uint8_t* bytes, size_t size, TensorData* out, std::string* error,
                 const ReaderLimits& limits = ReaderLimits());

}  // namespace attnlab::onnx
