// Embind code of the documents lab (contract: docs/DESIGN.md "wasm module API", HanLab; convention: "Binding
// convention"): a HanLab owning one HAN model (core/model/han_checkpoint, the CLI's loader). explain() returns the
// object `attnlab explain-text --model HAN_DIR` prints (core/explain/han/explain_han: explain_han +
// han_explanation_json, the same two calls as cli/han_command.cpp). The debate experiments on documents —
// the registry's (core/experiments/experiment.h) on core/experiments/han_attention_model.h at params.level — as
// TextLab offers them on the flat models: loadDataset / hasDataset, then experimentRange over an index range (rows =
// the CLI's `attnlab experiment NAME --model HAN_DIR` rows, side by side on the core's threads) and summarizeRows
// (its summary), so the page runs chunks with progress and cancel. Raw names start with "_raw_" and never throw;
// wasm/facade.js exposes HanLab. Owns no math and no option logic: the splitter's cuts (max_sentences,
// max_sentence_tokens, max_tokens of the model's config) and their notes come from core/.
#include <algorithm>
#include <map>
#include <emscripten/bind.h>

#include "boundary.h"
#include "global_view_out.h"
#include "explain/global_view.h"
#include "experiments/experiment.h"
#include "experiments/han_attention_model.h"
#include "explain/han/explain_han.h"
#include "text/dataset.h"
#include "model/han_checkpoint.h"
#include "parallel/parallel_for.h"

namespace {

using namespace attnlab;
using namespace attnlab::wasm;
using nlohmann::json;

class HanLab {
 public:
  HanLab(const std::string& config_json, const val& weights) {
    Err e;
    std::vector<uint8_t> buf;
    if (!u8(weights, "weights", &buf, e)) {
      error_ = e.message;
    } else if (config_format(config_json) != "attnlab-han-v1") {
      error_ = "config.json is not a HAN model (\"format\" must be \"attnlab-han-v1\")";
    } else if (!load_han_model(config_json, buf.data(), buf.size(), &model_, &error_) && error_.empty()) {
      error_ = "the model could not be loaded";
    }
  }

  std::string error() const { return error_; }

  // The config without its vocabulary, plus vocab_size (what the page shows about the model).
  val info() const {
    json j = json::parse(han_model_config_json(model_), nullptr, false);
    if (!j.is_object()) j = json::object();
    j.erase("vocab");
    j["vocab_size"] = model_.config.vocab_size;
    j["model_kind"] = "han";
    return out_json(j);
  }

  // Class probabilities of one document.
  val predict(const std::string& text) const {
    const std::vector<double> p = predict_han(model_, text);
    return out_json(p);
  }

  // The explain-text object (docs/DESIGN.md "HAN explain"); igSteps in 0..10000 as the CLI's --ig-steps.
  val explain(const std::string& text, int ig_steps) const {
    if (ig_steps < 0 || ig_steps > 10000) return ig_steps_error(ig_steps);
    return explanation_val(explain_han(model_, text, {ig_steps}));
  }

  // The same explanation in stages (core HanExplainJob), so the page shows progress and can stop between them:
  // explainStart(text, igSteps) → {job, done: 0, total, stage} (a new start replaces the job before it);
  // explainStep(job) computes one stage → {finished, done, total, stage}; explainResult(job) → explain()'s object
  // once finished. A job number that is not the current one gets an Error (another explanation replaced it).
  val explain_start(const std::string& text, int ig_steps) {
    explain_job_.reset();
    if (ig_steps < 0 || ig_steps > 10000) return ig_steps_error(ig_steps);
    explain_job_ = std::make_unique<HanExplainJob>(model_, text, HanExplainOptions{ig_steps});
    return explain_state(++explain_id_);
  }
  val explain_step(int job) {
    if (!explain_job_ || job != explain_id_) return error_val("this explanation was replaced by another one");
    explain_job_->step();
    return explain_state(job);
  }
  val explain_result(int job) const {
    if (!explain_job_ || job != explain_id_) return error_val("this explanation was replaced by another one");
    if (!explain_job_->finished()) return error_val("this explanation is not finished");
    return explanation_val(explain_job_->result());
  }

  // The global view at level "word" or "sentence" (core/explain/global_view.h, as `attnlab global-view --model
  // HAN_DIR --data TRAIN.tsv --level L`) in steps: globalViewStart(texts, level) takes the training documents'
  // texts (a JS array of strings: the TSV's text fields, as the CLI reads them; [] = no data) → {total} or an
  // Error (a level without additive attention); globalViewStep(n) as TextLab's (wasm/global_view_out.h).
  val global_view_start(const val& texts, const std::string& level) {
    gv_job_.reset();
    if (!texts.isArray()) return error_val("texts must be an array of strings");
    const size_t n = texts["length"].as<size_t>();
    std::vector<HanDocument> docs;
    for (size_t i = 0; i < n; ++i) {
      const val t = texts[i];
      if (!t.isString()) return error_val("texts[" + std::to_string(i) + "] must be a string");
      docs.push_back(han_encode(model_, t.as<std::string>()).ids);
    }
    auto job = std::make_unique<GlobalViewJob>(model_, std::move(docs), level);
    if (!job->error().empty()) return error_val(job->error());
    const int total = job->steps_total();
    gv_job_ = std::move(job);
    return out_json({{"total", total}, {"texts", n}});
  }
  val global_view_step(int steps) { return global_view_steps(gv_job_, steps, model_.class_names); }

