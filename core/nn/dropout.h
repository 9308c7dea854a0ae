// Inverted dropout (training only): keep each entry with probability 1 - rate and scale it by 1 / (1 - rate).
// The mask is drawn from the given Rng (seeded by the trainer), so a training run is reproducible. rate 0
// gives an empty mask (identity). x, mask, y: same shape.
#pragma once
#include "nn/rng.h"
#include "nn/tensor.h"

namespace attnlab {

// Fills mask (entries 0 or 1/(1-rate)) and applies it to x in place. rate <= 0: mask cleared, x unchanged.
template <class T>
void dropout_forward(Mat<T>& x, double rate, Rng& rng, Mat<T>& mask) {
  if (rate <= 0) {
    mask.resize(0, 0);
    return;
  }
  mask.resize(x.rows(), x.cols());
  const T scale = T(1.0 / (1.0 - rate));
  for (Eigen::Index i = 0; i < mask.size(); ++i) mask.data()[i] = rng.uniform() < rate ? T(0) : scale;
  x.array() *= mask.array();
}

// d in place: d ⊙ mask (no-op for an empty mask).
template <class T>
void dropout_backward(const Mat<T>& mask, Mat<T>& d) {
  if (mask.size()) d.array() *= mask.array();
}

}  // namespace attnlab
