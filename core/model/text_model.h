// The text classifier: embedding -> BiLSTM -> attention -> linear decoder (docs/DESIGN.md).
// Parameters are plain Eigen matrices; forward fills a cache, backward accumulates gradients into a
// TextParams of the same shapes. Binary models have one logit (p(positive) = sigmoid); multi-class
// models have C logits (softmax).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "model/transformer.h"
#include "nn/attention.h"
#include "nn/bilstm.h"
#include "nn/linear.h"
#include "nn/rng.h"

namespace attnlab {

// bilstm: the BiLSTM of the papers. mlp: Wiegreffe & Pinter's non-contextual diagnostic encoder,
// h_t = tanh(W x_t + b) per token (2H wide, so attention and decoder are unchanged).
// transformer: [CLS] + pre-LN self-attention blocks (model/transformer.h); the decoder reads [CLS] (d wide);
// attention "dot" = learned scaled dot-product, "uniform" = every row frozen uniform; "attention" (alpha) of
// the interface = the last layer's head-averaged [CLS] row over the tokens, renormalised (docs/DESIGN.md).
enum class EncoderKind { BiLstm, Mlp, Transformer };

struct TextConfig {
  EncoderKind encoder = EncoderKind::BiLstm;
  AttentionKind attention = AttentionKind::Tanh;
  int vocab_size = 2;
  int embedding_dim = 128;
  int hidden_dim = 128;
  int num_classes = 2;
  // transformer only (embedding_dim = d; hidden_dim unused):
  int layers = 2, heads = 4, ffn_dim = 256, max_len = 128;
  // bilstm only: both directions are Mohankumar et al.'s Orthogonal LSTMs (nn/lstm.h); config "ortho_bilstm".
  bool orthogonal = false;
  int outputs() const { return num_classes == 2 ? 1 : num_classes; }
  // Width of the vector the decoder reads (2H, or d for the transformer).
  int decoder_input() const { return encoder == EncoderKind::Transformer ? embedding_dim : 2 * hidden_dim; }
};

template <class T>
struct TextParams {
  Mat<T> embedding;  // [E x V]
  BiLstmParams<T> encoder;  // bilstm encoder (empty for mlp)
  LinearParams<T> mlp;      // mlp encoder: w [2H x E], b [2H x 1] (empty for bilstm)
  TransformerParams<T> transformer;  // transformer encoder (empty otherwise)
  AttentionParams<T> attention;
  LinearParams<T> decoder;  // w [C' x 2H], b [C' x 1], C' = outputs()

  // Shapes from the config, zero-filled.
  void resize(const TextConfig& cfg);
  // PyTorch-style initialisation: embedding N(0,1) (row <pad> zero), LSTM / linear U(-1/sqrt(fan), ..).
  void init(const TextConfig& cfg, Rng& rng);
  void set_zero();
  // Every parameter with its checkpoint name (docs/DESIGN.md), in a fixed order.
  std::vector<std::pair<std::string, Mat<T>*>> named();
  std::vector<std::pair<std::string, const Mat<T>*>> named() const;
  std::vector<Mat<T>*> list();
  template <class U>
  TextParams<U> cast() const;
};

// A padded batch: ids in column order (t*B + b), lengths per sequence (>= 0).
struct TextBatch {
  int steps = 0;
  std::vector<int> lengths;
  std::vector<int> ids;
  std::vector<char> marked = {};  // [T*B] in ids' layout: 1 = impermissible by position (deception); empty = none
  int size() const { return static_cast<int>(lengths.size()); }
  static TextBatch from_sequences(const std::vector<std::vector<int>>& seqs);
};

template <class T>
struct TextCache {
  std::vector<int> lengths;
  int steps = 0;
  Mat<T> x;  // [E x T*B] embedded input
  BiLstmCache<T> encoder;  // for mlp only encoder.out ([2H x T*B]) is used
  AttentionCache<T> attention;  // transformer: only alpha (see TransformerCache::alpha) and imposed
  TransformerCache<T> transformer;
  TransformerRun run;  // transformer training: dropout rate and seed, set by the caller before the forward
  Mat<T> logits;  // [C' x B]
};

// Forward on embedded inputs x [E x T*B]. alpha_override: see attention_forward.
template <class T>
void text_forward(const TextConfig& cfg, const TextParams<T>& p, const Mat<T>& x, const std::vector<int>& lengths,
                  TextCache<T>& cache, const Mat<T>* alpha_override = nullptr);

// Forward from token ids.
template <class T>
void text_forward_ids(const TextConfig& cfg, const TextParams<T>& p, const TextBatch& batch, TextCache<T>& cache,
                      const Mat<T>* alpha_override = nullptr);

struct BackwardOptions {
  bool detach_attention = false;  // treat alpha as constant (J&W gradient importance)
};

// Backward from d_logits [C' x B]. grads (nullable) accumulates; d_x (nullable) receives dL/dx
// [E x T*B]; d_alpha (nullable) receives dL/dalpha [T x B]. Embedding gradients are not included here
// (see embedding_backward) so that gradients w.r.t. embedded inputs are available directly.
// d_alpha_extra ([T x B], nullable): a gradient on the attention weights from a loss on them.
// d_states_extra ([2H x T*B], nullable; bilstm / mlp): a gradient on the encoder's states from a loss on them.
template <class T>
void text_backward(const TextConfig& cfg, const TextParams<T>& p, const TextCache<T>& cache, const Mat<T>& d_logits,
                   BackwardOptions opts, TextParams<T>* grads, Mat<T>* d_x, Mat<T>* d_alpha = nullptr,
                   const Mat<T>* d_alpha_extra = nullptr, const Mat<T>* d_states_extra = nullptr);

// Logits [C' x 1] of the empty input (no tokens): the decoder bias on a zero context (bilstm, mlp), the
// [CLS]-only forward (transformer).
template <class T>
Mat<T> empty_input_logits(const TextConfig& cfg, const TextParams<T>& p);

// Class probabilities [C x B] from logits (binary: [1-p; p]).
template <class T>
Mat<T> class_probabilities(const TextConfig& cfg, const Mat<T>& logits);

}  // namespace attnlab
