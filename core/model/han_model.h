// Hierarchical attention network (Yang et al. 2016), docs/DESIGN.md "HAN":
//   words of sentence i -> embedding -> word BiGRU h_it -> u_it = tanh(W_w h_it + b_w),
//   alpha_it = softmax_t(u_it . u_w), s_i = sum_t alpha_it h_it
//   sentences s_i -> sentence BiGRU h_i -> u_i = tanh(W_s h_i + b_s), beta_i = softmax_i(u_i . u_s),
//   v = sum_i beta_i h_i -> logits = W_c v + b_c (binary: one logit, sigmoid; else softmax).
// Uniform variants (Wiegreffe & Pinter's baseline) at either level: alpha_it = 1/len_i, beta_i = 1/n.
// Batching: the sentences of all documents of a batch are sorted by length and run through the word
// encoder in chunks of similar length (padding only within a chunk), then each document's sentence vectors
// are laid out [2Hw x Smax*D] for the sentence encoder (Smax = most sentences in the batch). No document is
// padded to the longest document's words. A document with no sentence has v = 0 (logits = b_c); every
// sentence must have >= 1 token (core/text/sentence_splitter guarantees it).
// Forward fills a HanCache; backward accumulates gradients (the embedding's included) and can return
// gradients w.r.t. the embedded words, the sentence vectors and both levels' attention weights.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "nn/attention.h"
#include "nn/gru.h"
#include "nn/linear.h"
#include "nn/rng.h"

namespace attnlab {

struct HanConfig {
  int vocab_size = 2;
  int embedding_dim = 100;
  int word_hidden = 50;      // per direction
  int sentence_hidden = 50;  // per direction
  AttentionKind word_attention = AttentionKind::Tanh;      // Tanh (additive, u_w) or Uniform
  AttentionKind sentence_attention = AttentionKind::Tanh;  // Tanh (additive, u_s) or Uniform
  int num_classes = 2;
  int outputs() const { return num_classes == 2 ? 1 : num_classes; }
  // Attention projections keep the encoder width (the paper's choice): W_w [2Hw x 2Hw], W_s [2Hs x 2Hs].
  int word_attention_dim() const { return 2 * word_hidden; }
  int sentence_attention_dim() const { return 2 * sentence_hidden; }
};

template <class T>
struct HanParams {
  Mat<T> embedding;                       // [E x V]
  BiGruParams<T> word_encoder;            // input E, hidden Hw
  AttentionParams<T> word_attention;      // w1 = W_w [2Hw x 2Hw], b1 = b_w [2Hw], v = u_w^T [1 x 2Hw]
  BiGruParams<T> sentence_encoder;        // input 2Hw, hidden Hs
  AttentionParams<T> sentence_attention;  // w1 = W_s [2Hs x 2Hs], b1 = b_s, v = u_s^T [1 x 2Hs]
  LinearParams<T> classifier;             // w [C' x 2Hs], b [C' x 1]

  void resize(const HanConfig& cfg);  // zero-filled
  // PyTorch-style: embedding N(0, 1) (<pad> row zero), GRU / linear U(-1/sqrt(fan), ...), u_w, u_s likewise.
  void init(const HanConfig& cfg, Rng& rng);
  void set_zero();
  std::vector<std::pair<std::string, Mat<T>*>> named();  // checkpoint names (docs/DESIGN.md), fixed order
  std::vector<std::pair<std::string, const Mat<T>*>> named() const;
  std::vector<Mat<T>*> list();
  template <class U>
  HanParams<U> cast() const;
};

// A document: its sentences as token-id lists (each non-empty).
using HanDocument = std::vector<std::vector<int>>;

struct HanForwardOptions {
  int chunk_sentences = 64;  // sentences per word-encoder chunk
};

// Attention weights to impose (experiments); each nullable.
template <class T>
struct HanOverrides {
  // word_alpha[g]: weights of global sentence g (documents' sentences in order), one per token.
  const std::vector<std::vector<T>>* word_alpha = nullptr;
  // [Smax x D], column d: the weights of document d's sentences (0 beyond its count).
  const Mat<T>* sentence_alpha = nullptr;
  // Scale of each document's embedded words (integrated gradients: the path alpha * x); size D.
  const std::vector<T>* input_scale = nullptr;
};

template <class T>
struct HanWordChunk {
  std::vector<int> sentences;  // global sentence indices, one per column
  std::vector<int> lengths;
  int steps = 0;
  std::vector<int> ids;  // [steps * B] column order
  std::vector<T> scale;  // per column: the document's input scale (1 without one)
  Mat<T> x;              // [E x steps*B] embedded (and scaled) words
  BiGruCache<T> encoder;
  AttentionCache<T> attention;
};

template <class T>
struct HanCache {
  int D = 0, S = 0, smax = 0;
  std::vector<int> doc_first, doc_count;         // per document: first global sentence, sentence count
  std::vector<int> sentence_doc, sentence_pos;   // per global sentence
  std::vector<int> sentence_chunk, sentence_col; // where each sentence sits in the word chunks
  std::vector<HanWordChunk<T>> chunks;
  Mat<T> sentence_vectors;  // [2Hw x S]
  Mat<T> xs;                // [2Hw x smax*D] sentence-encoder input
  BiGruCache<T> sentence_encoder;
  AttentionCache<T> sentence_attention;  // alpha [smax x D], context [2Hs x D]
  Mat<T> logits;                         // [C' x D]
};

template <class T>
void han_forward(const HanConfig& cfg, const HanParams<T>& p, const std::vector<HanDocument>& docs, HanCache<T>& cache,
                 const HanOverrides<T>& overrides = {}, const HanForwardOptions& options = {});

// The sentence level alone, from given sentence vectors [2Hw x S] and per-document counts (the documents'
// sentences consecutive). Fills the sentence-level fields of cache (and D, S, doc_first, doc_count).
template <class T>
void han_sentence_forward(const HanConfig& cfg, const HanParams<T>& p, const Mat<T>& sentence_vectors,
                          const std::vector<int>& doc_count, HanCache<T>& cache, const Mat<T>* sentence_alpha = nullptr);

struct HanBackwardOptions {
  bool detach_word_attention = false;      // alpha_it held constant
  bool detach_sentence_attention = false;  // beta_i held constant
  bool sentence_level_only = false;        // stop at the sentence vectors (after han_sentence_forward)
};

template <class T>
struct HanGradients {
  std::vector<Mat<T>> d_words;   // per global sentence: [E x len] dL/d(embedded, scaled word)
  Mat<T> d_sentence_vectors;     // [2Hw x S]
  Mat<T> d_sentence_alpha;       // [smax x D]
  std::vector<std::vector<T>> d_word_alpha;  // per global sentence, per token
};

// d_logits [C' x D]. grads (nullable) accumulates every parameter's gradient, the embedding's included;
// out (nullable) receives the input / attention gradients.
template <class T>
void han_backward(const HanConfig& cfg, const HanParams<T>& p, const HanCache<T>& cache, const Mat<T>& d_logits,
                  const HanBackwardOptions& options, HanParams<T>* grads, HanGradients<T>* out);

// Word attention of global sentence g, one weight per token.
template <class T>
std::vector<T> han_word_alpha(const HanCache<T>& cache, int g);

// Class probabilities [C x D] (binary: [1 - p; p]).
template <class T>
Mat<T> han_class_probabilities(const HanConfig& cfg, const Mat<T>& logits);

}  // namespace attnlab
