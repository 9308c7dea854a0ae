// Bidirectional LSTM over a padded batch with per-sequence lengths. The backward direction reads each
// sequence reversed within its own length (padding stays at the end), as packed sequences do, so padding
// never leaks into real steps in either direction. Output: [2H x T*B], forward states on top.
#pragma once
#include <vector>

#include "nn/lstm.h"

namespace attnlab {

template <class T>
struct BiLstmParams {
  LstmParams<T> fwd, bwd;
  int hidden() const { return fwd.hidden(); }
};

template <class T>
struct BiLstmCache {
  std::vector<Eigen::Index> reverse;  // column permutation (an involution) for the backward direction
  Mat<T> x_rev;                       // [E x T*B]
  LstmCache<T> fwd, bwd;
  Mat<T> out;  // [2H x T*B]
};

// Column permutation that reverses each sequence within its length.
std::vector<Eigen::Index> reverse_within_lengths(const std::vector<int>& lengths, int steps);

// orthogonal: both directions are Orthogonal LSTMs (nn/lstm.h); the backward reads it from the cache.
template <class T>
void bilstm_forward(const BiLstmParams<T>& p, const Mat<T>& x, const std::vector<int>& lengths, int steps,
                    BiLstmCache<T>& cache, bool orthogonal = false);

// d_out: [2H x T*B], zero at padded columns. Accumulates into grads (nullable), writes d_x (nullable).
template <class T>
void bilstm_backward(const BiLstmParams<T>& p, const Mat<T>& x, const BiLstmCache<T>& cache,
                     const Mat<T>& d_out, BiLstmParams<T>* grads, Mat<T>* d_x);

}  // namespace attnlab
