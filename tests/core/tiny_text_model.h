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

}  // namespace attnlab::test
