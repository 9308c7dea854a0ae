// The only Embind code: exposes a TextSession (one loaded text model, no globals), a TextTrainer and an
// AdversaryTrainer (a model-consistent adversary of a loaded TextSession) to JavaScript.
// Strings and typed arrays in, JSON strings and numbers out; bytes are copied into the wasm heap at
// once, and results are returned by value, so no JS view of the heap outlives a call. Owns no math.
#include <algorithm>
#include <memory>
#include <cmath>
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <nlohmann/json.hpp>

#include "experiments/experiment.h"
#include "explain/explain_text.h"
#include "text/dataset.h"
#include "model/text_checkpoint.h"
#include "nn/gemm_probe.h"
#include "text/tokenizer.h"
#include "train/adversary_trainer.h"
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
    prepared_.reset();  // experiment state belongs to the old model
    prepared_key_.clear();
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

  // --- Experiments (core/experiments). params_json: an object of experiment parameters ("{}" for the
  // defaults); seed: the per-instance random streams' seed. All return JSON strings with "error" on failure.

  // One experiment on one text (the first max_tokens tokens): the experiment's row plus tokens/unknown.
  std::string experiment(const std::string& name, const std::string& text, const std::string& params_json,
                         double seed, int max_tokens) {
    std::string error;
    const Experiment* e = setup_experiment(name, params_json, seed, &error);
    if (!e) return error_json(error);
    Instance in;
    in.tokens = tokenize(text);
    if (max_tokens > 0 && static_cast<int>(in.tokens.size()) > max_tokens) in.tokens.resize(max_tokens);
    if (in.tokens.empty()) return error_json("no tokens in the text");
    in.ids = model_.vocab.ids(in.tokens);
    nlohmann::json row = run_instance(*e, model_, in, options_, prepared_.get());
    row["tokens"] = in.tokens;
    std::vector<bool> unknown;
    for (int id : in.ids) unknown.push_back(id == Vocab::kUnk);
    row["unknown"] = unknown;
    return dump(row);
  }

  // Rows [start, start + count) of a label<TAB>text data set (empty lines skipped; token-less lines give a
  // row with "skipped"). Returns {"rows": [...], "total": number of instances}.
  std::string experiment_rows(const std::string& name, const std::string& tsv, int start, int count,
                              const std::string& params_json, double seed) {
    std::string error;
    const Experiment* e = setup_experiment(name, params_json, seed, &error);
    if (!e) return error_json(error);
    if (tsv != data_text_) {
      std::vector<TextExample> parsed;
      if (!parse_labeled_tsv(tsv, &parsed, &error)) return error_json("data: " + error);
      data_ = std::move(parsed);
      data_text_ = tsv;
    }
    nlohmann::json rows = nlohmann::json::array();
    const int total = static_cast<int>(data_.size());
    for (int i = std::max(0, start); i < std::min(total, start + count); ++i) {
      Instance in{i, data_[i].label, data_[i].tokens, {}};
      if (model_.max_tokens > 0 && static_cast<int>(in.tokens.size()) > model_.max_tokens) in.tokens.resize(model_.max_tokens);
      in.ids = model_.vocab.ids(in.tokens);
      if (in.ids.empty()) {
        rows.push_back({{"index", i}, {"label", in.label}, {"skipped", "no tokens"}});
        continue;
      }
      rows.push_back(run_instance(*e, model_, in, options_, prepared_.get()));
    }
    return dump({{"rows", rows}, {"total", total}});
  }

  // The summary of rows (a JSON array of rows from experiment_rows).
  std::string experiment_summary(const std::string& name, const std::string& rows_json, const std::string& params_json,
                                 double seed) {
    std::string error;
    const Experiment* e = setup_experiment(name, params_json, seed, &error);
    if (!e) return error_json(error);
    const nlohmann::json rows = nlohmann::json::parse(rows_json, nullptr, false);
    if (!rows.is_array()) return error_json("rows must be a JSON array");
    std::vector<nlohmann::json> kept;  // experiments' summaries ignore rows marked "skipped"
    for (const auto& r : rows)
      if (r.is_object()) kept.push_back(r);
    return dump(summarize_rows(*e, model_, kept, options_));
  }

  // C++ side only (not bound): the adversary trainer copies the loaded model as its base.
  bool loaded() const { return loaded_; }
  const TextModel& model() const { return model_; }

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
  // Finds the experiment, sets options_, and (re)builds its prepared state when name/params/seed changed.
  const Experiment* setup_experiment(const std::string& name, const std::string& params_json, double seed,
                                     std::string* error) {
    if (!loaded_) {
      *error = "no model loaded";
      return nullptr;
    }
    const Experiment* e = find_experiment(name);
    if (!e) {
      *error = "unknown experiment '" + name + "'";
      return nullptr;
    }
    const nlohmann::json params = nlohmann::json::parse(params_json.empty() ? "{}" : params_json, nullptr, false);
    if (!params.is_object()) {
      *error = "experiment parameters must be a JSON object";
      return nullptr;
    }
    if (!(seed >= 0 && seed < 9007199254740992.0)) {
      *error = "seed must be a non-negative integer";
      return nullptr;
    }
    options_.seed = static_cast<uint64_t>(seed);
    options_.params = params;
    const std::string key = name + "|" + params.dump() + "|" + std::to_string(options_.seed);
    if (key != prepared_key_) {
      prepared_ = e->prepare ? e->prepare(model_, options_) : nullptr;
      prepared_key_ = key;
    }
    return e;
  }

  static std::string dump(const nlohmann::json& j) {
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

  TextModel model_;
  ExperimentOptions options_;
  std::shared_ptr<const void> prepared_;
  std::string prepared_key_;
  std::string data_text_;
  std::vector<TextExample> data_;
  TextParams<float> grads_;
  std::vector<int> touched_;  // embedding columns with non-zero gradient
  bool loaded_ = false;
};

