// The only Embind code: exposes a TextSession (one loaded text model, no globals) to JavaScript.
// Strings and typed arrays in, JSON strings and numbers out; bytes are copied into the wasm heap at
// once, and results are returned by value, so no JS view of the heap outlives a call. Owns no math.
#include <algorithm>
#include <cmath>
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <nlohmann/json.hpp>

#include "explain/explain_text.h"
#include "model/text_checkpoint.h"
#include "nn/gemm_probe.h"
#include "text/tokenizer.h"
#include "train/text_trainer.h"

namespace {

using namespace attnlab;

std::vector<uint8_t> copy_bytes(const emscripten::val& bytes) {
  const size_t n = bytes["length"].as<size_t>();
  std::vector<uint8_t> buf(n);
  emscripten::val(emscripten::typed_memory_view(n, buf.data())).call<void>("set", bytes);
  return buf;
}

std::string error_json(const std::string& message) {
  return nlohmann::json{{"error", message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

class TextSession {
 public:
  // Returns "" on success, otherwise a message naming what is wrong (the session keeps its old model).
  std::string load(const std::string& config_json, const emscripten::val& weights) {
    if (!weights.instanceof(emscripten::val::global("Uint8Array"))) return "weights must be a Uint8Array";
    const std::vector<uint8_t> buf = copy_bytes(weights);
    TextModel model;
    std::string error;
    if (!load_text_model(config_json, buf.data(), buf.size(), &model, &error)) return error;
    model_ = std::move(model);
    loaded_ = true;
    return "";
  }

  std::string explain(const std::string& text, int max_tokens, int ig_steps) const {
    if (!loaded_) return error_json("no model loaded");
    ExplainOptions options;
    options.max_tokens = max_tokens;
    options.ig_steps = ig_steps;
    return explanation_json(explain_text(model_, text, options));
  }

  // p(positive) for binary models, p(predicted class) otherwise; NaN without a model.
  double predict(const std::string& text) const {
    if (!loaded_) return std::nan("");
    const std::vector<double> p = predict_text(model_, text, 0);
    return model_.config.num_classes == 2 ? p[1] : *std::max_element(p.begin(), p.end());
  }

  // One forward + backward (all parameter gradients) on `copies` copies of the text as one batch, for
  // benchmarks (copies = 1: one sentence; 32: a training batch); returns the summed loss for `label`.
  double forward_backward_batch(const std::string& text, int label, int copies) {
    if (!loaded_ || copies < 1) return std::nan("");
    if (grads_.decoder.w.size() == 0) grads_.resize(model_.config);
    // Zero the gradients; of the (V x E) embedding gradient only the columns the last call touched.
    for (auto& [name, m] : grads_.named())
      if (name != "embedding.weight") m->setZero();
    for (int id : touched_) grads_.embedding.col(id).setZero();
    const std::vector<int> ids = model_.vocab.ids(tokenize(text));
    touched_ = ids;
    const TextBatch batch = TextBatch::from_sequences(std::vector<std::vector<int>>(copies, ids));
    return text_loss_and_gradients(model_.config, model_.params, batch, std::vector<int>(copies, label), 1.f, {},
                                   grads_);
  }
  double forward_backward(const std::string& text, int label) { return forward_backward_batch(text, label, 1); }

  std::string info() const {
    if (!loaded_) return error_json("no model loaded");
    nlohmann::json j = nlohmann::json::parse(model_.extra_json, nullptr, false);
    if (!j.is_object()) j = nlohmann::json::object();
    j["attention"] = attention_name(model_.config.attention);
    j["vocab_size"] = model_.config.vocab_size;
    j["embedding_dim"] = model_.config.embedding_dim;
    j["hidden_dim"] = model_.config.hidden_dim;
    j["num_classes"] = model_.config.num_classes;
    j["class_names"] = model_.class_names;
    j["error"] = "";
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

 private:
  TextModel model_;
  TextParams<float> grads_;
  std::vector<int> touched_;  // embedding columns with non-zero gradient
  bool loaded_ = false;
};

// Tokens of a text as the models see them (JSON array).
std::string tokenize_json(const std::string& text) {
  return nlohmann::json(tokenize(text)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab) {
  emscripten::class_<TextSession>("TextSession")
      .constructor<>()
      .function("load", &TextSession::load)
      .function("explain", &TextSession::explain)
      .function("predict", &TextSession::predict)
      .function("forwardBackward", &TextSession::forward_backward)
      .function("forwardBackwardBatch", &TextSession::forward_backward_batch)
      .function("info", &TextSession::info);
  emscripten::function("tokenize", &tokenize_json);
  emscripten::function("gemmProbe", &gemm_probe);
}