 private:
  std::string error_;
  HanModel model_;
  std::unique_ptr<GlobalViewJob> gv_job_;
  std::unique_ptr<HanExplainJob> explain_job_;
  int explain_id_ = 0;

  static val ig_steps_error(int ig_steps) {
    return error_val("igSteps must be an integer in 0..10000, got " + std::to_string(ig_steps));
  }
  // The "HAN explain" object as a JS object (han_explanation_json, the CLI's JSON).
  static val explanation_val(const HanExplanation& e) {
    return val::global("JSON").call<val>("parse", val(han_explanation_json(e)));
  }
  val explain_state(int job) const {
    return out_json({{"job", job}, {"finished", explain_job_->finished()}, {"done", explain_job_->done()},
                     {"total", explain_job_->total()}, {"stage", explain_job_->stage()}});
  }

  // ---- the debate experiments on documents ----
 public:
  // A label<TAB>text data set (the raw texts: core/text/dataset.h parse_raw_labeled_tsv, the CLI's parser),
  // split and encoded once (han_encode, the model's limits) and kept under name.
  val load_dataset(const std::string& name, const std::string& tsv) {
    std::vector<RawTextExample> raw;
    std::string error;
    if (!parse_raw_labeled_tsv(tsv, &raw, &error)) return error_val("data set " + name + ": " + error);
    std::vector<Instance> docs;
    for (size_t i = 0; i < raw.size(); ++i)
      docs.push_back(han_instance_of(static_cast<int>(i), raw[i].label, han_encode(model_, raw[i].text).ids));
    datasets_[name] = std::move(docs);
    return out_json({{"name", name}, {"total", datasets_[name].size()}});
  }
  bool has_dataset(const std::string& name) const { return datasets_.count(name) > 0; }

  // Rows [start, start + count) of a loaded data set: {rows, total}.
  val experiment_range(const std::string& name, const std::string& dataset, int start, int count, const val& params,
                       double seed) {
    Setup st;
    const std::string error = setup(name, params, seed, &st);
    if (!error.empty()) return error_val(error);
    auto d = datasets_.find(dataset);
    if (d == datasets_.end()) return error_val("data set '" + dataset + "' is not loaded (loadDataset first)");
    if (start < 0 || count < 0) return error_val("start and count must be >= 0");
    const HanAttentionModel han(model_, st.word);
    const int total = static_cast<int>(d->second.size());
    const int end = std::max(start, std::min(total, start + count));
    std::vector<json> part(static_cast<size_t>(end - start));
    parallel_for(part.size(), [&](size_t k) {  // a row depends on its instance alone
      part[k] = run_instance(*st.e, han, d->second[start + static_cast<int>(k)], st.options, st.prepared.get());
    });
    json rows = json::array();
    for (json& r : part) rows.push_back(std::move(r));
    return out_json({{"rows", rows}, {"total", total}});
  }

  // The summary of given rows (a JS array of row objects, e.g. gathered from several workers); the experiments'
  // summaries read fields with row_number / row_flag and leave out rows marked "skipped".
  val summarize_rows(const std::string& name, const val& rows_val, const val& params, double seed) {
    Setup st;
    const std::string error = setup(name, params, seed, &st);
    if (!error.empty()) return error_val(error);
    if (!rows_val.isArray()) return error_val("rows must be an array of rows");
    const json rows = json::parse(val::global("JSON").call<std::string>("stringify", rows_val), nullptr, false);
    if (!rows.is_array()) return error_val("rows must be an array of rows");
    std::vector<json> kept;
    for (const auto& r : rows)
      if (r.is_object()) kept.push_back(r);
    return out_json(attnlab::summarize_rows(*st.e, HanAttentionModel(model_, st.word), kept, st.options));
  }

 private:
  std::map<std::string, std::vector<Instance>> datasets_;

  struct Setup {
    const Experiment* e = nullptr;
    ExperimentOptions options;
    bool word = false;
    std::shared_ptr<const void> prepared;
  };
  // The experiment, its options (params as the CLI's --param, its level taken out; seed) or a message:
  // check_han_experiment, as the CLI.
  std::string setup(const std::string& name, const val& params_val, double seed, Setup* st) const {
    st->e = find_experiment(name);
    if (!st->e) return "unknown experiment '" + name + "'";
    Err err;
    json params;
    uint64_t s = 0;
    object_arg(params_val, "experiment parameters", &params, err);
    seed_arg(seed, &s, err);
    if (!err.ok()) return err.message;
    if (std::string why = check_han_experiment(*st->e, model_, &params, &st->word); !why.empty()) return why;
    const HanAttentionModel han(model_, st->word);
    st->options.seed = s;
    st->options.params = params;
    st->prepared = st->e->prepare ? st->e->prepare(han, st->options) : nullptr;
    return "";
  }
};

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_han) {
  emscripten::class_<HanLab>("_raw_HanLab")
      .constructor<const std::string&, const val&>()
      .function("error", &HanLab::error)
      .function("info", &HanLab::info)
      .function("predict", &HanLab::predict)
      .function("explain", &HanLab::explain)
      .function("explainStart", &HanLab::explain_start)
      .function("explainStep", &HanLab::explain_step)
      .function("explainResult", &HanLab::explain_result)
      .function("globalViewStart", &HanLab::global_view_start)
      .function("globalViewStep", &HanLab::global_view_step)
      .function("loadDataset", &HanLab::load_dataset)
      .function("hasDataset", &HanLab::has_dataset)
      .function("experimentRange", &HanLab::experiment_range)
      .function("summarizeRows", &HanLab::summarize_rows);
}
