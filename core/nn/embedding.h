// Embedding lookup. table: [E x V] (column per word; the safetensors [V, E] row-major layout as is).
// ids: T*B entries in column order (t*B + b); out: [E x T*B].
#pragma once
#include <vector>

#include "nn/tensor.h"

namespace attnlab {

template <class T>
void embedding_forward(const Mat<T>& table, const std::vector<int>& ids, Mat<T>& out) {
  out.resize(table.rows(), static_cast<Eigen::Index>(ids.size()));
  for (size_t k = 0; k < ids.size(); ++k) out.col(static_cast<Eigen::Index>(k)) = table.col(ids[k]);
}

// Scatter-adds d_out columns into d_table columns.
template <class T>
void embedding_backward(const std::vector<int>& ids, const Mat<T>& d_out, Mat<T>& d_table) {
  for (size_t k = 0; k < ids.size(); ++k) d_table.col(ids[k]) += d_out.col(static_cast<Eigen::Index>(k));
}

}  // namespace attnlab