// Training a text model in the page's worker: start (data as TSV text + options), then step() repeatedly
// (each call a bounded amount of work, so the worker can report progress and cancel between calls), then
// take the best model out as config.json text + safetensors bytes (load them into a TextSession).
class TextTrainer {
 public:
  // options_json: {"attention": "tanh"|"dot"|"uniform", "seed", "epochs", "embedding_dim", "hidden_dim",
  // "min_count", "batch_size", "lr"} (all optional). Returns "" or a message naming what is wrong.
  std::string start(const std::string& train_tsv, const std::string& dev_tsv, const std::string& options_json) {
    const nlohmann::json o = nlohmann::json::parse(options_json.empty() ? "{}" : options_json, nullptr, false);
    if (!o.is_object()) return "training options must be a JSON object";
    std::vector<TextExample> train, dev;
    std::string error;
    if (!parse_labeled_tsv(train_tsv, &train, &error)) return "training data: " + error;
    if (!parse_labeled_tsv(dev_tsv, &dev, &error)) return "dev data: " + error;
    if (train.empty() || dev.empty()) return "training and dev data must not be empty";
    auto get_int = [&](const char* key, int fallback, int lo, int hi) {
      auto it = o.find(key);
      const int v = it != o.end() && it->is_number_integer() ? it->get<int>() : fallback;
      return std::min(hi, std::max(lo, v));
    };
    TextModel m;
    const std::string attention = o.contains("attention") && o["attention"].is_string() ? o["attention"].get<std::string>() : "tanh";
    if (!parse_attention(attention, &m.config.attention)) return "attention must be tanh, dot or uniform";
    m.config.embedding_dim = get_int("embedding_dim", 128, 1, 1024);
    m.config.hidden_dim = get_int("hidden_dim", 128, 1, 1024);
    m.config.num_classes = 2;
    for (const auto& ex : train)
      if (ex.label < 0 || ex.label > 1) return "labels must be 0 or 1";
    for (const auto& ex : dev)
      if (ex.label < 0 || ex.label > 1) return "labels must be 0 or 1";
    std::vector<std::vector<std::string>> sentences;
    for (const auto& ex : train) sentences.push_back(ex.tokens);
    m.vocab = Vocab::build(sentences, get_int("min_count", 1, 1, 1000000));
    m.config.vocab_size = m.vocab.size();
    m.class_names = {"negative", "positive"};
    TrainOptions to;
    to.epochs = get_int("epochs", 8, 1, 1000);
    to.batch_size = get_int("batch_size", 32, 1, 4096);
    to.seed = static_cast<uint64_t>(get_int("seed", 1, 0, 2147483647));
    if (o.contains("lr") && o["lr"].is_number()) to.adam.lr = o["lr"].get<double>();
    Rng rng(to.seed);
    m.params.init(m.config, rng);
    auto encode = [&](const std::vector<TextExample>& data) {
      std::vector<EncodedExample> out;
      for (const auto& ex : data) out.push_back({ex.label, m.vocab.ids(ex.tokens)});
      return out;
    };
    run_ = std::make_unique<TextTrainingRun>(m.config, m.params, encode(train), encode(dev), to);
    options_ = to;
    model_ = std::move(m);
    return "";
  }

