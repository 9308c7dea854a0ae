// Hostile config.json files for the text and CNN checkpoint loaders (issue 13): deep nesting (was a stack
// overflow, SIGSEGV), huge dims with an empty safetensors (was ~1.4 GB allocated before the error),
// integers that get<int>() truncated (width 4294967312 read as 16), wrong class_names silently replaced,
// and the CNN image_size range the data generator does not accept. Each: a clear error, no crash.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <nlohmann/json.hpp>
#include <string>

#include "model/cnn_checkpoint.h"
#include "model/text_checkpoint.h"

namespace attnlab {
namespace {

using nlohmann::json;

TextModel small_text_model() {
  TextModel m;
  m.vocab = Vocab({"<pad>", "<unk>", "good", "bad"});
  m.config.vocab_size = m.vocab.size();
  m.config.embedding_dim = 4;
  m.config.hidden_dim = 3;
  m.class_names = {"negative", "positive"};
  Rng rng(3);
  m.params.init(m.config, rng);
  return m;
}

CnnModel small_cnn_model() {
  CnnModel m;
  m.config.image_size = 16;
  m.config.num_classes = 2;
  m.config.widths = {2, 3};
  m.config.pool = {true, false};
  m.config.cbam = {false, false};
  m.class_names = {"a", "b"};
  Rng rng(3);
  m.params.init(m.config, rng);
  return m;
}

std::string text_error(const std::string& config, const std::vector<uint8_t>& w) {
  TextModel out;
  std::string error;
  EXPECT_FALSE(load_text_model(config, w.data(), w.size(), &out, &error)) << "unexpectedly loaded";
  return error;
}

std::string cnn_error(const std::string& config, const std::vector<uint8_t>& w) {
  CnnModel out;
  std::string error;
  EXPECT_FALSE(load_cnn_model(config, w.data(), w.size(), &out, &error)) << "unexpectedly loaded";
  return error;
}

// {"training": [[[[...]]]]} nested `depth` arrays deep, spliced into a valid config.
std::string with_deep_training(const std::string& config, int depth) {
  json j = json::parse(config);
  j["training"] = 0;
  std::string s = j.dump();
  const std::string key = "\"training\":0";
  const size_t at = s.find(key);
  return s.substr(0, at) + "\"training\":" + std::string(depth, '[') + std::string(depth, ']') +
         s.substr(at + key.size());
}

long max_rss_kb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

TEST(CheckpointLimits, DeeplyNestedTrainingSectionIsRefused) {
  const TextModel t = small_text_model();
  const auto tw = text_model_weights(t, StorageType::F32);
  const CnnModel c = small_cnn_model();
  const auto cw = cnn_model_weights(c, StorageType::F32);
  for (int depth : {65, 10000, 100000}) {
    EXPECT_EQ(text_error(with_deep_training(text_model_config_json(t), depth), tw),
              "config.json is nested more than 64 levels deep") << depth;
    EXPECT_EQ(cnn_error(with_deep_training(cnn_model_config_json(c), depth), cw),
              "config.json is nested more than 64 levels deep") << depth;
  }
  // 60 levels inside "training" (61 with the top-level object) still load, and keep the section
  TextModel back;
  std::string error;
  ASSERT_TRUE(load_text_model(with_deep_training(text_model_config_json(t), 60), tw.data(), tw.size(), &back, &error))
      << error;
  EXPECT_NE(back.extra_json.find("[[[["), std::string::npos);
  // brackets inside strings do not count
  json j = json::parse(text_model_config_json(t));
  j["provenance"] = {{"note", std::string(1000, '[')}};
  ASSERT_TRUE(load_text_model(j.dump(), tw.data(), tw.size(), &back, &error)) << error;
}

TEST(CheckpointLimits, HugeDimsWithEmptyWeightsFailBeforeAllocating) {
  json j = json::parse(text_model_config_json(small_text_model()));
  j["embedding_dim"] = 4096;
  j["hidden_dim"] = 4096;
  std::vector<std::string> vocab = {"<pad>", "<unk>"};
  for (int i = 0; i < 15000; ++i) vocab.push_back("w" + std::to_string(i));
  j["vocab"] = vocab;
  const std::vector<uint8_t> empty = write_safetensors({}, StorageType::F32);
  const long before = max_rss_kb();
  EXPECT_EQ(text_error(j.dump(), empty),
            "model.safetensors: tensor 'embedding.weight' is missing (attention 'tanh' needs it)");
  // Resizing first took ~1.4 GB; validating first needs next to nothing (the peak grows < 100 MB).
  EXPECT_LT(max_rss_kb() - before, 100 * 1024);

  json c = json::parse(cnn_model_config_json(small_cnn_model()));
  c["widths"] = {1024, 1024, 1024, 1024, 1024, 1024, 1024, 1024};
  c["pool"] = {false, false, false, false, false, false, false, false};
  c["cbam"] = c["pool"];
  const long before_cnn = max_rss_kb();
  EXPECT_EQ(cnn_error(c.dump(), empty),
            "model.safetensors holds only 0 values; the tensor shapes of the config need at least 66089984");
  EXPECT_LT(max_rss_kb() - before_cnn, 100 * 1024);
}

TEST(CheckpointLimits, IntegersAreNotTruncated) {
  const CnnModel c = small_cnn_model();
  const auto cw = cnn_model_weights(c, StorageType::F32);
  json j = json::parse(cnn_model_config_json(c));
  j["widths"] = {uint64_t{4294967298}, 3};  // 2 + 2^32: get<int>() read it as 2, so the weights loaded
  EXPECT_EQ(cnn_error(j.dump(), cw), "config.json: 'widths' must hold integers in [1, 1024], got 4294967298");
  j = json::parse(cnn_model_config_json(c));
  j["image_size"] = uint64_t{4294967312};
  EXPECT_EQ(cnn_error(j.dump(), cw), "config.json: 'image_size' = 4294967312 is outside [16, 512]");
  j["image_size"] = uint64_t{18446744073709551615ull};
  EXPECT_EQ(cnn_error(j.dump(), cw), "config.json: 'image_size' = 18446744073709551615 is outside [16, 512]");

  const TextModel t = small_text_model();
  const auto tw = text_model_weights(t, StorageType::F32);
  json k = json::parse(text_model_config_json(t));
  k["hidden_dim"] = uint64_t{4294967299};  // 3 + 2^32
  EXPECT_EQ(text_error(k.dump(), tw), "config.json: 'hidden_dim' = 4294967299 is outside [1, 4096]");
  k = json::parse(text_model_config_json(t));
  k["max_tokens"] = uint64_t{18446744073709551615ull};
  EXPECT_EQ(text_error(k.dump(), tw), "config.json: 'max_tokens' must be an integer in [0, 1000000]");
}

TEST(CheckpointLimits, ClassNamesMustBeStringsOnePerClass) {
  const TextModel t = small_text_model();
  const auto tw = text_model_weights(t, StorageType::F32);
  json k = json::parse(text_model_config_json(t));
  k["class_names"] = {1, 2};
  EXPECT_EQ(text_error(k.dump(), tw), "config.json: 'class_names' must be an array of 2 strings (one per class)");
  k["class_names"] = {"a", "b", "c"};
  EXPECT_EQ(text_error(k.dump(), tw), "config.json: 'class_names' must be an array of 2 strings (one per class)");
  k.erase("class_names");  // absent: default names
  TextModel back;
  std::string error;
  ASSERT_TRUE(load_text_model(k.dump(), tw.data(), tw.size(), &back, &error)) << error;
  EXPECT_EQ(back.class_names, (std::vector<std::string>{"class 0", "class 1"}));

  const CnnModel c = small_cnn_model();
  const auto cw = cnn_model_weights(c, StorageType::F32);
  json j = json::parse(cnn_model_config_json(c));
  j["class_names"] = {1, 2, 3};
  EXPECT_EQ(cnn_error(j.dump(), cw), "config.json: 'class_names' must be an array of 2 strings (one per class)");
  j["class_names"] = "ab";
  EXPECT_EQ(cnn_error(j.dump(), cw), "config.json: 'class_names' must be an array of 2 strings (one per class)");
}

TEST(CheckpointLimits, CnnImageSizeMatchesWhatEvalAccepts) {
  const CnnModel c = small_cnn_model();
  const auto cw = cnn_model_weights(c, StorageType::F32);
  json j = json::parse(cnn_model_config_json(c));
  for (int bad : {8, 15, 513, 1024}) {
    j["image_size"] = bad;
    EXPECT_EQ(cnn_error(j.dump(), cw), "config.json: 'image_size' = " + std::to_string(bad) + " is outside [16, 512]");
  }
  for (int good : {16, 512}) {
    j["image_size"] = good;
    CnnModel back;
    std::string error;
    EXPECT_TRUE(load_cnn_model(j.dump(), cw.data(), cw.size(), &back, &error)) << good << ": " << error;
  }
}

TEST(CheckpointLimits, OversizedConfigIsRefusedBeforeParsing) {
  const std::string big = "{\"format\":\"attnlab-text-v1\",\"x\":\"" + std::string(size_t{64} << 20, 'a') + "\"}";
  EXPECT_EQ(text_error(big, {}),
            "config.json is " + std::to_string(big.size()) + " bytes, more than the limit of 67108864 bytes");
}

}  // namespace
}  // namespace attnlab
