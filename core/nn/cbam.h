// CBAM (Woo et al. 2018) on NCHW feature maps x [C*H*W x N] (see conv2d.h); output y has x's shape.
//   channel attention (optional): a = mean_p x[c, p], m = max_p x[c, p] (per channel);
//     Mc = sigmoid( MLP(a) + MLP(m) ), MLP(v) = W2 relu(W1 v + b1) + b2, W1 [C/r x C], W2 [C x C/r]
//     (shared between the two descriptors, so b2 counts twice, as in the reference code);  x1 = x * Mc.
//   spatial attention (optional): s = [max_c x1 ; mean_c x1] (2 planes, max first, as the reference
//     ChannelPool); Ms = sigmoid( conv7x7(s) ) (padding 3, one output plane, with bias);  y = x1 * Ms.
// The cache keeps Mc [C x N] and Ms [H*W x N] (the spatial map the lab scores against object masks).
// Max ties route the gradient to the first maximum. Backward: grads (nullable) accumulate; dx is
// overwritten. Gradient-checked in double.
#pragma once
#include <vector>

#include "nn/conv2d.h"
#include "nn/linear.h"

namespace attnlab {

struct CbamSpec {
  int channels = 0;
  int reduction = 16;  // hidden = max(1, channels / reduction)
  bool channel = true, spatial = true;
  int kernel = 7;
  int hidden() const { return channels / reduction > 0 ? channels / reduction : 1; }
  Conv2dSpec spatial_conv() const { return {2, 1, kernel, 1, kernel / 2, true}; }
};

template <class T>
struct CbamParams {
  LinearParams<T> fc1;   // w [hidden x C], b [hidden x 1]   (channel only)
  LinearParams<T> fc2;   // w [C x hidden], b [C x 1]        (channel only)
  Conv2dParams<T> conv;  // w [2*k*k x 1], b [1 x 1]         (spatial only)
  void resize(const CbamSpec& s) {
    if (s.channel) {
      fc1 = {Mat<T>::Zero(s.hidden(), s.channels), Mat<T>::Zero(s.hidden(), 1)};
      fc2 = {Mat<T>::Zero(s.channels, s.hidden()), Mat<T>::Zero(s.channels, 1)};
    } else {
      fc1 = fc2 = {};
    }
    if (s.spatial) conv.resize(s.spatial_conv());
    else conv = {};
  }
};

template <class T>
struct CbamCache {
  // channel
  Mat<T> desc;            // [C x 2N]: columns 0..N-1 avg, N..2N-1 max
  std::vector<int> c_argmax;  // [C x N] position of the channel max
  Mat<T> hidden;          // [hidden x 2N] after ReLU
  Mat<T> mc;              // [C x N]
  Mat<T> x1;              // [C*H*W x N] x * Mc (or x)
  // spatial
  Mat<T> s;               // [2*H*W x N]
  std::vector<int> s_argmax;  // [H*W x N] channel of the max
  Mat<T> ms;              // [H*W x N]
};

template <class T>
void cbam_forward(const CbamSpec& spec, const CbamParams<T>& p, const FeatureShape& shape, const Mat<T>& x,
                  Mat<T>& y, CbamCache<T>& cache);

template <class T>
void cbam_backward(const CbamSpec& spec, const CbamParams<T>& p, const FeatureShape& shape, const Mat<T>& x,
                   const CbamCache<T>& cache, const Mat<T>& dy, CbamParams<T>* grads, Mat<T>& dx);

}  // namespace attnlab
