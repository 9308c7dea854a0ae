// A tiny BiLSTM text model with random weights for the core tests: vocabulary <pad>, <unk>, then `words`;
// the attention, embedding and hidden sizes, seed and weight scale as given (the scale makes the attention and
// the outputs far from uniform, so differences show). Binary, class names negative / positive.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/text_checkpoint.h"
#include "nn/rng.h"

namespace attnlab::test {

struct TinyTextModelSpec {
  std::vector<std::string> words;
  AttentionKind attention = AttentionKind::Tanh;
  int embedding_dim = 6;
  int hidden_dim = 5;
  uint64_t seed = 5;
  float scale = 1.5f;
};

inline TextModel tiny_text_model(const TinyTextModelSpec& s) {
  TextModel m;
  std::vector<std::string> vocab = {"<pad>", "<unk>"};
  vocab.insert(vocab.end(), s.words.begin(), s.words.end());
  m.vocab = Vocab(vocab);
  m.config.attention = s.attention;
  m.config.vocab_size = m.vocab.size();
  m.config.embedding_dim = s.embedding_dim;
  m.config.hidden_dim = s.hidden_dim;
  m.config.num_classes = 2;
  m.class_names = {"negative", "positive"};
  Rng rng(s.seed);
  m.params.init(m.config, rng);
  for (Mat<float>* p : m.params.list()) *p *= s.scale;
  return m;
}

// A tiny transformer text model (vocabulary <pad>, <unk>, good, bad, film, a, very; width 8, max_len 6) with random
// weights, its query and key weights ×3 for sharper attention than the initialisation gives. Binary.
inline TextModel tiny_transformer_model(int layers, int heads, uint64_t seed) {
  TextModel m;
  m.vocab = Vocab({"<pad>", "<unk>", "good", "bad", "film", "a", "very"});
  m.config.encoder = EncoderKind::Transformer;
  m.config.attention = AttentionKind::Dot;
  m.config.vocab_size = m.vocab.size();
  m.config.embedding_dim = 8;
  m.config.hidden_dim = 8;
  m.config.layers = layers;
  m.config.heads = heads;
  m.config.ffn_dim = 12;
  m.config.max_len = 6;
  m.max_tokens = 6;
  m.class_names = {"negative", "positive"};
  Rng rng(seed);
  m.params.init(m.config, rng);
  for (auto& [name, mat] : m.params.named())  // sharper attention than the initialisation gives
    if (name.find("attention.q.weight") != std::string::npos || name.find("attention.k.weight") != std::string::npos)
      *mat *= 3.f;
  return m;
}

}  // namespace attnlab::test
