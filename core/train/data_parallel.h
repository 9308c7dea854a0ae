// Data-parallel training steps: a batch's examples split into parts that the batch alone decides (never the thread
// count), each part's loss and parameter gradients computed on the core's threads (parallel/parallel_for.h), then
// the parts' gradients summed in part order. The trained weights are therefore the same on any number of threads
// (tests/core/test_data_parallel_training.cpp); they differ from one whole-batch pass at float rounding only (the
// loss is a sum over the examples, so the parts' sum is the batch's gradient).
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

#include "nn/param_blocks.h"
#include "nn/tensor.h"

namespace attnlab {

// At most this many parts, each of at least kTrainPartExamples examples (a batch of 32: 4 parts of 8).
constexpr size_t kTrainParts = 4;
constexpr size_t kTrainPartExamples = 8;

// Parts for a batch of `examples`. requested > 0 asks for that many (capped by the examples); 0 is the rule above.
inline size_t train_parts(size_t examples, int requested) {
  if (examples == 0) return 1;
  if (requested > 0) return std::min(examples, static_cast<size_t>(requested));
  return std::clamp<size_t>(examples / kTrainPartExamples, 1, kTrainParts);
}

// dst = the parts' gradients summed in part order, matrix by matrix (the same parameter layout), on the core's
// threads by fixed blocks (nn/param_blocks.h). A matrix that is empty in the parts (the embedding's gradient, added
// token by token instead) is set to zero in dst.
template <class T>
void sum_part_gradients(const std::vector<Mat<T>*>& dst, const std::vector<std::vector<Mat<T>*>>& parts) {
  for_each_param_block(dst, [&](size_t i, Eigen::Index b, Eigen::Index n) {
    auto out = param_segment(*dst[i], b, n);
    if (parts.empty() || parts[0][i]->size() == 0) {
      out.setZero();
      return;
    }
    out = param_segment(*parts[0][i], b, n);
    for (size_t p = 1; p < parts.size(); ++p) out += param_segment(*parts[p][i], b, n);
  });
}

}  // namespace attnlab
