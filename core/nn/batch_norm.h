// Batch normalisation over N, H, W per channel (PyTorch BatchNorm2d). x, y [C*H*W x N] (NCHW, see conv2d.h).
//   training: mean / biased variance of the batch; running_mean/var updated in place with momentum
//             (running = (1 - m) running + m batch, the variance unbiased, as PyTorch);
//   eval:     the running statistics.
//   y = gamma * (x - mean) / sqrt(var + eps) + beta.
// Backward: the full batch-statistics gradient in training mode, the affine one in eval mode. grads
// (nullable) accumulate d_gamma, d_beta; dx (nullable) is overwritten. Gradient-checked in double.
#pragma once
#include "nn/conv2d.h"

namespace attnlab {

template <class T>
struct BatchNormParams {
  Mat<T> gamma, beta;                 // [C x 1], trained
  Mat<T> running_mean, running_var;   // [C x 1], buffers (not trained)
  void resize(int c) {
    gamma = Mat<T>::Ones(c, 1);
    beta = Mat<T>::Zero(c, 1);
    running_mean = Mat<T>::Zero(c, 1);
    running_var = Mat<T>::Ones(c, 1);
  }
};

template <class T>
struct BatchNormCache {
  Mat<T> xhat;     // [C*H*W x N]
  Mat<T> inv_std;  // [C x 1]
  bool training = true;
};

struct BatchNormOptions {
  double eps = 1e-5, momentum = 0.1;
};

// In training, the running statistics of *running (nullable; usually &p) are updated.
template <class T>
void batch_norm_forward(const BatchNormParams<T>& p, const FeatureShape& shape, const Mat<T>& x, bool training,
                        Mat<T>& y, BatchNormCache<T>& cache, BatchNormParams<T>* running,
                        const BatchNormOptions& o = {});

template <class T>
void batch_norm_backward(const BatchNormParams<T>& p, const FeatureShape& shape, const BatchNormCache<T>& cache,
                         const Mat<T>& dy, BatchNormParams<T>* grads, Mat<T>* dx);

}  // namespace attnlab