  // Up to max_batches batches (an epoch end stops early, after the dev evaluation). Progress JSON:
  // {epoch, epochs, batch, batches, train_loss, epoch_done, dev: {accuracy, f1}, best_epoch, done}.
  std::string step(int max_batches) {
    if (!run_) return error_json("training has not started");
    const TrainProgress p = run_->step(std::max(1, max_batches));
    nlohmann::json j = {{"epoch", p.epoch}, {"epochs", p.epochs}, {"batch", p.batch}, {"batches", p.batches},
                        {"train_loss", p.train_loss}, {"epoch_done", p.epoch_done}, {"best_epoch", p.best_epoch},
                        {"done", run_->done()}, {"error", ""}};
    if (p.epoch_done) j["dev"] = {{"accuracy", p.dev.accuracy}, {"f1", p.dev.f1}, {"n", p.dev.n}};
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

  // config.json of the best model so far; test metrics are added when test_tsv is non-empty.
  std::string config_json(const std::string& test_tsv) {
    if (!run_) return error_json("training has not started");
    TextModel m = best_model();
    nlohmann::json extra;
    const auto& r = run_->result();
    extra["training"] = {{"where", "in the browser (attnlab TextTrainer)"}, {"epochs", options_.epochs},
                         {"epochs_run", r.dev_per_epoch.size()}, {"best_epoch", r.best_epoch}, {"seed", options_.seed},
                         {"batch_size", options_.batch_size}, {"lr", options_.adam.lr}, {"optimizer", "adam amsgrad"},
                         {"selection", "best dev accuracy"}, {"storage", "f32"}};
    extra["metrics"]["dev"] = {{"accuracy", r.best_dev.accuracy}, {"f1", r.best_dev.f1}, {"n", r.best_dev.n}};
    if (!test_tsv.empty()) {
      std::vector<TextExample> test;
      std::string error;
      if (!parse_labeled_tsv(test_tsv, &test, &error)) return error_json("test data: " + error);
      std::vector<EncodedExample> enc;
      std::vector<int> gold;
      for (const auto& ex : test) {
        enc.push_back({ex.label, m.vocab.ids(ex.tokens)});
        gold.push_back(ex.label);
      }
      const ClassificationMetrics t = classification_metrics(predict_classes(m.config, m.params, enc), gold, 2);
      extra["metrics"]["test"] = {{"accuracy", t.accuracy}, {"f1", t.f1}, {"n", t.n}};
    }
    m.extra_json = extra.dump();
    return text_model_config_json(m);
  }

  // model.safetensors (F32) of the best model so far, as a new Uint8Array (copied out of the wasm heap).
  emscripten::val weights() {
    if (!run_) return emscripten::val::null();
    const std::vector<uint8_t> bytes = text_model_weights(best_model(), StorageType::F32);
    return emscripten::val(emscripten::typed_memory_view(bytes.size(), bytes.data())).call<emscripten::val>("slice");
  }

 private:
  TextModel best_model() const {
    TextModel m = model_;
    m.params = run_->best();
    return m;
  }

  std::unique_ptr<TextTrainingRun> run_;
  TrainOptions options_;
  TextModel model_;  // config, vocabulary, class names (parameters come from run_)
};

// Training a Wiegreffe & Pinter model-consistent adversary of a loaded model in the page's worker, with the
// same start / step / configJson / weights shape as TextTrainer (so one job loop drives both). The base is
// copied from the TextSession at construction (the session may be deleted afterwards). Same numbers as
// `attnlab experiment adversarial-training --model BASE --param train=TRAIN --param lambdas=[L]
// --param epochs=E --seed S` for the same data: the adversary starts from the same seeded weights.
class AdversaryTrainer {
 public:
  explicit AdversaryTrainer(const TextSession& base) : has_base_(base.loaded()) {
    if (has_base_) base_ = base.model();
  }

