// Embind code of the documents lab (contract: docs/DESIGN.md "wasm module API", HanLab; convention: "Binding
// convention"): a HanLab owning one HAN model (core/model/han_checkpoint, the CLI's loader). explain() returns the
// object `attnlab explain-text --model HAN_DIR` prints (core/explain/han/explain_han: explain_han +
// han_explanation_json, the same two calls as cli/han_command.cpp). Raw names start with "_raw_" and never throw;
// wasm/facade.js exposes HanLab. Owns no math and no option logic: the splitter's cuts (max_sentences,
// max_sentence_tokens, max_tokens of the model's config) and their notes come from core/.
#include <algorithm>
#include <emscripten/bind.h>

#include "boundary.h"
#include "global_view_out.h"
#include "explain/global_view.h"
#include "explain/han/explain_han.h"
#include "model/han_checkpoint.h"

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
    if (ig_steps < 0 || ig_steps > 10000)
      return error_val("igSteps must be an integer in 0..10000, got " + std::to_string(ig_steps));
    HanExplainOptions o;
    o.ig_steps = ig_steps;
    const std::string out = han_explanation_json(explain_han(model_, text, o));
    return val::global("JSON").call<val>("parse", val(out));
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
};

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_han) {
  emscripten::class_<HanLab>("_raw_HanLab")
      .constructor<const std::string&, const val&>()
      .function("error", &HanLab::error)
      .function("info", &HanLab::info)
      .function("predict", &HanLab::predict)
      .function("explain", &HanLab::explain)
      .function("globalViewStart", &HanLab::global_view_start)
      .function("globalViewStep", &HanLab::global_view_step);
}
