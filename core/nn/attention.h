// Attention over the encoder states of a padded batch, then the weighted context (Jain & Wallace 2019):
//   tanh (additive): e_t = v . tanh(W1 h_t + b1)        W1 [H x 2H], b1 [H x 1], v [1 x H]
//   dot:             e_t = v . h_t / sqrt(2H)           v [1 x 2H]
//   uniform:         alpha_t = 1/len (no parameters, frozen)
// alpha = softmax of e over the real steps of each sequence, exactly 0 on padding;
// context_b = sum_t alpha_tb h_tb.
#pragma once
#include <string>
#include <vector>

#include "nn/tensor.h"

namespace attnlab {

enum class AttentionKind { Tanh, Dot, Uniform };
const char* attention_name(AttentionKind kind);
bool parse_attention(const std::string& name, AttentionKind* kind);

template <class T>
struct AttentionParams {
  Mat<T> w1;  // [H x 2H]  (tanh only)
  Mat<T> b1;  // [H x 1]   (tanh only)
  Mat<T> v;   // [1 x H] (tanh) or [1 x 2H] (dot); empty for uniform
};

template <class T>
struct AttentionCache {
  Mat<T> act;    // [H x T*B] tanh(W1 h + b1)  (tanh only)
  Mat<T> alpha;  // [T x B]
  Mat<T> context;  // [2H x B]
  bool imposed = false;  // alpha came from alpha_override: no score path to differentiate
};

// h: [2H x T*B]. If alpha_override is given ([T x B], zero on padding) it replaces the computed weights
// (used by experiments that impose attention); scores are then not computed.
template <class T>
void attention_forward(AttentionKind kind, const AttentionParams<T>& p, const Mat<T>& h,
                       const std::vector<int>& lengths, int steps, AttentionCache<T>& cache,
                       const Mat<T>* alpha_override = nullptr);

// d_context: [2H x B]. Accumulates d_h [2H x T*B] (must be sized) and grads (nullable). With
// detach_alpha the weights are treated as constants (no gradient through the scores). d_alpha
// ([T x B], nullable) receives dL/dalpha. d_alpha_extra ([T x B], nullable) is a gradient on alpha from a
// loss term on the attention itself (e.g. a KL to other weights); it is added before the softmax backward.
template <class T>
void attention_backward(AttentionKind kind, const AttentionParams<T>& p, const Mat<T>& h,
                        const std::vector<int>& lengths, int steps, const AttentionCache<T>& cache,
                        const Mat<T>& d_context, bool detach_alpha, Mat<T>& d_h, AttentionParams<T>* grads,
                        Mat<T>* d_alpha, const Mat<T>* d_alpha_extra = nullptr);

}  // namespace attnlab
