// Embind code of the text lab (contract: docs/DESIGN.md "wasm module API"; convention: "Binding convention"):
// a TextLab owning one text model and what it has read (data sets, the rows of its runs, the last tokenized
// texts), and the in-page trainings. Raw names start with "_raw_" and never throw (Error values / error());
// wasm/facade.js exposes TextLab, TextTraining, AdversaryTraining. Owns no math and no option logic: core/
// (explain, experiments, train/text_options) does both.
#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <emscripten/bind.h>

#include "boundary.h"
#include "global_view_out.h"
#include "experiments/experiment.h"
#include "experiments/text_attention_model.h"
#include "explain/explain_text.h"
#include "explain/global_view.h"
#include "explain/self_attention_maps.h"
#include "model/text_checkpoint.h"
#include "nn/gemm_probe.h"
#include "parallel/parallel_for.h"
#include "text/dataset.h"
#include "text/sst_rationales.h"
#include "text/tokenizer.h"
#include "train/data_parallel.h"
#include "train/adversary_trainer.h"
#include "train/text_options.h"
#include "train/text_trainer.h"

namespace {

using namespace attnlab;
using namespace attnlab::wasm;
using nlohmann::json;

val out_json_text(const std::string& text) { return val::global("JSON").call<val>("parse", val(text)); }

class TextLab {
 public:
  TextLab(const std::string& config_json, const val& weights) {
    Err e;
    std::vector<uint8_t> buf;
    if (!u8(weights, "weights", &buf, e)) error_ = e.message;
    else if (!load_text_model(config_json, buf.data(), buf.size(), &model_, &error_) && error_.empty())
      error_ = "the model could not be loaded";
  }

  std::string error() const { return error_; }
  const TextModel& model() const { return model_; }
  int tokenizations() const { return tokenizations_; }

  val info() const {
    json j = json::parse(model_.extra_json, nullptr, false);
    if (!j.is_object()) j = json::object();
    j["attention"] = attention_name(model_.config.attention);
    j["vocab_size"] = model_.config.vocab_size;
    j["embedding_dim"] = model_.config.embedding_dim;
    j["hidden_dim"] = model_.config.hidden_dim;
    j["num_classes"] = model_.config.num_classes;
    j["class_names"] = model_.class_names;
    j["max_tokens"] = model_.max_tokens;
    return out_json(j);
  }

  // p(positive) for binary models, p(predicted class) otherwise.
  double predict(const std::string& text) const {
    const std::vector<double> p = predict_text(model_, text, 0);
    return model_.config.num_classes == 2 ? p[1] : *std::max_element(p.begin(), p.end());
  }

  // with_layers = false: the page's form, without a transformer's attention_layers (explain_text.h explanation_json).
  val explain(const std::string& text, int max_tokens, int ig_steps, bool with_layers) {
    if (max_tokens < 0 || ig_steps < 0 || ig_steps > 10000)
      return error_val("maxTokens must be >= 0 and igSteps in 0..10000");
    ExplainOptions options;
    options.max_tokens = max_tokens;
    options.ig_steps = ig_steps;
    return out_json_text(explanation_json(explain_prepared(model_, prepared(text, max_tokens), options), with_layers));
  }

