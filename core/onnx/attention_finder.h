// Attention found, not declared: the attention distributions of a transformer graph located by their shape in the
// graph, so nothing in the model has to expose them as outputs. An attention distribution is the output of a
// Softmax over its last axis (−1, or 2 / 3 as exporters write it) that reaches, through value-preserving nodes only (Cast, Dropout, Identity, Where
// as a branch), the first input of a MatMul — the product with the values, A·V. The scores feeding the Softmax
// must come from a MatMul too (Q·Kᵀ, through scaling, masking and reshapes), which leaves out a classifier's
// final Softmax. Layers are numbered in graph order (the topological order of the executor).
//   find_attention(m)             the static search (no forward pass needed).
//   attention_shape(ex, found)    after a forward pass: the distribution's shape read as [heads, queries, keys]
//                                 (batch 1; [B·H, Tq, Tk] and [Tq, Tk] layouts too), false when it is none of these.
#pragma once
#include <string>
#include <vector>

#include "onnx/executor.h"
#include "onnx/model.h"

namespace attnlab::onnx {

struct FoundAttention {
  std::string softmax_node;   // the Softmax node's name
  std::string probabilities;  // its output value: the distribution
  std::string values_matmul;  // the MatMul node that multiplies it with the values
  std::string values;         // that MatMul's second input (the values)
  int layer = 0;              // 0, 1, … in graph order
};

std::vector<FoundAttention> find_attention(const Model& m);

struct AttentionShape {
  int64_t heads = 1, queries = 0, keys = 0;
};
template <class T>
bool attention_shape(const Executor<T>& ex, const FoundAttention& a, AttentionShape* out);
// The same reading of a distribution's shape, however the values were computed (ONNX Runtime's outputs too).
bool attention_shape_of(const Shape& s, AttentionShape* out);

}  // namespace attnlab::onnx
