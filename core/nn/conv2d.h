// 2-D convolution (cross-correlation, as PyTorch's Conv2d) by im2col + one Eigen GEMM per image; the images run in parts
// of 4 on the core's threads, the weight gradient summed per part then in part order (no thread-count dependence).
// Feature maps are NCHW floats held in a column-major Mat [C*H*W x N]: column n is image n, planar CHW,
// so the buffer is exactly NCHW in memory. Shapes:
//   x [Cin*H*W x N] -> y [Cout*Ho*Wo x N], Ho = (H + 2 pad - k) / stride + 1 (same for W).
//   weight: Mat [Cin*k*k x Cout] whose memory is PyTorch's [Cout, Cin, k, k] row-major;
//   bias:   Mat [Cout x 1], or empty (no bias).
// Zero padding. Backward accumulates dW / db into grads (nullable) and overwrites dx (nullable).
// Gradient-checked in double (tests/core/test_cnn_layers.cpp). Instantiated for float and double.
#pragma once
#include <string>
#include <vector>

#include "nn/tensor.h"

namespace attnlab {

// The shape of one image's feature map (the batch is the Mat's columns).
struct FeatureShape {
  int c = 0, h = 0, w = 0;
  int hw() const { return h * w; }
  int size() const { return c * h * w; }
  bool operator==(const FeatureShape& o) const { return c == o.c && h == o.h && w == o.w; }
};

struct Conv2dSpec {
  int in_c = 0, out_c = 0, k = 3, stride = 1, pad = 1;
  bool bias = true;
};

// Output shape for an input shape; c = 0 when the configuration is invalid (kernel larger than the padded
// input, non-positive sizes).
FeatureShape conv2d_output_shape(const Conv2dSpec& spec, const FeatureShape& in);

template <class T>
struct Conv2dParams {
  Mat<T> w;  // [Cin*k*k x Cout]  (memory = PyTorch [Cout, Cin, k, k])
  Mat<T> b;  // [Cout x 1] or empty
  void resize(const Conv2dSpec& s) {
    w = Mat<T>::Zero(s.in_c * s.k * s.k, s.out_c);
    b = s.bias ? Mat<T>::Zero(s.out_c, 1) : Mat<T>();
  }
};

// Caffe-layout im2col of one image: col [Ho*Wo x Cin*k*k] column-major (= row-major [Cin*k*k, Ho*Wo]).
template <class T>
void im2col(const T* x, const FeatureShape& in, const Conv2dSpec& s, const FeatureShape& out, T* col);
// The adjoint: accumulates col back into dx [Cin*H*W].
template <class T>
void col2im(const T* col, const FeatureShape& in, const Conv2dSpec& s, const FeatureShape& out, T* dx);

// x [Cin*H*W x N] -> y [Cout*Ho*Wo x N] (resized).
template <class T>
void conv2d_forward(const Conv2dSpec& s, const Conv2dParams<T>& p, const FeatureShape& in, const Mat<T>& x,
                    Mat<T>& y);

// dy [Cout*Ho*Wo x N]; grads (nullable) accumulate dW, db; dx (nullable) is overwritten [Cin*H*W x N].
template <class T>
void conv2d_backward(const Conv2dSpec& s, const Conv2dParams<T>& p, const FeatureShape& in, const Mat<T>& x,
                     const Mat<T>& dy, Conv2dParams<T>* grads, Mat<T>* dx);

}  // namespace attnlab