  // Transformer models: every layer's and head's attention over the T+1 positions ([CLS] first) of one text,
  // as fresh typed arrays (docs/DESIGN.md "Head view"): data [L, H, n, n] (row = query, rows sum to 1), mean
  // [L, n, n] (heads averaged), rollout [L, n, n] (Abnar & Zuidema, mean fusion, through layer l), flow [L, T]
  // (max flow from each token to [CLS] through layers 0..l). One forward; the same tokenization as explain.
  val attention_maps(const std::string& text, int max_tokens) {
    if (model_.config.encoder != EncoderKind::Transformer)
      return error_val("attention maps need a transformer model: this one has one attention distribution over its "
                       "tokens, no layers or heads of self-attention");
    if (max_tokens < 0) return error_val("maxTokens must be >= 0, got " + std::to_string(max_tokens));
    const PreparedText& p = prepared(text, max_tokens);
    if (p.ids.empty()) return error_val("no tokens in the text");
    ExplainInput in;
    in.cfg = &model_.config;
    in.params = &model_.params;
    in.ids = p.ids;
    const SelfAttentionMaps m = self_attention_maps(in, false);
    const size_t L = m.layers, H = m.heads, n = m.n, T = n - 1;
    std::vector<float> data(L * H * n * n), mean(L * n * n), rollout(L * n * n), flow(L * T);
    std::vector<Mat<double>> fused;
    for (size_t l = 0; l < L; ++l) {
      for (size_t h = 0; h < H; ++h)
        for (size_t i = 0; i < n; ++i)
          for (size_t j = 0; j < n; ++j) data[((l * H + h) * n + i) * n + j] = static_cast<float>(m.A[l][h](i, j));
      fused.push_back(fuse_heads(m.A[l], HeadFusion::Mean));
      const Mat<double> r = attention_rollout(fused);
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) {
          mean[(l * n + i) * n + j] = static_cast<float>(fused[l](i, j));
          rollout[(l * n + i) * n + j] = static_cast<float>(r(i, j));
        }
      const std::vector<double> f = flow_from_maps(m, HeadFusion::Mean, static_cast<int>(l) + 1);
      for (size_t t = 0; t < T; ++t) flow[l * T + t] = static_cast<float>(f[t]);
    }
    val out = out_json({{"tokens", p.tokens}, {"unknown", p.unknown}, {"truncated", p.truncated},
                        {"num_tokens_total", p.num_tokens_total}, {"layers", L}, {"heads", H}, {"n", n},
                        {"shape", {L, H, n, n}}});
    out.set("data", out_array(data));
    out.set("mean", out_array(mean));
    out.set("rollout", out_array(rollout));
    out.set("flow", out_array(flow));
    return out;
  }

  // One experiment on one text (instance 0, no label): the row plus tokens / unknown.
  val experiment(const std::string& name, const std::string& text, const val& params, double seed, int max_tokens) {
    std::string error;
    const Experiment* e = setup(name, params, seed, &error);
    if (!e) return error_val(error);
    const PreparedText& p = prepared(text, max_tokens);
    if (p.tokens.empty()) return error_val("no tokens in the text");
    json row = run_instance(*e, model_, Instance{0, -1, p.tokens, p.ids}, options_, prepared_.get());
    row["tokens"] = p.tokens;
    row["unknown"] = p.unknown;
    return out_json(row);
  }

  // A label<TAB>text data set, parsed once and kept under name; `trees` (SST PTB trees, "" for none) gives
  // its sentences human rationales for `plausibility` (core/text/sst_rationales.h, as the CLI's --trees).
  val load_dataset(const std::string& name, const std::string& tsv, const std::string& trees) {
    std::vector<TextExample> parsed;
    std::string error;
    if (!parse_labeled_tsv(tsv, &parsed, &error)) return error_val("data set " + name + ": " + error);
    json report;
    std::vector<std::vector<int>> rationales;
    if (!trees.empty()) {
      SstTreebank bank;
      if (!bank.parse(trees, &error)) return error_val("the trees of data set " + name + ": " + error);
      SstRationaleCounts counts;
      rationales = sst_rationales(bank, parsed, &counts);
      report = sst_rationale_report(bank, counts);
    }
    for (size_t i = 0; i < parsed.size(); ++i) {
      TextExample& ex = parsed[i];
      if (model_.max_tokens > 0 && static_cast<int>(ex.tokens.size()) > model_.max_tokens) ex.tokens.resize(model_.max_tokens);
      if (i < rationales.size() && !rationales[i].empty()) rationales[i].resize(ex.tokens.size());
    }
    datasets_[name] = std::move(parsed);
    rationales_[name] = std::move(rationales);
    for (auto it = runs_.begin(); it != runs_.end();) it = it->second.dataset == name ? runs_.erase(it) : std::next(it);
    json out = {{"name", name}, {"total", datasets_[name].size()}};
    if (!report.is_null()) out["human_rationales"] = report;
    return out_json(out);
  }
  bool has_dataset(const std::string& name) const { return datasets_.count(name) > 0; }

