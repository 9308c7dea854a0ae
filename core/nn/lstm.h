// One-direction LSTM over a padded batch, forward and backward (backpropagation through time).
// Gate order i, f, g, o (PyTorch). Sequences are left-aligned: steps t >= length[b] are padding; their
// outputs are computed but never influence real steps, and the caller must give them zero gradient.
#pragma once
#include "nn/tensor.h"

namespace attnlab {

template <class T>
struct LstmParams {
  Mat<T> w_ih;  // [4H x E]
  Mat<T> w_hh;  // [4H x H]
  Mat<T> bias;  // [4H x 1]  (b_ih + b_hh)
  int hidden() const { return static_cast<int>(w_hh.cols()); }
  void resize(int input, int hidden);  // zero-filled
};

template <class T>
struct LstmCache {
  int B = 0, steps = 0;
  Mat<T> gates;  // [4H x T*B] activations: sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)
  Mat<T> cell;   // [H x T*B]
  Mat<T> out;    // [H x T*B] hidden states h_t
};

// x: [E x T*B]. Fills cache (cache.out are the outputs).
template <class T>
void lstm_forward(const LstmParams<T>& p, const Mat<T>& x, int B, int steps, LstmCache<T>& cache);

// d_out: [H x T*B] gradient w.r.t. cache.out. Accumulates into grads (if not null) and writes
// d_x [E x T*B] (if not null).
template <class T>
void lstm_backward(const LstmParams<T>& p, const Mat<T>& x, const LstmCache<T>& cache, const Mat<T>& d_out,
                   LstmParams<T>* grads, Mat<T>* d_x);

}  // namespace attnlab
