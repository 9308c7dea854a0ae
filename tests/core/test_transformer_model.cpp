// The transformer through the text-model interface: checkpoint round trip (names and shapes of docs/DESIGN.md),
// bad checkpoints with clear messages (heads not dividing d, missing / mis-shaped attention weights, a tanh
// transformer), AdamW's schedule, and a short training run that learns a toy task.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/text_checkpoint.h"
#include "nn/adamw.h"
#include "train/text_trainer.h"

namespace attnlab {
namespace {

TextModel small_transformer(AttentionKind kind = AttentionKind::Dot) {
  TextModel m;
  m.vocab = Vocab({"<pad>", "<unk>", "good", "bad", "film", "great", "awful", "plot"});
  m.config.encoder = EncoderKind::Transformer;
  m.config.attention = kind;
  m.config.vocab_size = m.vocab.size();
  m.config.embedding_dim = 8;
  m.config.hidden_dim = 8;
  m.config.layers = 2;
  m.config.heads = 2;
  m.config.ffn_dim = 16;
  m.config.max_len = 5;
  m.max_tokens = 5;
  m.class_names = {"negative", "positive"};
  Rng rng(9);
  m.params.init(m.config, rng);
  return m;
}

std::string load_error(const std::string& config, const std::vector<uint8_t>& weights) {
  TextModel out;
  std::string error;
  EXPECT_FALSE(load_text_model(config, weights.data(), weights.size(), &out, &error));
  return error;
}

TEST(TransformerCheckpoint, RoundTripKeepsEverything) {
  for (AttentionKind kind : {AttentionKind::Dot, AttentionKind::Uniform}) {
    const TextModel m = small_transformer(kind);
    const auto bytes = text_model_weights(m, StorageType::F32);
    const std::string config = text_model_config_json(m);
    TextModel back;
    std::string error;
    ASSERT_TRUE(load_text_model(config, bytes.data(), bytes.size(), &back, &error)) << error;
    EXPECT_EQ(back.config.encoder, EncoderKind::Transformer);
    EXPECT_EQ(back.config.layers, 2);
    EXPECT_EQ(back.config.heads, 2);
    EXPECT_EQ(back.config.ffn_dim, 16);
    EXPECT_EQ(back.config.max_len, 5);
    EXPECT_EQ(back.max_tokens, 5);
    const auto a = m.params.named();
    const auto b = back.params.named();
    ASSERT_EQ(a.size(), b.size());
    ASSERT_EQ(a.size(), 1 + 2 + 2 * 16 + 2 + 2u);  // embedding, cls, position, 2 blocks, final LN, decoder
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(*b[i].second, *a[i].second) << a[i].first;
    // Same output after the round trip.
    TextCache<float> c1, c2;
    const TextBatch batch = TextBatch::from_sequences({{2, 4, 3}});
    text_forward_ids(m.config, m.params, batch, c1);
    text_forward_ids(back.config, back.params, batch, c2);
    EXPECT_EQ(c1.logits, c2.logits);
  }
  // The documented names and shapes.
  const TextModel m = small_transformer();
  SafetensorsFile file;
  std::string error;
  const auto bytes = text_model_weights(m, StorageType::F16);
  ASSERT_TRUE(read_safetensors(bytes.data(), bytes.size(), &file, &error));
  EXPECT_EQ(file.tensors.at("transformer.position.weight").shape, (std::vector<int64_t>{6, 8}));
  EXPECT_EQ(file.tensors.at("transformer.cls").shape, (std::vector<int64_t>{8}));
  EXPECT_EQ(file.tensors.at("transformer.layers.1.attention.q.weight").shape, (std::vector<int64_t>{8, 8}));
  EXPECT_EQ(file.tensors.at("transformer.layers.0.ffn.fc1.weight").shape, (std::vector<int64_t>{16, 8}));
  EXPECT_EQ(file.tensors.at("decoder.weight").shape, (std::vector<int64_t>{1, 8}));
}

TEST(TransformerCheckpoint, BadCheckpointsGiveClearMessages) {
  const TextModel m = small_transformer();
  const auto w = text_model_weights(m, StorageType::F32);
  const nlohmann::json good = nlohmann::json::parse(text_model_config_json(m));
  auto j = good;
  j["heads"] = 3;
  EXPECT_NE(load_error(j.dump(), w).find("'heads' (3) must divide 'embedding_dim' (8)"), std::string::npos);
  j = good;
  j.erase("layers");
  EXPECT_NE(load_error(j.dump(), w).find("'layers'"), std::string::npos);
  j = good;
  j["attention"] = "tanh";
  EXPECT_NE(load_error(j.dump(), w).find("\"dot\" (scaled dot-product) or \"uniform\""), std::string::npos);
  j = good;
  j["encoder"] = "gru";
  EXPECT_NE(load_error(j.dump(), w).find("\"transformer\""), std::string::npos);
  // A checkpoint trained with 3 layers read as 2 has an unexpected tensor; 2 read as 3 misses one.
  j = good;
  j["layers"] = 3;
  EXPECT_NE(load_error(j.dump(), w).find("tensor 'transformer.layers.2.ln1.weight' is missing"), std::string::npos);
  // Missing or mis-shaped attention weights.
  SafetensorsFile file;
  std::string error;
  ASSERT_TRUE(read_safetensors(w.data(), w.size(), &file, &error));
  auto without = file.tensors;
  without.erase("transformer.layers.1.attention.k.weight");
  EXPECT_NE(load_error(good.dump(), write_safetensors(without, StorageType::F32, {}))
                .find("tensor 'transformer.layers.1.attention.k.weight' is missing"),
            std::string::npos);
  auto misshaped = file.tensors;
  misshaped["transformer.layers.0.attention.v.weight"].shape = {4, 16};
  EXPECT_NE(load_error(good.dump(), write_safetensors(misshaped, StorageType::F32, {}))
                .find("'transformer.layers.0.attention.v.weight' has shape [4, 16], the config needs [8, 8]"),
            std::string::npos);
}

TEST(TransformerForward, CutsLongInputsAndRunsEmptyOnes) {
  const TextModel m = small_transformer();
  TextCache<float> full, cut;
  text_forward_ids(m.config, m.params, TextBatch::from_sequences({{2, 4, 3, 5, 6, 7, 2}}), full);
  text_forward_ids(m.config, m.params, TextBatch::from_sequences({{2, 4, 3, 5, 6}}), cut);
  EXPECT_TRUE(full.transformer.truncated);
  EXPECT_FALSE(cut.transformer.truncated);
  EXPECT_EQ(full.logits, cut.logits);  // tokens beyond max_len are not seen
  EXPECT_EQ(full.attention.alpha(5, 0), 0.f);
  const Mat<float> empty = empty_input_logits(m.config, m.params);
  EXPECT_TRUE(empty.allFinite());
  // Padding does not change a sequence's output: batched = alone.
  TextCache<float> batch, alone;
  text_forward_ids(m.config, m.params, TextBatch::from_sequences({{2, 4, 3, 5}, {6}}), batch);
  text_forward_ids(m.config, m.params, TextBatch::from_sequences({{6}}), alone);
  EXPECT_NEAR(batch.logits(0, 1), alone.logits(0, 0), 1e-5);
}

TEST(AdamW, WarmupThenLinearDecayAndDecoupledDecay) {
  AdamWOptions o;
  o.warmup = 10;
  o.total = 110;
  EXPECT_DOUBLE_EQ(adamw_lr_factor(o, 1), 0.1);
  EXPECT_DOUBLE_EQ(adamw_lr_factor(o, 10), 1.0);
  EXPECT_DOUBLE_EQ(adamw_lr_factor(o, 60), 0.5);
  EXPECT_DOUBLE_EQ(adamw_lr_factor(o, 110), 0.0);
  // With a zero gradient only the decay acts: theta *= 1 - lr·wd (decayed params), unchanged otherwise.
  AdamWOptions plain;
  plain.lr = 0.1;
  plain.weight_decay = 0.5;
  Mat<double> a = Mat<double>::Constant(2, 2, 1.0), b = Mat<double>::Constant(2, 1, 1.0);
  Mat<double> ga = Mat<double>::Zero(2, 2), gb = Mat<double>::Zero(2, 1);
  AdamW<double> opt(plain, {&a, &b}, {true, false});
  opt.step({&a, &b}, {&ga, &gb});
  EXPECT_DOUBLE_EQ(a(0, 0), 0.95);
  EXPECT_DOUBLE_EQ(b(0, 0), 1.0);
  // First step with a gradient moves by lr in the gradient's sign direction (Adam's normalised step).
  Mat<double> c = Mat<double>::Zero(1, 1), gc = Mat<double>::Constant(1, 1, 3.0);
  AdamW<double> opt2(plain, {&c}, {false});
  opt2.step({&c}, {&gc});
  EXPECT_NEAR(c(0, 0), -0.1, 1e-6);
}

TEST(TransformerTraining, LearnsAToyTaskWithAdamWAndDropout) {
  TextModel m = small_transformer();
  // Positive iff "good"/"great" appears; positions vary, distractor words around it.
  std::vector<EncodedExample> train, dev;
  Rng rng(3);
  for (int i = 0; i < 400; ++i) {
    EncodedExample ex;
    const int len = 1 + static_cast<int>(rng.below(4));
    for (int t = 0; t < len; ++t) ex.ids.push_back(rng.below(2) ? 4 : 7);  // film / plot
    ex.label = static_cast<int>(rng.below(2));
    const int cue = ex.label ? (rng.below(2) ? 2 : 5) : (rng.below(2) ? 3 : 6);
    ex.ids.insert(ex.ids.begin() + static_cast<long>(rng.below(ex.ids.size() + 1)), cue);
    (i < 320 ? train : dev).push_back(ex);
  }
  TrainOptions o;
  o.epochs = 6;
  o.batch_size = 16;
  o.use_adamw = true;
  o.adamw_options.lr = 3e-3;
  o.dropout = 0.1;
  const TrainResult r = train_text_model(m.config, m.params, train, dev, o);
  EXPECT_GE(r.best_dev.accuracy, 0.95);
  EXPECT_LT(r.train_loss_per_epoch.back(), r.train_loss_per_epoch.front());
}

}  // namespace
}  // namespace attnlab