  // Rows [start, start + count) of a loaded data set; kept for run_summary. Token-less lines give
  // {"index", "label", "skipped": "no tokens"}.
  val experiment_range(const std::string& name, const std::string& dataset, int start, int count, const val& params,
                       double seed) {
    std::string error;
    const Experiment* e = setup(name, params, seed, &error);
    if (!e) return error_val(error);
    auto d = datasets_.find(dataset);
    if (d == datasets_.end()) return error_val("data set '" + dataset + "' is not loaded (loadDataset first)");
    if (start < 0 || count < 0) return error_val("start and count must be >= 0");
    Run& run = run_for(name, dataset, seed);
    json rows = json::array();
    const int total = static_cast<int>(d->second.size());
    // The instances side by side on the core's threads (a row depends on its instance alone).
    const int end = std::max(start, std::min(total, start + count));
    const std::vector<std::vector<int>>& human = rationales_[dataset];
    std::vector<json> part(static_cast<size_t>(end - start));
    parallel_for(part.size(), [&](size_t k) {
      const int i = start + static_cast<int>(k);
      const TextExample& ex = d->second[i];
      Instance in{i, ex.label, ex.tokens, model_.vocab.ids(ex.tokens)};
      if (i < static_cast<int>(human.size())) in.rationale = human[i];
      part[k] = in.ids.empty() ? json{{"index", i}, {"label", in.label}, {"skipped", "no tokens"}}
                               : run_instance(*e, model_, in, options_, prepared_.get());
    });
    for (size_t k = 0; k < part.size(); ++k) {
      run.rows[start + static_cast<int>(k)] = part[k];
      rows.push_back(std::move(part[k]));
    }
    return out_json({{"rows", rows}, {"total", total}});
  }

  // The summary of the rows this lab produced for (name, dataset, params, seed), in index order.
  val run_summary(const std::string& name, const std::string& dataset, const val& params, double seed) {
    std::string error;
    const Experiment* e = setup(name, params, seed, &error);
    if (!e) return error_val(error);
    auto it = runs_.find(run_key(name, dataset));
    if (it == runs_.end() || it->second.rows.empty())
      return error_val("no rows of " + name + " on " + dataset + " with these parameters (experimentRange first)");
    std::vector<json> rows;
    for (const auto& [i, r] : it->second.rows) rows.push_back(r);
    return out_json(summarize_rows(*e, model_, rows, options_));
  }

  // The summary of given rows (a JS array of row objects, e.g. gathered from several workers).
  val summarize_rows_js(const std::string& name, const val& rows_val, const val& params, double seed) {
    std::string error;
    const Experiment* e = setup(name, params, seed, &error);
    if (!e) return error_val(error);
    if (!rows_val.isArray()) return error_val("rows must be an array of rows");
    const json rows = json::parse(val::global("JSON").call<std::string>("stringify", rows_val), nullptr, false);
    std::vector<json> kept;  // the experiments' summaries ignore rows marked "skipped"
    for (const auto& r : rows)
      if (r.is_object()) kept.push_back(r);
    return out_json(summarize_rows(*e, model_, kept, options_));
  }

  // The global view (core/explain/global_view.h, as `attnlab global-view --model DIR --data TRAIN.tsv`) in steps:
  // globalViewStart(tsv) reads label<TAB>text training data for the contextual scores, cut to the model's
  // max_tokens as the CLI reads --data ("" = no data: contextual scores NaN, counts 0) → {total} or an Error
  // (not a tanh model, a malformed line); globalViewStep(n) runs up to n batches → {finished: false, done, total},
  // then the view (wasm/global_view_out.h). A new start replaces a running job.
  val global_view_start(const std::string& tsv) {
    gv_job_.reset();
    std::vector<TextExample> parsed;
    std::string error;
    if (!tsv.empty() && !parse_labeled_tsv(tsv, &parsed, &error, model_.max_tokens)) return error_val("training data: " + error);
    std::vector<std::vector<int>> train;
    for (const TextExample& ex : parsed) train.push_back(model_.vocab.ids(ex.tokens));
    auto job = std::make_unique<GlobalViewJob>(model_, std::move(train));
    if (!job->error().empty()) return error_val(job->error());
    const int total = job->steps_total();
    gv_job_ = std::move(job);
    return out_json({{"total", total}, {"texts", parsed.size()}});
  }
  val global_view_step(int steps) { return global_view_steps(gv_job_, steps, model_.class_names); }