  // options_json: {"lambda" (>= 0, default 1), "seed", "epochs", "batch_size", "lr", "base" (the base
  // model's name, recorded in the config)}. The data are label<TAB>text (tokens cut to the base's
  // max_tokens, ids from the base's vocabulary). Returns "" or a message naming what is wrong.
  std::string start(const std::string& train_tsv, const std::string& dev_tsv, const std::string& options_json) {
    if (!has_base_) return "the base model is not loaded";
    if (base_.config.attention == AttentionKind::Uniform)
      return "a model-consistent adversary needs a base model with learned attention (not uniform)";
    const nlohmann::json o = nlohmann::json::parse(options_json.empty() ? "{}" : options_json, nullptr, false);
    if (!o.is_object()) return "training options must be a JSON object";
    auto get_int = [&](const char* key, int fallback, int lo, int hi) {
      auto it = o.find(key);
      const int v = it != o.end() && it->is_number_integer() ? it->get<int>() : fallback;
      return std::min(hi, std::max(lo, v));
    };
    double lambda = 1.0;
    if (o.contains("lambda")) {
      if (!o["lambda"].is_number()) return "lambda must be a number";
      lambda = o["lambda"].get<double>();
      if (!(lambda >= 0 && lambda <= 1e6)) return "lambda must be a number from 0 to 1e6";
    }
    std::string error;
    std::vector<EncodedExample> train, dev;
    if (!encode(train_tsv, &train, &error)) return "training data: " + error;
    if (!encode(dev_tsv, &dev, &error)) return "dev data: " + error;
    if (train.empty() || dev.empty()) return "training and dev data must not be empty";
    TrainOptions to;
    to.epochs = get_int("epochs", 8, 1, 1000);
    to.batch_size = get_int("batch_size", 32, 1, 4096);
    to.seed = static_cast<uint64_t>(get_int("seed", 1, 0, 2147483647));
    if (o.contains("lr") && o["lr"].is_number()) to.adam.lr = o["lr"].get<double>();
    base_name_ = o.contains("base") && o["base"].is_string() ? o["base"].get<std::string>() : "";
    TextParams<float> initial;
    Rng rng(to.seed);  // as the CLI: the adversary's initial weights from the seed
    initial.init(base_.config, rng);
    run_ = std::make_unique<AdversaryTrainingRun>(base_, std::move(initial), std::move(train), std::move(dev), lambda, to);
    return "";
  }

  // Progress JSON: {epoch, epochs, batch, batches, train_loss, epoch_done, best_epoch (the kept = last
  // finished epoch), done, dev: {tvd_mean, jsd_mean, kl_mean, accuracy, f1, n} at an epoch end}.
  std::string step(int max_batches) {
    if (!run_) return error_json("training has not started");
    const AdversaryProgress p = run_->step(std::max(1, max_batches));
    nlohmann::json j = {{"epoch", p.epoch}, {"epochs", p.epochs}, {"batch", p.batch}, {"batches", p.batches},
                        {"train_loss", p.train_loss}, {"epoch_done", p.epoch_done}, {"best_epoch", p.epochs_done},
                        {"done", run_->done()}, {"lambda", run_->lambda()}, {"error", ""}};
    if (p.has_dev) j["dev"] = comparison_json(p.dev);
    return dump(j);
  }

