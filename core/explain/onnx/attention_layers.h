// The attention distributions that onnx/attention_finder.h located in a graph, read from an executor after a
// forward pass (and their gradients d y / d A after a backward one), as [layer][head] n × n matrices (row = query,
// column = key) — what every attention method reads, for a user's text transformer (onnx_text/onnx_text_model.h)
// and for an image transformer in "Your model" (vit_maps.h) alike.
#pragma once
#include <string>
#include <vector>

#include "explain/importance.h"  // Mat
#include "onnx/attention_finder.h"
#include "onnx/executor.h"

namespace attnlab {

// with_gradients (and dA not null): also read the gradients (zero where the backward pass did not reach a
// distribution; dA, where given, is left empty otherwise). False, with a message naming the Softmax, when a distribution is not a square
// [heads, positions, positions] map (batch 1).
bool read_attention_layers(const onnx::Executor<float>& ex, const std::vector<onnx::FoundAttention>& found,
                           bool with_gradients, std::vector<std::vector<Mat<double>>>* A,
                           std::vector<std::vector<Mat<double>>>* dA, std::string* error);

// One distribution computed elsewhere (ONNX Runtime Web's outputs of a model the core cannot run): its name, shape
// and values, read as read_attention_layers reads the executor's.
struct AttentionValues {
  std::string name;
  onnx::Shape shape;
  std::vector<float> data;
};
bool attention_layers_of(const std::vector<AttentionValues>& values, std::vector<std::vector<Mat<double>>>* A,
                         std::string* error);

}  // namespace attnlab