  // One forward + backward (all parameter gradients) on `copies` copies of the text as one batch, for
  // benchmarks; returns the summed loss for `label` (NaN when copies < 1).
  double forward_backward_batch(const std::string& text, int label, int copies) {
    if (copies < 1) return std::nan("");
    if (grads_.decoder.w.size() == 0) grads_.resize(model_.config);
    for (auto& [name, m] : grads_.named())
      if (name != "embedding.weight") m->setZero();
    for (int id : touched_) grads_.embedding.col(id).setZero();  // only the columns the last call touched
    const std::vector<int> ids = model_.vocab.ids(tokenize(text));
    touched_ = ids;
    const TextBatch batch = TextBatch::from_sequences(std::vector<std::vector<int>>(copies, ids));
    return text_loss_and_gradients(model_.config, model_.params, batch, std::vector<int>(copies, label), 1.f, {},
                                   grads_);
  }
  double forward_backward(const std::string& text, int label) { return forward_backward_batch(text, label, 1); }

 private:
  struct Cached {
    std::string text;
    int max_tokens;
    PreparedText prepared;
  };
  struct Run {
    std::string dataset;
    std::map<int, json> rows;  // by instance index
    uint64_t order = 0;
  };

  // The text tokenized for the model, from the last few requests (one tokenization per (text, maxTokens)).
  const PreparedText& prepared(const std::string& text, int max_tokens) {
    for (const Cached& c : cache_)
      if (c.max_tokens == max_tokens && c.text == text) return c.prepared;
    ++tokenizations_;
    if (cache_.size() >= 4) cache_.pop_front();
    cache_.push_back({text, max_tokens, prepare_text(model_, text, max_tokens)});
    return cache_.back().prepared;
  }

  std::string run_key(const std::string& name, const std::string& dataset) const {
    return name + "|" + dataset + "|" + options_.params.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "|" + std::to_string(options_.seed);
  }
  // The kept rows of a run (the 4 most recent runs are kept).
  Run& run_for(const std::string& name, const std::string& dataset, double) {
    const std::string key = run_key(name, dataset);
    Run& run = runs_[key];
    run.dataset = dataset;
    run.order = ++run_counter_;
    while (runs_.size() > 4) {
      auto oldest = std::min_element(runs_.begin(), runs_.end(),
                                     [](const auto& a, const auto& b) { return a.second.order < b.second.order; });
      runs_.erase(oldest);
    }
    return runs_[key];
  }

  // Finds the experiment, checks and sets options_, (re)builds its prepared state when name/params/seed changed.
  const Experiment* setup(const std::string& name, const val& params_val, double seed, std::string* error) {
    const Experiment* e = find_experiment(name);
    if (!e) {
      *error = "unknown experiment '" + name + "'";
      return nullptr;
    }
    Err err;
    json params;
    uint64_t s = 0;
    object_arg(params_val, "experiment parameters", &params, err);
    seed_arg(seed, &s, err);
    if (err.ok()) err.fail(check_experiment_params(*e, params));
    if (!err.ok()) {
      *error = err.message;
      return nullptr;
    }
    options_.seed = s;
    options_.params = params;
    const std::string key = name + "|" + params.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "|" + std::to_string(s);
    if (key != prepared_key_) {
      prepared_ = e->prepare ? e->prepare(TextAttentionModel(model_), options_) : nullptr;
      prepared_key_ = key;
    }
    return e;
  }

  TextModel model_;
  std::string error_;
  ExperimentOptions options_;
  std::shared_ptr<const void> prepared_;
  std::string prepared_key_;
  std::deque<Cached> cache_;
  int tokenizations_ = 0;
  std::map<std::string, std::vector<TextExample>> datasets_;
  std::map<std::string, std::vector<std::vector<int>>> rationales_;  // per data set: a mask per example, or empty
  std::map<std::string, Run> runs_;
  uint64_t run_counter_ = 0;
  TextParams<float> grads_;
  std::vector<int> touched_;  // embedding columns with non-zero gradient
  std::unique_ptr<GlobalViewJob> gv_job_;
};

val progress_json(const TrainProgress& p, bool done) {
  json j = {{"epoch", p.epoch}, {"epochs", p.epochs}, {"batch", p.batch}, {"batches", p.batches},
            {"train_loss", p.train_loss}, {"epoch_done", p.epoch_done}, {"best_epoch", p.best_epoch}, {"done", done}};
  if (p.epoch_done) j["dev"] = {{"accuracy", p.dev.accuracy}, {"f1", p.dev.f1}, {"n", p.dev.n}};
  return out_json(j);
}

