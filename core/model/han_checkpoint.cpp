#include "model/han_checkpoint.h"

#include <nlohmann/json.hpp>

#include "io/config_fields.h"

namespace attnlab {

using nlohmann::json;

std::string config_format(const std::string& config_json) {
  const json j = json::parse(config_json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "";
  auto f = j.find("format");
  return f != j.end() && f->is_string() ? f->get<std::string>() : "";
}

namespace {

bool read_attention(const json& j, const char* key, AttentionKind* kind, std::string* error) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string() || !parse_attention(it->get<std::string>(), kind) || *kind == AttentionKind::Dot) {
    *error = std::string("config.json: '") + key + "' must be \"tanh\" or \"uniform\"";
    return false;
  }
  return true;
}

// Checkpoint shape of a parameter: matrices row-major [rows, cols]; the embedding [V, E]; vectors and
// context vectors 1-D.
std::vector<int64_t> stored_shape(const std::string& name, const Mat<float>& m) {
  if (name == "embedding.weight") return {m.cols(), m.rows()};
  if (m.cols() == 1) return {m.rows()};
  if (m.rows() == 1 && name.size() > 8 && name.compare(name.size() - 8, 8, ".context") == 0) return {m.cols()};
  return {m.rows(), m.cols()};
}

}  // namespace

bool load_han_model(const std::string& config_json, const uint8_t* weights, size_t weights_size, HanModel* out,
                    std::string* error) {
  json j;
  if (!parse_config(config_json, "attnlab-han-v1", "HAN", &j, error)) return false;
  HanModel m;
  if (!read_attention(j, "word_attention", &m.config.word_attention, error) ||
      !read_attention(j, "sentence_attention", &m.config.sentence_attention, error) ||
      !config_get_int(j, "embedding_dim", 1, 4096, &m.config.embedding_dim, error) ||
      !config_get_int(j, "word_hidden_dim", 1, 4096, &m.config.word_hidden, error) ||
      !config_get_int(j, "sentence_hidden_dim", 1, 4096, &m.config.sentence_hidden, error) ||
      !config_get_int(j, "num_classes", 2, 1000, &m.config.num_classes, error) ||
      !config_get_int(j, "max_sentences", 1, 1000000, &m.split.max_sentences, error) ||
      !config_get_int(j, "max_sentence_tokens", 1, 1000000, &m.split.max_sentence_tokens, error) ||
      !config_get_int(j, "max_tokens", 0, 100000000, &m.split.max_tokens, error))
    return false;
  auto rt = j.find("split_run_together");  // optional; absent (the first models) = false
  if (rt != j.end() && !rt->is_boolean()) {
    *error = "config.json: 'split_run_together' must be true or false";
    return false;
  }
  m.split.run_together = rt != j.end() && rt->get<bool>();
  auto lc = j.find("split_lower_case");  // optional; absent (the shipped models) = false
  if (lc != j.end() && !lc->is_boolean()) {
    *error = "config.json: 'split_lower_case' must be true or false";
    return false;
  }
  m.split.lower_case_starts = lc != j.end() && lc->get<bool>();
  auto vocab = j.find("vocab");
  if (vocab == j.end() || !vocab->is_array() || vocab->size() < 2) {
    *error = "config.json: 'vocab' must be an array of at least 2 strings";
    return false;
  }
  std::vector<std::string> words;
  for (const auto& w : *vocab) {
    if (!w.is_string()) {
      *error = "config.json: 'vocab' entry " + std::to_string(words.size()) + " is not a string";
      return false;
    }
    words.push_back(w.get<std::string>());
  }
  if (!Vocab::check_words(words, error)) {
    *error = "config.json: 'vocab': " + *error;
    return false;
  }
  m.vocab = Vocab(words);
  m.config.vocab_size = m.vocab.size();
  auto names = j.find("class_names");
  if (names != j.end() && names->is_array())
    for (const auto& n : *names)
      if (n.is_string()) m.class_names.push_back(n.get<std::string>());
  if (static_cast<int>(m.class_names.size()) != m.config.num_classes) {
    m.class_names.clear();
    for (int c = 0; c < m.config.num_classes; ++c) m.class_names.push_back("class " + std::to_string(c));
  }
  json extra = json::object();
  for (const char* key : {"training", "metrics", "provenance"}) {
    auto it = j.find(key);
    if (it != j.end()) extra[key] = *it;
  }
  m.extra_json = extra.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);

  SafetensorsFile file;
  std::string st_error;
  if (!read_safetensors(weights, weights_size, &file, &st_error)) {
    *error = "model.safetensors: " + st_error;
    return false;
  }
  m.params.resize(m.config);
  const auto named = m.params.named();
  for (auto& [name, mat] : named) {
    auto it = file.tensors.find(name);
    if (it == file.tensors.end()) {
      *error = "model.safetensors: tensor '" + name + "' is missing (word attention '" +
               attention_name(m.config.word_attention) + "', sentence attention '" +
               attention_name(m.config.sentence_attention) + "')";
      return false;
    }
    const NamedTensor& t = it->second;
    const std::vector<int64_t> expect = stored_shape(name, *mat);
    if (t.shape != expect) {
      *error = "model.safetensors: tensor '" + name + "' has shape " + shape_str(t.shape) + ", the config needs " +
               shape_str(expect);
      return false;
    }
    if (expect.size() == 1 || name == "embedding.weight") {
      *mat = Eigen::Map<const Mat<float>>(t.data.data(), mat->rows(), mat->cols());
    } else {
      *mat = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          t.data.data(), mat->rows(), mat->cols());
    }
    if (!mat->allFinite()) {
      *error = "model.safetensors: tensor '" + name + "' contains NaN or infinite values";
      return false;
    }
  }
  for (const auto& [name, t] : file.tensors) {
    bool known = false;
    for (auto& nm : named) known = known || nm.first == name;
    if (!known) {
      *error = "model.safetensors: unexpected tensor '" + name + "' for this config";
      return false;
    }
  }
  *out = std::move(m);
  return true;
}

