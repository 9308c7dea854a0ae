// LayerNorm over the feature dimension of each column (Ba et al. 2016; PyTorch's form, eps = 1e-5):
//   y = gamma ⊙ (x - mean) / sqrt(var + eps) + beta,   mean / var (biased, 1/d) over the d rows of a column.
// x, y: [d x N]; gamma, beta: [d x 1].
#pragma once
#include "nn/tensor.h"

namespace attnlab {

template <class T>
struct LayerNormParams {
  Mat<T> gamma;  // [d x 1]
  Mat<T> beta;   // [d x 1]
};

template <class T>
struct LayerNormCache {
  Mat<T> xhat;  // [d x N] normalised input
  Vec<T> rstd;  // [N] 1 / sqrt(var + eps)
};

constexpr double kLayerNormEps = 1e-5;

// y [d x N] is written.
template <class T>
void layer_norm_forward(const LayerNormParams<T>& p, const Mat<T>& x, Mat<T>& y, LayerNormCache<T>& cache);

// d_y [d x N]. Accumulates d gamma, d beta into grads (nullable); writes d_x [d x N] (nullable).
// hold_scale: the propagation rules' form (AttnLRP / CP-LRP: the normalising 1 / sqrt(var + eps) held constant, so
// the layer is linear in x): d_x = rstd ⊙ (g - mean(g)), g = d_y ⊙ gamma.
template <class T>
void layer_norm_backward(const LayerNormParams<T>& p, const LayerNormCache<T>& cache, const Mat<T>& d_y,
                         LayerNormParams<T>* grads, Mat<T>* d_x, bool hold_scale = false);

}  // namespace attnlab
