// The transformer encoder of the text model (encoder kind "transformer", docs/DESIGN.md):
//   h0_s = [CLS] + pos_0 (s = 0),  h0_s = x_{s-1} + pos_s (s = 1..T)      x = token embeddings [d x T*B]
//   L pre-LN blocks:  h = h + Drop(MHA(LN1(h)));  h = h + Drop(W2 GELU(W1 LN2(h) + b1) + b2)
//   z = LNf(h_[CLS]);  logits = decoder(z)
// Dropout (embedding sum and both residual branches) only when TransformerRun::dropout > 0 (training).
// Inputs longer than max_len tokens are cut to their first max_len (the cache says truncated; the dropped
// tokens get zero attention and zero gradient) — never a crash. The last layer's FFN runs on the [CLS] columns
// only (nothing else reaches the output). Every layer's attention probabilities and value vectors stay in the
// cache for the explanation code.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nn/layer_norm.h"
#include "nn/linear.h"
#include "nn/rng.h"
#include "nn/self_attention.h"

namespace attnlab {

struct TextConfig;

template <class T>
struct TransformerBlockParams {
  LayerNormParams<T> ln1, ln2;
  MhaParams<T> attn;
  LinearParams<T> fc1;  // w [F x d], b [F x 1]
  LinearParams<T> fc2;  // w [d x F], b [d x 1]
};

template <class T>
struct TransformerParams {
  Mat<T> cls;       // [d x 1]
  Mat<T> position;  // [(max_len + 1) x d], row s = position s ([CLS] at 0)
  std::vector<TransformerBlockParams<T>> layers;
  LayerNormParams<T> ln_f;

  void resize(const TextConfig& cfg);
  void init(const TextConfig& cfg, Rng& rng);  // linear U(±1/sqrt(fan_in)); cls, position N(0, 0.02²); LN 1 / 0
  // Checkpoint names (docs/DESIGN.md), fixed order.
  std::vector<std::pair<std::string, Mat<T>*>> named();
  template <class U>
  TransformerParams<U> cast() const;
};

template <class T>
struct TransformerLayerCache {
  Mat<T> in;   // [d x B*S] block input
  LayerNormCache<T> ln1;
  Mat<T> y1;   // LN1(in)
  MhaCache<T> attn;
  Mat<T> mask1;
  Mat<T> mid;  // in + Drop(MHA)  [d x B*S] (empty in the last layer under TransformerRun::logits_only)
  std::vector<Eigen::Index> ffn_cols;  // columns of mid the FFN ran on (all, or the [CLS] columns in the last layer)
  Mat<T> mid_sel;  // mid at ffn_cols [d x M]
  LayerNormCache<T> ln2;
  Mat<T> y2, pre, act;  // [d x M], [F x M], [F x M]
  Mat<T> mask2;
  Mat<T> out;  // [d x M]
};

// Training-time settings of one forward (none = inference).
struct TransformerRun {
  double dropout = 0;
  uint64_t seed = 0;
  // Heads switched off ([layer * H + head] flags, empty = all on): Michel et al.'s head ablation.
  std::vector<char> head_off;
  // Only the logits (and input / parameter gradients) are wanted: the last layer's attention computes the
  // [CLS] query alone (self_attention.h first_query_only) — its probs hold row 0 only and its mid is empty.
  // The output, alpha and every gradient are unchanged; the other rows of the last layer's maps are not computed.
  bool logits_only = false;
};

template <class T>
struct TransformerCache {
  int B = 0, S = 0;          // batch, padded positions ([CLS] + tokens)
  int steps = 0;             // token columns per sequence in x (x.cols() / B)
  std::vector<int> n;        // real positions per sequence ([CLS] + kept tokens)
  std::vector<int> lengths;  // tokens given per sequence
  bool truncated = false;
  Mat<T> h0;  // [d x B*S]
  Mat<T> mask0;
  std::vector<TransformerLayerCache<T>> layers;
  Mat<T> top;  // [d x B] last layer output at [CLS]
  LayerNormCache<T> ln_f;
  Mat<T> z;    // [d x B]
  // Head-averaged [CLS] row of the last layer over the tokens, renormalised to sum 1 ([T x B], 0 on padding).
  Mat<T> alpha;
  const Mat<T>& probs(int layer, int b, int head) const {
    return layers[layer].attn.probs[static_cast<size_t>(b) * layers[layer].attn.heads + head];
  }
};

// x [d x T*B] (column t*B + b), lengths per sequence. alpha_override [T x B] (nullable): imposed on the
// last layer's [CLS] query in every head (see self_attention.h). Writes logits [C' x B].
template <class T>
void transformer_forward(const TextConfig& cfg, const TransformerParams<T>& p, const LinearParams<T>& decoder,
                         const Mat<T>& x, const std::vector<int>& lengths, TransformerCache<T>& cache, Mat<T>& logits,
                         const Mat<T>* alpha_override = nullptr, TransformerRun run = {});

// What the backward pass propagates. Gradient: the true gradient. The propagation rules, in gradient form (the
// relevance of an input is input ⊙ the propagated quantity, one pass; lxt's "efficient" formulation):
//   AttnLrp (Achtibat et al., ICML 2024): LayerNorms with their normalising scale held constant; GELU by the
//     identity rule (d_x = d_y ⊙ Φ(x)); each factor of P·V and of Q·Kᵀ gets half (the uniform rule); softmax by
//     its gradient (the paper's softmax rule, whose bias term is not redistributed); linear layers by their
//     gradient (LRP-0, biases not redistributed).
//   CpLrp (Ali et al., ICML 2022): the attention probabilities held constant (no path through queries and keys),
//     LayerNorms with the scale held constant, GELU by the identity rule, the rest as AttnLrp.
enum class PropagationRule { Gradient, AttnLrp, CpLrp };

struct TransformerBackwardOptions {
  bool detach_attention = false;  // every P treated as constant
  PropagationRule rule = PropagationRule::Gradient;
};

// d_logits [C' x B]. grads / d_decoder (nullable) accumulate; d_x (nullable) receives dL/dx [d x T*B] (zero for
// cut tokens). d_probs (nullable): dL/dP [layer][b*H + h] ([S x S]). d_alpha (nullable): dL/d alpha of the
// imposed form [T x B]. d_h0 (nullable): the quantity propagated to the embedding sum h0 [d x B*S] ([CLS] and
// position embeddings' share).
template <class T>
void transformer_backward(const TextConfig& cfg, const TransformerParams<T>& p, const LinearParams<T>& decoder,
                          const TransformerCache<T>& cache, const Mat<T>& d_logits, TransformerBackwardOptions opts,
                          TransformerParams<T>* grads, LinearParams<T>* d_decoder, Mat<T>* d_x,
                          std::vector<std::vector<Mat<T>>>* d_probs = nullptr, Mat<T>* d_alpha = nullptr,
                          Mat<T>* d_h0 = nullptr);

}  // namespace attnlab
