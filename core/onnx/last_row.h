// last_row.h — the runtime nodes of a graph that may run on the last position alone when only the last position of
// its [B, T, …] output is read (a causal LM's next token: leave-one-out's batches, the debate's edited sequences).
// A transformer's tail after its last attention — the output projection, the residual adds, the norms, the MLP, the
// LM head — treats each position on its own; run on the last one only, it skips most of the last layer's products and
// the LM head's on every other position (≈ 28 % of stories260K's products at 50 tokens).
//
// Contract:
//   last_row_nodes(executor, output) → one flag per executor.runtime_nodes() entry (for Executor::set_last_row_nodes):
//   1 for a node that is row-wise along axis 1 — element-wise (any inputs; a broadcast over positions shows as a
//   wrong output shape at run time and fails the pass), MatMul by a constant matrix, Softmax / LogSoftmax /
//   LayerNormalization / Reduce* (keepdims) over the last axis alone, Gelu, Erf, Sigmoid, Tanh, … — and whose every
//   output is `output` itself or is read only by such nodes (never another graph output). Empty when `output` is not a
//   graph output. The structure alone decides; the executor checks shapes as the pass runs (Executor::forward).
//   last_position(t): what the executor reads of a [B, T, D] input from outside the tail.
#pragma once
#include <string>
#include <vector>

#include "onnx/executor.h"

namespace attnlab::onnx {

template <class T>
std::vector<char> last_row_nodes(const Executor<T>& ex, const std::string& output);

// t [B, T, D] (float or integer) at its last position alone: [B, 1, D]. Rank 3 expected (the executor checks).
template <class T>
Tensor<T> last_position(const Tensor<T>& t);

}  // namespace attnlab::onnx
