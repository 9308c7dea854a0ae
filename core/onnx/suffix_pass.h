// suffix_pass.h — a causal LM's pass on the last positions of a sequence whose first positions ran before: the
// key/value cache of a decoder, emulated on a graph exported without one (no past_key_values inputs). Leave-one-out's
// deletion i changes nothing before position i, so a batch of deletions i ≥ a needs positions [a, T − 1) alone with
// the keys and values of positions [0, a) from the run on the whole text (explain/onnx_text/onnx_text_model.h).
//
// How a graph runs on a suffix (Executor::forward with a SuffixPass): its token inputs hold the S positions
// [prefix, prefix + S) of a sequence of T' = prefix + S positions.
//   - The token inputs hold S positions; a key mask (attention_mask) may hold all T' (OnnxTextModel fills it so).
//   - A Shape of a graph input with S positions reads T' on axis 1: what the graph builds from the sequence's length alone (rotary
//     tables, position tables, a causal mask — the executor's shape-path values) is built for all T' positions.
//   - Where a shape-path value with a T'-long axis meets the token path in an element-wise node (the mask added to the
//     scores, the rotary tables multiplied with the queries), the axes aligned with S positions of the token path are
//     cut to their last S (the queries' positions); the axes aligned with T' (the keys) stay whole. A shape-path value
//     with a T'-long axis read by any other node fails the pass.
//   - Each `extend` value (the keys as the score product reads them, the values as the product with the attention
//     reads them), once its node ran, becomes prefix ‖ value along `axis`: the queries of the S positions see all T'.
// Nothing checks that the graph is causal or that its positions follow these rules (a graph computing its positions
// from the shape of a token-path value gets them wrong): the caller compares a suffix pass with a whole pass once per
// model (OnnxTextModel::suffix_check) and runs whole passes where they differ.
#pragma once
#include <string>
#include <vector>

#include "onnx/tensor.h"

namespace attnlab::onnx {

template <class T>
struct SuffixPass {
  int64_t prefix = 0;  // positions that ran before (> 0)
  struct Extend {
    std::string value;                // a runtime value of the graph
    int axis = -1;                    // its positions' axis, from the end (−1: the last)
    const Tensor<T>* head = nullptr;  // those positions' values: the same shape but `prefix` long on axis; batch 1
                                      // (shared by every sequence of the pass) or the pass's own
  };
  std::vector<Extend> extend;
};

// Element-wise operators with numpy broadcasting (where a shape-path input is cut to the token path's positions).
bool suffix_elementwise(const std::string& op_type);

// For a node of the token path: each shape-path input (is_shape[q]) with an axis of full = T' positions aligned with
// an axis of S = rows positions in the broadcast of the other inputs is cut to its last `rows` there (into *cut, which
// must not reallocate: reserved by the caller; in[q] then points into it). "" or a message.
template <class T>
std::string suffix_cut_inputs(const std::string& op_type, const std::vector<char>& is_shape,
                              std::vector<const Tensor<T>*>* in, int64_t rows, int64_t full, std::vector<Tensor<T>>* cut);

// head ‖ value along `axis` (from the end); head's batch (axis 0) may be 1 for a value's B. "" or a message.
template <class T>
std::string suffix_extend(const Tensor<T>& head, const Tensor<T>& value, int axis, Tensor<T>* out);

// t's first n entries along `axis` (from the end): a prefix's keys or values out of a whole run's.
template <class T>
Tensor<T> suffix_head(const Tensor<T>& t, int axis, int64_t n);

}  // namespace attnlab::onnx
