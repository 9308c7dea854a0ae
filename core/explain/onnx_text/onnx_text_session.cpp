// config.json, the model / tokenizer check and the cut of a long text (onnx_text_session.h).
#include "explain/onnx_text/onnx_text_session.h"

#include <cstdlib>

namespace attnlab {

using nlohmann::json;

bool read_onnx_text_config(const std::string& text, const SubwordTokenizer& tokenizer, OnnxTextConfig* out,
                           std::string* error) {
  *out = OnnxTextConfig{};
  json config = json(nullptr);
  if (!text.empty()) {
    config = json::parse(text, nullptr, false);
    if (!config.is_object()) {
      *error = "config.json is not a JSON object: it cannot be read";
      return false;
    }
  }
  if (config.is_object()) {
    if (config.contains("id2label") && config["id2label"].is_object()) {
      std::vector<std::string> names;
      for (const auto& [k, v] : config["id2label"].items()) {
        char* end = nullptr;
        const long i = std::strtol(k.c_str(), &end, 10);
        if (end == k.c_str() || *end || i < 0 || i > 100000 || !v.is_string()) continue;
        if (static_cast<size_t>(i) >= names.size()) names.resize(static_cast<size_t>(i) + 1);
        names[static_cast<size_t>(i)] = v.get<std::string>();
      }
      for (size_t i = 0; i < names.size(); ++i)
        if (names[i].empty()) names[i] = "class " + std::to_string(i);
      if (!names.empty()) out->labels = names;
    }
    for (const char* key : {"max_position_embeddings", "n_positions", "n_ctx", "max_seq_len", "seq_len"})
      if (config.contains(key) && config[key].is_number_integer() && config[key].get<int64_t>() > 0 &&
          config[key].get<int64_t>() <= kOnnxTextMaxPositions) {
        out->max_positions = static_cast<int>(config[key].get<int64_t>());
        out->max_positions_source = std::string("config.json ") + key;
        break;
      }
    const json eos = config.value("eos_token_id", json(nullptr));
    if (eos.is_number_integer()) out->stop_ids.push_back(eos.get<int>());
    if (eos.is_array())
      for (const auto& x : eos)
        if (x.is_number_integer()) out->stop_ids.push_back(x.get<int>());
    out->model_type = config.value("model_type", json(nullptr));
  }
  if (std::string(tokenizer.kind()) == "llama2c-bpe" && out->stop_ids.empty()) out->stop_ids = {1, 2};
  return true;
}

bool check_onnx_text_pair(OnnxTextModel& model, const SubwordTokenizer& tokenizer, std::string* error) {
  std::string err;
  Tokenization t;
  tokenizer.encode("Hello", true, &t, &err);
  const std::vector<int> ids = t.ids.empty() ? std::vector<int>{0} : t.ids;
  if (!model.run(ids, &err)) {
    *error = "the model does not run on a short text (" + std::to_string(ids.size()) + " tokens): " + err;
    return false;
  }
  const int V = tokenizer.vocab_size();
  if (V <= 0) return true;
  std::vector<int> last = ids;
  last.back() = V - 1;
  if (ids.size() > 1 && t.special.back()) last[ids.size() - 2] = V - 1;
  if (!model.run(last, &err)) {
    *error = "the tokenizer's vocabulary (" + std::to_string(V) +
             " tokens) is larger than the model's embedding table: a forward pass on its last id (" +
             std::to_string(V - 1) + ") fails (" + err + "). Is this the tokenizer of this model?";
    return false;
  }
  return model.run(ids, error);
}

bool fit_onnx_text_input(OnnxTextModel& model, OnnxTextConfig* config, std::vector<int>* ids, Tokenization* t,
                         json* cut, std::string* error, bool inference) {
  const size_t total = ids->size();
  const bool with_t = t && t->size() == total;
  auto cut_to = [&](size_t k) {
    const bool keep_last = with_t && t->special.back() && k >= 2;
    auto shorten = [&](auto& v) {
      auto last = v.back();
      v.resize(k);
      if (keep_last) v.back() = last;
    };
    shorten(*ids);
    if (with_t) {
      shorten(t->ids);
      shorten(t->tokens);
      shorten(t->offsets);
      shorten(t->special);
    }
  };
  if (config->max_positions > 0 && total > static_cast<size_t>(config->max_positions))
    cut_to(static_cast<size_t>(config->max_positions));
  if (!model.run(*ids, error, inference)) {
    if (ids->size() <= 1 || config->max_positions_source == "tried") return false;
    size_t lo = 0, hi = ids->size() - 1;  // the longest prefix in [1, size − 1] that runs (lo = 0: none)
    std::vector<int> prefix;
    std::string perr;
    while (lo < hi) {
      const size_t mid = (lo + hi + 1) / 2;
      prefix.assign(ids->begin(), ids->begin() + static_cast<std::ptrdiff_t>(mid));
      if (model.run(prefix, &perr, inference)) lo = mid;
      else hi = mid - 1;
    }
    if (lo == 0) return false;  // *error: the first failure's
    error->clear();
    config->max_positions = static_cast<int>(lo);
    config->max_positions_source = "tried";
    cut_to(lo);
    if (!model.run(*ids, error, inference)) return false;
  }
  if (ids->size() < total && cut) {
    json at = json(nullptr);
    if (with_t) {
      size_t k = ids->size();
      while (k > 0 && t->special[k - 1]) --k;  // the end of the last kept token of the text
      at = k > 0 ? json(t->offsets[k - 1].second) : json(0);
    }
    *cut = {{"kept", ids->size()}, {"total", total}, {"at_byte", at}, {"max_positions", config->max_positions},
            {"source", config->max_positions_source}};
  }
  return true;
}

}  // namespace attnlab
