#include "model/text_checkpoint.h"

#include <nlohmann/json.hpp>

#include "io/config_fields.h"
#include "model/transformer_config.h"

namespace attnlab {

using nlohmann::json;

// --- Validation before allocation -------------------------------------------------------------------
// The file's tensors are checked against the config before any parameter is allocated (a config may ask
// for 4096-wide layers: resizing first would take ~1.4 GB just to say a tensor is missing).
namespace {

using Shapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;

// The tensors the config needs, with their checkpoint shapes (docs/DESIGN.md). False for an encoder not
// listed here: then only the lower bound below is checked before allocating.
bool expected_text_tensors(const TextConfig& c, Shapes* out) {
  const int64_t V = c.vocab_size, E = c.embedding_dim, H = c.hidden_dim, C = c.outputs();
  *out = {{"embedding.weight", {V, E}}};
  switch (c.encoder) {
    case EncoderKind::BiLstm:
      for (const char* dir : {"forward", "backward"}) {
        const std::string p = std::string("encoder.") + dir + ".";
        out->push_back({p + "weight_ih", {4 * H, E}});
        out->push_back({p + "weight_hh", {4 * H, H}});
        out->push_back({p + "bias", {4 * H}});
      }
      break;
    case EncoderKind::Mlp:
      out->push_back({"encoder.mlp.weight", {2 * H, E}});
      out->push_back({"encoder.mlp.bias", {2 * H}});
      break;
    default:
      return false;
  }
  if (c.attention == AttentionKind::Tanh) {
    out->push_back({"attention.w1.weight", {H, 2 * H}});
    out->push_back({"attention.w1.bias", {H}});
    out->push_back({"attention.v.weight", {1, H}});
  } else if (c.attention == AttentionKind::Dot) {
    out->push_back({"attention.v.weight", {1, 2 * H}});
  }
  out->push_back({"decoder.weight", {C, 2 * H}});
  out->push_back({"decoder.bias", {C}});
  return true;
}

bool check_text_tensors(const TextConfig& c, const SafetensorsFile& file, std::string* error) {
  Shapes expect;
  if (!expected_text_tensors(c, &expect)) {
    // Unknown encoder: at least the embedding and the decoder must be there in full.
    const uint64_t need = uint64_t(c.vocab_size) * c.embedding_dim + uint64_t(c.outputs()) * 2 * c.hidden_dim;
    uint64_t have = 0;
    for (const auto& [name, t] : file.tensors) have += t.data.size();
    if (have < need) {
      *error = "model.safetensors holds only " + std::to_string(have) +
               " values; the tensor shapes of the config need at least " + std::to_string(need);
      return false;
    }
    return true;
  }
  for (const auto& [name, shape] : expect) {
    auto it = file.tensors.find(name);
    if (it == file.tensors.end()) {
      *error = "model.safetensors: tensor '" + name + "' is missing (attention '" + attention_name(c.attention) +
               "' needs it)";
      return false;
    }
    if (it->second.shape != shape) {
      *error = "model.safetensors: tensor '" + name + "' has shape " + shape_str(it->second.shape) +
               ", the config needs " + shape_str(shape);
      return false;
    }
  }
  for (const auto& [name, t] : file.tensors) {
    bool known = false;
    for (const auto& e : expect) known = known || e.first == name;
    if (!known) {
      *error = "model.safetensors: unexpected tensor '" + name + "' for attention '" + attention_name(c.attention) + "'";
      return false;
    }
  }
  return true;
}

}  // namespace
// ------------------------------------------------------------------------------------------------------

bool load_text_model(const std::string& config_json, const uint8_t* weights, size_t weights_size, TextModel* out,
                     std::string* error) {
  json j;
  if (!parse_config(config_json, "attnlab-text-v1", "text", &j, error)) return false;
  TextModel m;
  auto att = j.find("attention");
  if (att == j.end() || !att->is_string() || !parse_attention(att->get<std::string>(), &m.config.attention)) {
    *error = "config.json: 'attention' must be one of \"tanh\", \"dot\", \"uniform\"";
    return false;
  }
  auto enc = j.find("encoder");  // optional; absent in the first checkpoints = bilstm
  if (enc != j.end()) {
    if (enc->is_string() && enc->get<std::string>() == "bilstm") m.config.encoder = EncoderKind::BiLstm;
    else if (enc->is_string() && enc->get<std::string>() == "ortho_bilstm") {
      m.config.encoder = EncoderKind::BiLstm;
      m.config.orthogonal = true;
    } else if (enc->is_string() && enc->get<std::string>() == "mlp") m.config.encoder = EncoderKind::Mlp;
    else if (enc->is_string() && enc->get<std::string>() == "transformer") m.config.encoder = EncoderKind::Transformer;
    else {
      *error = "config.json: 'encoder' must be \"bilstm\", \"ortho_bilstm\", \"mlp\" or \"transformer\"";
      return false;
    }
  }
  if (!config_get_int(j, "embedding_dim", 1, 4096, &m.config.embedding_dim, error) ||
      !config_get_int(j, "hidden_dim", 1, 4096, &m.config.hidden_dim, error) ||
      !config_get_int(j, "num_classes", 2, 1000, &m.config.num_classes, error))
    return false;
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
  std::string vocab_error;
  if (!Vocab::check_words(words, &vocab_error)) {
    *error = "config.json: 'vocab': " + vocab_error;
    return false;
  }
  m.vocab = Vocab(words);
  m.config.vocab_size = m.vocab.size();
  auto max_tokens = j.find("max_tokens");  // optional
  if (max_tokens != j.end()) {
    long long v = 0;
    if (!json_int_in(*max_tokens, 0, 1000000, &v)) {
      *error = "config.json: 'max_tokens' must be an integer in [0, 1000000]";
      return false;
    }
    m.max_tokens = static_cast<int>(v);
  }
  if (m.config.encoder == EncoderKind::Transformer &&
      !read_transformer_config(j, &m.config, &m.max_tokens, error))
    return false;
  auto names = j.find("class_names");  // optional (absent: "class 0", "class 1", ...)
  if (names != j.end()) {
    bool ok = names->is_array() && static_cast<int>(names->size()) == m.config.num_classes;
    for (size_t i = 0; ok && i < names->size(); ++i) ok = (*names)[i].is_string();
    if (!ok) {
      *error = "config.json: 'class_names' must be an array of " + std::to_string(m.config.num_classes) +
               " strings (one per class)";
      return false;
    }
    for (const auto& n : *names) m.class_names.push_back(n.get<std::string>());
  } else {
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
  if (!check_text_tensors(m.config, file, error)) return false;
  m.params.resize(m.config);
  for (auto& [name, mat] : m.params.named()) {
    auto it = file.tensors.find(name);
    if (it == file.tensors.end()) {
      *error = "model.safetensors: tensor '" + name + "' is missing (attention '" +
               attention_name(m.config.attention) + "' needs it)";
      return false;
    }
    const NamedTensor& t = it->second;
    // Checkpoint shapes are row-major [rows, cols] of the matrix, except the embedding stored [V, E]
    // (= our [E x V] column-major) and vectors stored 1-D.
    std::vector<int64_t> expect;
    const bool is_embedding = name == "embedding.weight";
    if (is_embedding) expect = {mat->cols(), mat->rows()};
    else if (mat->cols() == 1) expect = {mat->rows()};
    else expect = {mat->rows(), mat->cols()};
    if (t.shape != expect) {
      *error = "model.safetensors: tensor '" + name + "' has shape " + shape_str(t.shape) + ", the config needs " +
               shape_str(expect);
      return false;
    }
    if (is_embedding || mat->cols() == 1) {
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
    for (auto& nm : m.params.named()) known = known || nm.first == name;
    if (!known) {
      *error = "model.safetensors: unexpected tensor '" + name + "' for attention '" +
               attention_name(m.config.attention) + "'";
      return false;
    }
  }
  *out = std::move(m);
  return true;
}

std::string text_model_config_json(const TextModel& m) {
  json j;
  j["format"] = "attnlab-text-v1";
  j["attention"] = attention_name(m.config.attention);
  if (m.config.encoder == EncoderKind::Mlp) j["encoder"] = "mlp";  // bilstm stays implicit (older readers)
  if (m.config.encoder == EncoderKind::BiLstm && m.config.orthogonal) j["encoder"] = "ortho_bilstm";
  if (m.config.encoder == EncoderKind::Transformer) write_transformer_config(m.config, &j);
  j["embedding_dim"] = m.config.embedding_dim;
  j["hidden_dim"] = m.config.hidden_dim;
  j["num_classes"] = m.config.num_classes;
  if (static_cast<int>(m.class_names.size()) == m.config.num_classes) j["class_names"] = m.class_names;
  if (m.max_tokens > 0) j["max_tokens"] = m.max_tokens;
  const json extra = json::parse(m.extra_json, nullptr, false);
  if (extra.is_object())
    for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
  j["vocab"] = m.vocab.words();
  return j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<uint8_t> text_model_weights(const TextModel& m, StorageType storage) {
  std::map<std::string, NamedTensor> tensors;
  for (auto& [name, mat] : m.params.named()) {
    NamedTensor t;
    const bool is_embedding = name == "embedding.weight";
    if (is_embedding) {
      t.shape = {mat->cols(), mat->rows()};
      t.data.assign(mat->data(), mat->data() + mat->size());
    } else if (mat->cols() == 1) {
      t.shape = {mat->rows()};
      t.data.assign(mat->data(), mat->data() + mat->size());
    } else {
      t.shape = {mat->rows(), mat->cols()};
      Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rm = *mat;
      t.data.assign(rm.data(), rm.data() + rm.size());
    }
    tensors[name] = std::move(t);
  }
  return write_safetensors(tensors, storage, {{"format", "attnlab-text-v1"}});
}

}  // namespace attnlab
