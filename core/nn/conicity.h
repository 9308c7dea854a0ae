// Conicity (Chandrahas et al. 2018; Mohankumar et al. 2020): how much a sequence's hidden states point the same
// way. For the states h_1..h_T of one sequence, with m their mean,
//   conicity = (1/T) sum_t |cos(h_t, m)|,  cos(a, b) = a.b / max(|a| |b|, 1e-6),
// in [0, 1]; near 1 when the states are nearly parallel. The absolute value and the eps follow the reference
// code (Interpretable-Attention, Binary_Classification.py _conicity); the paper's ATM is the cosine itself.
// Forward and backward over a padded batch [D x T*B] (column t*B + b, real when t < lengths[b]).
#pragma once
#include <vector>

#include "nn/tensor.h"

namespace attnlab {

// One conicity per sequence (0 for an empty one).
template <class T>
std::vector<T> conicity_forward(const Mat<T>& h, const std::vector<int>& lengths);

// Adds scale[b] * d conicity_b / d h into d_h [D x T*B] (padded columns untouched).
template <class T>
void conicity_backward(const Mat<T>& h, const std::vector<int>& lengths, const std::vector<T>& scale, Mat<T>& d_h);

}  // namespace attnlab