  // config.json of the kept model (the last finished epoch) with its dev comparison; the test comparison
  // is added when test_tsv is non-empty.
  std::string config_json(const std::string& test_tsv) {
    if (!run_) return error_json("training has not started");
    TextModel m = kept_model();
    const TrainOptions& o = run_->options();
    nlohmann::json extra;
    extra["training"] = {{"where", "in the browser (attnlab AdversaryTrainer)"},
                         {"kind", "model-consistent adversary (Wiegreffe & Pinter 2019, section 4)"},
                         {"loss", "TVD(y_adv, y_base) - lambda * KL(alpha_adv || alpha_base), summed over the batch"},
                         {"base", base_name_}, {"lambda", run_->lambda()}, {"epochs", o.epochs},
                         {"epochs_run", run_->epochs_done()}, {"best_epoch", run_->epochs_done()},
                         {"seed", o.seed}, {"batch_size", o.batch_size}, {"lr", o.adam.lr},
                         {"optimizer", "adam amsgrad"}, {"selection", "the last finished epoch"}, {"storage", "f32"}};
    if (!run_->dev_per_epoch().empty()) extra["metrics"]["dev"] = comparison_json(run_->dev_per_epoch().back());
    if (!test_tsv.empty()) {
      std::vector<EncodedExample> test;
      std::string error;
      if (!encode(test_tsv, &test, &error)) return error_json("test data: " + error);
      extra["metrics"]["test"] = comparison_json(compare_with_base(base_, run_->kept(), test));
    }
    m.extra_json = extra.dump();
    return text_model_config_json(m);
  }

  // model.safetensors (F32) of the kept model, as a new Uint8Array.
  emscripten::val weights() {
    if (!run_) return emscripten::val::null();
    const std::vector<uint8_t> bytes = text_model_weights(kept_model(), StorageType::F32);
    return emscripten::val(emscripten::typed_memory_view(bytes.size(), bytes.data())).call<emscripten::val>("slice");
  }

 private:
  bool encode(const std::string& tsv, std::vector<EncodedExample>* out, std::string* error) const {
    std::vector<TextExample> parsed;
    if (!parse_labeled_tsv(tsv, &parsed, error)) return false;
    for (auto& ex : parsed) {
      if (ex.label < 0 || ex.label >= base_.config.num_classes) {
        *error = "label " + std::to_string(ex.label) + " is not a class of the base model";
        return false;
      }
      if (base_.max_tokens > 0 && static_cast<int>(ex.tokens.size()) > base_.max_tokens) ex.tokens.resize(base_.max_tokens);
      out->push_back({ex.label, base_.vocab.ids(ex.tokens)});
    }
    return true;
  }

  static nlohmann::json comparison_json(const AdversaryComparison& c) {
    return {{"tvd_mean", c.tvd_mean}, {"jsd_mean", c.jsd_mean}, {"kl_mean", c.kl_mean}, {"n_divergence", c.n},
            {"accuracy", c.vs_gold.accuracy}, {"f1", c.vs_gold.f1}, {"n", c.vs_gold.n}};
  }

  static std::string dump(const nlohmann::json& j) {
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

  TextModel kept_model() const {
    TextModel m = base_;
    m.params = run_->kept();
    return m;
  }

  bool has_base_ = false;
  TextModel base_;
  std::string base_name_;
  std::unique_ptr<AdversaryTrainingRun> run_;
};

// [{name, description}] of every experiment.
std::string experiment_names_json() {
  nlohmann::json out = nlohmann::json::array();
  for (const Experiment& e : experiment_registry()) out.push_back({{"name", e.name}, {"description", e.description}});
  return out.dump();
}

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
      .function("experiment", &TextSession::experiment)
      .function("experimentRows", &TextSession::experiment_rows)
      .function("experimentSummary", &TextSession::experiment_summary)
      .function("info", &TextSession::info);
  emscripten::class_<TextTrainer>("TextTrainer")
      .constructor<>()
      .function("start", &TextTrainer::start)
      .function("step", &TextTrainer::step)
      .function("configJson", &TextTrainer::config_json)
      .function("weights", &TextTrainer::weights);
  emscripten::class_<AdversaryTrainer>("AdversaryTrainer")
      .constructor<const TextSession&>()
      .function("start", &AdversaryTrainer::start)
      .function("step", &AdversaryTrainer::step)
      .function("configJson", &AdversaryTrainer::config_json)
      .function("weights", &AdversaryTrainer::weights);
  emscripten::function("tokenize", &tokenize_json);
  emscripten::function("gemmProbe", &gemm_probe);
  emscripten::function("experimentNames", &experiment_names_json);
}