// A text classifier trained in the page: constructed from the data and options (core/train/text_options), then
// step() repeatedly (bounded work per call), then the best epoch's config.json text + safetensors bytes.
class TextTraining {
 public:
  TextTraining(const std::string& train_tsv, const std::string& dev_tsv, const val& options) {
    Err e;
    json o;
    if (!object_arg(options, "training options", &o, e)) {
      error_ = e.message;
      return;
    }
    TextTrainingSetup s;
    error_ = text_training_setup(train_tsv, dev_tsv, o, &s);
    if (!error_.empty()) return;
    run_ = std::make_unique<TextTrainingRun>(s.model.config, s.model.params, std::move(s.train_set),
                                             std::move(s.dev_set), s.train);
    options_ = s.train;
    model_ = std::move(s.model);
  }
  std::string error() const { return error_; }

  // Up to max_batches batches (an epoch end stops early, after the dev evaluation).
  val step(int max_batches) { return progress_json(run_->step(std::max(1, max_batches)), run_->done()); }

  // config.json of the best model so far; test metrics are added when test_tsv is non-empty.
  val config_json(const std::string& test_tsv) const {
    TextModel m = best_model();
    json extra;
    const auto& r = run_->result();
    extra["training"] = {{"where", "in the browser (attnlab TextTrainer)"}, {"epochs", options_.epochs},
                         {"epochs_run", r.dev_per_epoch.size()}, {"best_epoch", r.best_epoch}, {"seed", options_.seed},
                         {"batch_size", options_.batch_size},
                         {"parts", static_cast<int>(train_parts(static_cast<size_t>(options_.batch_size), options_.parts))},
                         {"lr", options_.adam.lr},
                         {"optimizer", options_.use_adamw ? "adamw, linear warm-up " + std::to_string(options_.warmup_fraction) +
                                                                " of the steps, then linear decay to 0"
                                                          : "adam amsgrad"},
                         {"encoder", model_.config.encoder == EncoderKind::Transformer ? "transformer"
                                     : model_.config.orthogonal                        ? "ortho_bilstm"
                                                                                       : "bilstm"},
                         {"diversity", options_.penalties.diversity}, {"deception", options_.penalties.deception},
                         {"selection", "best dev accuracy"}, {"storage", "f32"}};
    if (options_.use_adamw) {
      extra["training"]["weight_decay"] = options_.adamw_options.weight_decay;
      extra["training"]["dropout"] = options_.dropout;
    }
    extra["metrics"]["dev"] = {{"accuracy", r.best_dev.accuracy}, {"f1", r.best_dev.f1}, {"n", r.best_dev.n}};
    if (!test_tsv.empty()) {
      std::vector<EncodedExample> test;
      const std::string error = encode_tsv_for(m, test_tsv, &test);
      if (!error.empty()) return error_val("test data: " + error);
      std::vector<int> gold;
      for (const auto& ex : test) gold.push_back(ex.label);
      const ClassificationMetrics t = classification_metrics(predict_classes(m.config, m.params, test), gold, 2);
      extra["metrics"]["test"] = {{"accuracy", t.accuracy}, {"f1", t.f1}, {"n", t.n}};
    }
    m.extra_json = extra.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return val(text_model_config_json(m));
  }

  val weights() const { return out_array(text_model_weights(best_model(), StorageType::F32)); }

 private:
  TextModel best_model() const {
    TextModel m = model_;
    m.params = run_->best();
    return m;
  }
  std::string error_;
  std::unique_ptr<TextTrainingRun> run_;
  TrainOptions options_;
  TextModel model_;  // config, vocabulary, class names (parameters come from run_)
};

