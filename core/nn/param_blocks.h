// Element-wise optimiser updates on the core's threads: every parameter matrix cut into blocks of kParamBlock
// elements (a fixed size, so the cut never depends on the thread count), the blocks run by parallel_for. The
// update of an element reads only that element, so the result is the same as one pass over each matrix.
#pragma once
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "nn/tensor.h"
#include "parallel/parallel_for.h"

namespace attnlab {

constexpr Eigen::Index kParamBlock = 1 << 15;

// body(i, begin, count): update elements [begin, begin + count) of matrix i (column-major storage order).
template <class T, class Body>
void for_each_param_block(const std::vector<Mat<T>*>& params, const Body& body) {
  std::vector<std::pair<size_t, Eigen::Index>> blocks;  // (matrix, first element)
  for (size_t i = 0; i < params.size(); ++i)
    for (Eigen::Index b = 0; b < params[i]->size(); b += kParamBlock) blocks.emplace_back(i, b);
  parallel_for(blocks.size(), [&](size_t k) {
    const auto [i, b] = blocks[k];
    body(i, b, std::min(kParamBlock, params[i]->size() - b));
  });
}

// The elements [begin, begin + count) of m as a column array.
template <class T>
Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>> param_segment(Mat<T>& m, Eigen::Index begin, Eigen::Index count) {
  return Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>(m.data() + begin, count);
}

}  // namespace attnlab
