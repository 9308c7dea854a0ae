// GRU over a padded batch, forward and backward, one direction and bidirectional (masked). PyTorch's
// formulation and gate order r, z, n (torch.nn.GRU):
//   r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
//   z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
//   n = tanh(W_in x + b_in + r * (W_hn h + b_hn))      (b_hn inside the reset product)
//   h' = (1 - z) * n + z * h,   h_0 = 0
// Sequences are left-aligned in the [. x T*B] layout of nn/tensor.h (column t*B + b); steps t >= length[b]
// are padding: their outputs are set to exactly 0 and gradients arriving there are ignored (masked), so
// padding never influences real steps. The bidirectional layer reads each sequence reversed within its own
// length (as packed sequences do) and stacks [forward; backward] states: output [2H x T*B].
#pragma once
#include <vector>

#include "nn/tensor.h"

namespace attnlab {

template <class T>
struct GruParams {
  Mat<T> w_ih;  // [3H x E]  rows r, z, n
  Mat<T> w_hh;  // [3H x H]
  Mat<T> b_ih;  // [3H x 1]
  Mat<T> b_hh;  // [3H x 1]
  int hidden() const { return static_cast<int>(w_hh.cols()); }
  void resize(int input, int hidden);  // zero-filled
  std::vector<Mat<T>*> list() { return {&w_ih, &w_hh, &b_ih, &b_hh}; }
};

template <class T>
struct GruCache {
  int B = 0, steps = 0;
  std::vector<int> lengths;
  Mat<T> gates;  // [3H x T*B] activations r, z, n
  Mat<T> hn;     // [H x T*B] W_hn h_prev + b_hn (inside the reset product)
  Mat<T> out;    // [H x T*B] h_t (0 on padding)
};

// x: [E x T*B], lengths[b] in [0, steps].
template <class T>
void gru_forward(const GruParams<T>& p, const Mat<T>& x, const std::vector<int>& lengths, int steps,
                 GruCache<T>& cache);

// d_out: [H x T*B] (entries on padding are ignored). Accumulates into grads (nullable); writes d_x
// [E x T*B] (nullable; 0 on padding).
template <class T>
void gru_backward(const GruParams<T>& p, const Mat<T>& x, const GruCache<T>& cache, const Mat<T>& d_out,
                  GruParams<T>* grads, Mat<T>* d_x);

template <class T>
struct BiGruParams {
  GruParams<T> fwd, bwd;
  int hidden() const { return fwd.hidden(); }
  std::vector<Mat<T>*> list() {
    std::vector<Mat<T>*> a = fwd.list(), b = bwd.list();
    a.insert(a.end(), b.begin(), b.end());
    return a;
  }
};

template <class T>
struct BiGruCache {
  std::vector<Eigen::Index> reverse;  // column permutation for the backward direction (an involution)
  Mat<T> x_rev;                       // [E x T*B]
  GruCache<T> fwd, bwd;
  Mat<T> out;  // [2H x T*B], 0 on padding
};

template <class T>
void bigru_forward(const BiGruParams<T>& p, const Mat<T>& x, const std::vector<int>& lengths, int steps,
                   BiGruCache<T>& cache);

// d_out: [2H x T*B]. Accumulates into grads (nullable), writes d_x (nullable).
template <class T>
void bigru_backward(const BiGruParams<T>& p, const Mat<T>& x, const BiGruCache<T>& cache, const Mat<T>& d_out,
                    BiGruParams<T>* grads, Mat<T>* d_x);

}  // namespace attnlab
