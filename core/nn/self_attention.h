// Multi-head scaled dot-product self-attention (Vaswani et al. 2017) over a padded batch of sequences.
//   Q = Wq x + bq, K = Wk x + bk, V = Wv x + bv                  W* [d x d], b* [d x 1]
//   head h (rows h·dk .. (h+1)·dk - 1 of Q, K, V, dk = d / H):
//     P_h[i, j] = softmax_j(q_i · k_j / sqrt(dk))  over the real keys j < n_b (key-padding mask: padded keys
//                 get probability exactly 0; the softmax subtracts the row maximum, so it never overflows)
//     ctx_h[:, i] = sum_j P_h[i, j] v_j
//   out = Wo concat_h(ctx_h) + bo
// Layout: x, out [d x B*S], column b*S + s = position s of sequence b (s = 0 is [CLS] in the transformer);
// n[b] real positions (1 <= n[b] <= S). Padded query rows of P are zero and their ctx is zero.
// uniform: every real row is 1/n[b] over the real keys (frozen, no scores; the Wiegreffe & Pinter baseline).
// imposed (alpha [n_max-1 x B], nullable): the row of query 0 in every head becomes
//   [c_h, (1 - c_h) · alpha_1 .. alpha_{n-1}], c_h = the head's own softmax weight of key 0
// (docs/DESIGN.md "Transformer encoder"); the other rows are the model's own.
// head_off (nullable, H flags): heads switched off contribute nothing (ctx_h = 0; Michel et al. head masking).
// first_query_only: only query 0 of each sequence ([CLS]) is computed — Q, the softmax, ctx and the output
// projection run on those B columns: out and ctx are [d x B] (column b = position 0 of sequence b), P holds row
// 0 only (the other rows zero), and mha_backward takes d_out [d x B]. K and V still cover every position. For
// callers that need only the output at [CLS] (the transformer's last layer when only logits are wanted).
#pragma once
#include <vector>

#include "nn/linear.h"
#include "nn/tensor.h"

namespace attnlab {

template <class T>
struct MhaParams {
  LinearParams<T> q, k, v, o;  // each w [d x d], b [d x 1]
};

template <class T>
struct MhaCache {
  int heads = 1, S = 0;
  std::vector<int> n;       // real positions per sequence
  Mat<T> q, k, v;           // [d x B*S] (q: [d x B] when first_query_only)
  std::vector<Mat<T>> probs;  // per (b, h) at b*H + h: [S x S] (query row, key column), zero outside n x n
  std::vector<Mat<T>> own_row0;  // imposed only: the model's own softmax row of query 0 per (b, h), [1 x n]
  Mat<T> ctx;               // [d x B*S] heads concatenated, before Wo ([d x B] when first_query_only)
  bool uniform = false, imposed = false, first_query_only = false;
  Mat<T> alpha;             // imposed weights as given ([n_max-1 x B])
  std::vector<char> head_off;  // per head (empty: all on)
};

template <class T>
void mha_forward(const MhaParams<T>& p, int heads, const Mat<T>& x, const std::vector<int>& n, int S, bool uniform,
                 const Mat<T>* imposed_alpha, MhaCache<T>& cache, Mat<T>& out, const char* head_off = nullptr,
                 bool first_query_only = false);

// d_out [d x B*S] ([d x B] when the forward ran first_query_only). Accumulates grads (nullable); writes d_x [d x B*S] (nullable). detach: P treated as constant
// (no gradient through the scores). d_probs (nullable): receives dL/dP per (b, h) ([S x S], as probs).
// d_alpha (nullable, [n_max-1 x B]): dL/d alpha of the imposed form (the query-0 rows), written.
// uniform_rule: AttnLRP's rule for a product of two activations in gradient form — each factor of P·V and of
// Q·Kᵀ receives half the gradient (so half the relevance), which keeps the relevance of a product conserved;
// d_probs then holds the halved dL/dP. Not a gradient: only for the propagation rules (transformer.h).
template <class T>
void mha_backward(const MhaParams<T>& p, const Mat<T>& x, const MhaCache<T>& cache, const Mat<T>& d_out, bool detach,
                  MhaParams<T>* grads, Mat<T>* d_x, std::vector<Mat<T>>* d_probs, Mat<T>* d_alpha,
                  bool uniform_rule = false);

}  // namespace attnlab
