// Class-weighted losses on logits, summed over the batch (Jain & Wallace sum their batch loss).
//   binary (logits [1 x B]): w_y * BCEWithLogits(z, y), w_1 = pos_weight, w_0 = 1
//   multi-class (logits [C x B]): w_y * cross-entropy(softmax(z), y)
// Returns the loss and writes d_logits (same shape as logits).
#pragma once
#include <vector>

#include "nn/tensor.h"

namespace attnlab {

template <class T>
T weighted_bce_with_logits(const Mat<T>& logits, const std::vector<int>& labels, T pos_weight, Mat<T>& d_logits);

template <class T>
T weighted_cross_entropy(const Mat<T>& logits, const std::vector<int>& labels,
                         const std::vector<T>& class_weights, Mat<T>& d_logits);

// Column-wise softmax of logits [C x B].
template <class T>
Mat<T> softmax_columns(const Mat<T>& logits);

}  // namespace attnlab
