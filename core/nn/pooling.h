// ReLU and local spatial pooling on NCHW feature maps held as Mat [C*H*W x N] (see conv2d.h).
//   relu:     y = max(x, 0); backward dx = dy where y > 0.
//   max pool: k x k window, stride s, no padding: Ho = (H - k) / s + 1; backward routes dy to the first
//             maximum of each window (row-major order).
//   avg pool: same windows, mean; backward spreads dy / k^2.
// Outputs are resized and overwritten; dx is overwritten. Gradient-checked in double.
#pragma once
#include <vector>

#include "nn/conv2d.h"

namespace attnlab {

template <class T>
void relu_forward(const Mat<T>& x, Mat<T>& y);
template <class T>
void relu_backward(const Mat<T>& y, const Mat<T>& dy, Mat<T>& dx);

struct PoolSpec {
  int k = 2, stride = 2;
};
// c = 0 when the window does not fit.
FeatureShape pool_output_shape(const PoolSpec& s, const FeatureShape& in);

// argmax [C*Ho*Wo x N]: the input row (index within the image) chosen for each output.
template <class T>
void max_pool_forward(const PoolSpec& s, const FeatureShape& in, const Mat<T>& x, Mat<T>& y,
                      std::vector<int>& argmax);
template <class T>
void max_pool_backward(const PoolSpec& s, const FeatureShape& in, const std::vector<int>& argmax, const Mat<T>& dy,
                       Mat<T>& dx);

template <class T>
void avg_pool_forward(const PoolSpec& s, const FeatureShape& in, const Mat<T>& x, Mat<T>& y);
template <class T>
void avg_pool_backward(const PoolSpec& s, const FeatureShape& in, const Mat<T>& dy, Mat<T>& dx);

}  // namespace attnlab
