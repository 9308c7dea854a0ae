// One-direction LSTM over a padded batch, forward and backward (backpropagation through time).
// Gate order i, f, g, o (PyTorch). Sequences are left-aligned: steps t >= length[b] are padding; their
// outputs are computed but never influence real steps, and the caller must give them zero gradient.
// orthogonal: Mohankumar et al. 2020's Orthogonal LSTM — each step's output (which is also the state the next
// step reads) is the cell's h_t minus its projection on the mean of the earlier outputs,
//   m_t = (h_1 + ... + h_{t-1}) / t,  h_t <- h_t - (h_t . m_t) / (m_t . m_t + 1e-6) m_t,
// as the reference code does (akashkm99/Interpretable-Attention, ortholstm.py: the sum divided by t with
// steps counted from 1, eps 1e-6, the cell state untouched). Left-aligned padding comes after every real
// step, so it never enters a real step's mean.
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
  Mat<T> out;    // [H x T*B] hidden states h_t (orthogonal: after the projection)
  bool orthogonal = false;
  Mat<T> raw;    // orthogonal only: [H x T*B] the cell's h_t before the projection
  Mat<T> mean;   // orthogonal only: [H x T*B] m_t
};

// x: [E x T*B]. Fills cache (cache.out are the outputs).
template <class T>
void lstm_forward(const LstmParams<T>& p, const Mat<T>& x, int B, int steps, LstmCache<T>& cache,
                  bool orthogonal = false);

// d_out: [H x T*B] gradient w.r.t. cache.out. Accumulates into grads (if not null) and writes
// d_x [E x T*B] (if not null).
template <class T>
void lstm_backward(const LstmParams<T>& p, const Mat<T>& x, const LstmCache<T>& cache, const Mat<T>& d_out,
                   LstmParams<T>* grads, Mat<T>* d_x);

}  // namespace attnlab
