// Checkpoint round trips, and every kind of bad file gives a message naming the problem.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/text_checkpoint.h"

namespace attnlab {
namespace {

TextModel small_model(AttentionKind kind) {
  TextModel m;
  m.vocab = Vocab({"<pad>", "<unk>", "good", "bad", "film"});
  m.config.attention = kind;
  m.config.vocab_size = m.vocab.size();
  m.config.embedding_dim = 4;
  m.config.hidden_dim = 3;
  m.class_names = {"negative", "positive"};
  Rng rng(5);
  m.params.init(m.config, rng);
  return m;
}

std::string load_error(const std::string& config, const std::vector<uint8_t>& weights) {
  TextModel out;
  std::string error;
  EXPECT_FALSE(load_text_model(config, weights.data(), weights.size(), &out, &error));
  return error;
}

TEST(Checkpoint, RoundTripF32IsExactAndF16RoundsToHalf) {
  for (AttentionKind kind : {AttentionKind::Tanh, AttentionKind::Dot, AttentionKind::Uniform}) {
    const TextModel m = small_model(kind);
    for (StorageType st : {StorageType::F32, StorageType::F16}) {
      const auto bytes = text_model_weights(m, st);
      TextModel back;
      std::string error;
      ASSERT_TRUE(load_text_model(text_model_config_json(m), bytes.data(), bytes.size(), &back, &error)) << error;
      EXPECT_EQ(back.config.attention, kind);
      EXPECT_EQ(back.vocab.words(), m.vocab.words());
      const auto a = m.params.named();
      const auto b = back.params.named();
      ASSERT_EQ(a.size(), b.size());
      for (size_t i = 0; i < a.size(); ++i) {
        const Mat<float> expect = st == StorageType::F32 ? *a[i].second
                                                          : a[i].second->unaryExpr([](float v) { return round_to_half(v); }).eval();
        EXPECT_EQ(*b[i].second, expect) << a[i].first;
      }
    }
  }
}

TEST(Checkpoint, BadConfigsAreNamed) {
  const TextModel m = small_model(AttentionKind::Tanh);
  const auto w = text_model_weights(m, StorageType::F32);
  const nlohmann::json good = nlohmann::json::parse(text_model_config_json(m));
  EXPECT_NE(load_error("not json", w).find("not a JSON object"), std::string::npos);
  auto j = good;
  j["format"] = "something-else";
  EXPECT_NE(load_error(j.dump(), w).find("'format'"), std::string::npos);
  j = good;
  j["attention"] = "cosine";
  EXPECT_NE(load_error(j.dump(), w).find("'attention'"), std::string::npos);
  j = good;
  j["hidden_dim"] = "three";
  EXPECT_NE(load_error(j.dump(), w).find("'hidden_dim'"), std::string::npos);
  j = good;
  j["vocab"] = {"a", "b"};
  EXPECT_NE(load_error(j.dump(), w).find("'vocab'"), std::string::npos);
}

TEST(Checkpoint, WeightsThatDoNotFitTheConfigAreNamed) {
  const TextModel m = small_model(AttentionKind::Tanh);
  const auto w = text_model_weights(m, StorageType::F32);
  // Truncated file.
  std::vector<uint8_t> cut(w.begin(), w.begin() + static_cast<long>(w.size() / 2));
  EXPECT_NE(load_error(text_model_config_json(m), cut).find("model.safetensors"), std::string::npos);
  // Empty file.
  EXPECT_NE(load_error(text_model_config_json(m), {}).find("model.safetensors"), std::string::npos);
  // A dot model's weights with a tanh config: missing tensor named.
  const auto dot = text_model_weights(small_model(AttentionKind::Dot), StorageType::F32);
  EXPECT_NE(load_error(text_model_config_json(m), dot).find("attention.w1.weight"), std::string::npos);
  // Vocabulary of another size: embedding shape named.
  TextModel bigger = m;
  bigger.vocab = Vocab({"<pad>", "<unk>", "good", "bad", "film", "extra"});
  const std::string err = load_error(text_model_config_json(bigger), w);
  EXPECT_NE(err.find("embedding.weight"), std::string::npos) << err;
  EXPECT_NE(err.find("shape"), std::string::npos) << err;
  // NaN weights.
  TextModel nan_model = m;
  nan_model.params.decoder.b(0, 0) = std::nanf("");
  EXPECT_NE(load_error(text_model_config_json(m), text_model_weights(nan_model, StorageType::F32)).find("NaN"),
            std::string::npos);
}

}  // namespace
}  // namespace attnlab