std::string han_model_config_json(const HanModel& m) {
  json j;
  j["format"] = "attnlab-han-v1";
  j["word_attention"] = attention_name(m.config.word_attention);
  j["sentence_attention"] = attention_name(m.config.sentence_attention);
  j["embedding_dim"] = m.config.embedding_dim;
  j["word_hidden_dim"] = m.config.word_hidden;
  j["sentence_hidden_dim"] = m.config.sentence_hidden;
  j["num_classes"] = m.config.num_classes;
  j["class_names"] = m.class_names;
  j["max_sentences"] = m.split.max_sentences;
  j["max_sentence_tokens"] = m.split.max_sentence_tokens;
  j["max_tokens"] = m.split.max_tokens;
  j["split_run_together"] = m.split.run_together;
  if (m.split.lower_case_starts) j["split_lower_case"] = true;  // absent = false: the files of the shipped models stay as they are
  const json extra = json::parse(m.extra_json, nullptr, false);
  if (extra.is_object())
    for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
  j["vocab"] = m.vocab.words();
  return j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<uint8_t> han_model_weights(const HanModel& m, StorageType storage) {
  std::map<std::string, NamedTensor> tensors;
  for (auto& [name, mat] : m.params.named()) {
    NamedTensor t;
    t.shape = stored_shape(name, *mat);
    if (t.shape.size() == 1 || name == "embedding.weight") {
      t.data.assign(mat->data(), mat->data() + mat->size());
    } else {
      Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rm = *mat;
      t.data.assign(rm.data(), rm.data() + rm.size());
    }
    tensors[name] = std::move(t);
  }
  return write_safetensors(tensors, storage, {{"format", "attnlab-han-v1"}});
}

HanInput han_encode(const HanModel& model, const std::string& text) {
  HanInput in;
  in.split = split_document(text, model.split);
  for (const auto& s : in.split.sentences) {
    in.ids.push_back(model.vocab.ids(s));
    std::vector<bool> unk;
    for (int id : in.ids.back()) unk.push_back(id == Vocab::kUnk);
    in.unknown.push_back(std::move(unk));
  }
  return in;
}

}  // namespace attnlab