// A Wiegreffe & Pinter model-consistent adversary of a loaded TextLab (copied at construction), with the same
// step / configJson / weights as TextTraining. Same numbers as `attnlab experiment adversarial-training` for the
// same data, lambda, epochs and seed.
class AdversaryTraining {
 public:
  AdversaryTraining(const TextLab& base, const std::string& train_tsv, const std::string& dev_tsv, const val& options) {
    Err e;
    json o;
    if (!base.error().empty()) error_ = "the base model is not loaded";
    else if (!object_arg(options, "training options", &o, e)) error_ = e.message;
    if (!error_.empty()) return;
    base_ = base.model();
    AdversarySetup s;
    error_ = adversary_training_setup(base_, train_tsv, dev_tsv, o, &s);
    if (!error_.empty()) return;
    base_name_ = s.base_name;
    run_ = std::make_unique<AdversaryTrainingRun>(base_, std::move(s.initial), std::move(s.train_set),
                                                  std::move(s.dev_set), s.lambda, s.train);
  }
  std::string error() const { return error_; }

  // Progress object; epoch ends add dev {tvd_mean, jsd_mean, kl_mean, accuracy, f1, n}.
  val step(int max_batches) {
    const AdversaryProgress p = run_->step(std::max(1, max_batches));
    json j = {{"epoch", p.epoch}, {"epochs", p.epochs}, {"batch", p.batch}, {"batches", p.batches},
              {"train_loss", p.train_loss}, {"epoch_done", p.epoch_done}, {"best_epoch", p.epochs_done},
              {"done", run_->done()}, {"lambda", run_->lambda()}};
    if (p.has_dev) j["dev"] = comparison_json(p.dev);
    return out_json(j);
  }

  val config_json(const std::string& test_tsv) const {
    TextModel m = kept_model();
    const TrainOptions& o = run_->options();
    json extra;
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
      const std::string error = encode_tsv_for(base_, test_tsv, &test);
      if (!error.empty()) return error_val("test data: " + error);
      extra["metrics"]["test"] = comparison_json(compare_with_base(base_, run_->kept(), test));
    }
    m.extra_json = extra.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return val(text_model_config_json(m));
  }

  val weights() const { return out_array(text_model_weights(kept_model(), StorageType::F32)); }

 private:
  static json comparison_json(const AdversaryComparison& c) {
    return {{"tvd_mean", c.tvd_mean}, {"jsd_mean", c.jsd_mean}, {"kl_mean", c.kl_mean}, {"n_divergence", c.n},
            {"accuracy", c.vs_gold.accuracy}, {"f1", c.vs_gold.f1}, {"n", c.vs_gold.n}};
  }
  TextModel kept_model() const {
    TextModel m = base_;
    m.params = run_->kept();
    return m;
  }
  std::string error_;
  TextModel base_;
  std::string base_name_;
  std::unique_ptr<AdversaryTrainingRun> run_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_text) {
  emscripten::class_<TextLab>("_raw_TextLab")
      .constructor<const std::string&, const val&>()
      .function("error", &TextLab::error)
      .function("info", &TextLab::info)
      .function("predict", &TextLab::predict)
      .function("explain", &TextLab::explain)
      .function("experiment", &TextLab::experiment)
      .function("attentionMaps", &TextLab::attention_maps)
      .function("tokenizations", &TextLab::tokenizations)
      .function("loadDataset", &TextLab::load_dataset)
      .function("hasDataset", &TextLab::has_dataset)
      .function("experimentRange", &TextLab::experiment_range)
      .function("runSummary", &TextLab::run_summary)
      .function("summarizeRows", &TextLab::summarize_rows_js)
      .function("globalViewStart", &TextLab::global_view_start)
      .function("globalViewStep", &TextLab::global_view_step)
      .function("forwardBackward", &TextLab::forward_backward)
      .function("forwardBackwardBatch", &TextLab::forward_backward_batch);
  emscripten::class_<TextTraining>("_raw_TextTraining")
      .constructor<const std::string&, const std::string&, const val&>()
      .function("error", &TextTraining::error)
      .function("step", &TextTraining::step)
      .function("configJson", &TextTraining::config_json)
      .function("weights", &TextTraining::weights);
  emscripten::class_<AdversaryTraining>("_raw_AdversaryTraining")
      .constructor<const TextLab&, const std::string&, const std::string&, const val&>()
      .function("error", &AdversaryTraining::error)
      .function("step", &AdversaryTraining::step)
      .function("configJson", &AdversaryTraining::config_json)
      .function("weights", &AdversaryTraining::weights);
  emscripten::function("gemmProbe", &gemm_probe);
}
