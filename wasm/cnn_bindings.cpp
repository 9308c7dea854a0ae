// The only Embind code for the localization lab (contract: docs/DESIGN.md "Localization lab"). Owns no math:
// it parses the JSON options, calls core/ (train/cnn_trainer.h, experiments/cnn_formation.h, experiments/cnn_erasing.h, model/cnn_checkpoint.h)
// and copies results out as JSON strings or fresh typed arrays (never views of the heap).
// Errors: nothing is thrown inside wasm. Raw Embind names start with "_cnn_"; a handle whose error() is
// non-empty or a returned JS Error object is turned into a thrown Error by the small JS facade installed at
// start-up (install_cnn_facade), which exposes:
//   new Module.CnnTrainer(options)   options (object or JSON): head gap|gmp|lse, lseR, cbam (none | all |
//       stage1.. | comma list), confounder [0,1], seed, epochs, imageSize, classes, widths [..], pool [..],
//       trainSize (images per epoch), valSize, batchSize, optimizer sgd|adam, lr, momentum, weightDecay,
//       textureContrast, probes (number of probe images, 1..16; default 6, also for a loaded model), testSize (metrics images).
//   Module.loadCnnModel(configJsonText, weightsUint8Array) → a CnnTrainer holding that model (no training).
//   trainer.step(maxBatches) → progress {epoch, epochs, batch, batches, train_loss, train_accuracy, images,
//       epoch_done, stats?: {epoch, train_loss, train_accuracy, val_loss, val_accuracy}, done}
//   trainer.probes() → the first `probes` de-correlated test images (experiments/cnn_formation.h):
//       {n, size, classes, labels, predicted, backgrounds, images Float32Array [n·3·S·S] (planar RGB in [0,1]),
//       masks Uint8Array [n·S·S], cam {h, w, data Float32Array [n·h·w]} (true class, raw),
//       spatial [{stage, h, w, data}] (stages with CBAM)}
//   trainer.metrics(n?) → {decorrelated: {...}, confounded?: {...}} each {n, accuracy, loss, pointing_game,
//       mask_iou, energy_in_mask, background_energy, mask_fraction, cbam_spatial?}
//   trainer.erase(k, threshold, n?, keep?) → adversarial erasing on the first n de-correlated test images
//       (experiments/cnn_erasing.h, fill 0.5): {steps: [{step 1..k, still_correct, recall, precision,
//       union_area, step_area}], k, n, keep, size, threshold, fill, and the pictures of the first `keep`
//       images (experiments/cnn_erasing_trace.h): images Float32Array [keep·k·3·S·S] (before each step),
//       maps [keep·k·S·S], unions Uint8Array [keep·k·S·S] (after each step), masks Uint8Array [keep·S·S]}
//   trainer.weights() → Uint8Array (model.safetensors, F32); trainer.configJson() → config.json text;
//   trainer.done(), trainer.delete().
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <emscripten/bind.h>
#include <emscripten/em_js.h>
#include <emscripten/em_macros.h>
#include <emscripten/val.h>
#include <nlohmann/json.hpp>

#include "model/cnn_checkpoint.h"
#include "experiments/cnn_erasing.h"
#include "experiments/cnn_erasing_trace.h"
#include "experiments/cnn_formation.h"
#include "train/cnn_trainer.h"

namespace {

using emscripten::val;
using nlohmann::json;
using namespace attnlab;

val cnn_error(const std::string& message) { return val::global("Error").new_(val(message)); }

template <class T>
val out_array(const std::vector<T>& v) {
  return val(emscripten::typed_memory_view(v.size(), v.data())).call<val>("slice");
}

std::string num_text(double v) { return v == std::floor(v) && std::fabs(v) < 1e15 ? std::to_string(static_cast<long long>(v)) : json(v).dump(); }

json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

// Reads option `key` of j (absent: keeps *out). Numbers are checked for type and range; never throws.
struct Options {
  const json& j;
  std::string error;
  bool number(const char* key, double lo, double hi, double* out) {
    if (!error.empty() || !j.contains(key)) return error.empty();
    const json& v = j[key];
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < lo || v.get<double>() > hi) {
      error = std::string(key) + " must be a number in [" + num_text(lo) + ", " + num_text(hi) + "]";
      return false;
    }
    *out = v.get<double>();
    return true;
  }
  bool integer(const char* key, double lo, double hi, int* out) {
    double d = *out;
    if (!number(key, lo, hi, &d)) return false;
    if (d != std::floor(d)) {
      error = std::string(key) + " must be an integer";
      return false;
    }
    *out = static_cast<int>(d);
    return true;
  }
  bool text(const char* key, std::string* out) {
    if (!error.empty() || !j.contains(key)) return error.empty();
    if (!j[key].is_string()) {
      error = std::string(key) + " must be a string";
      return false;
    }
    *out = j[key].get<std::string>();
    return true;
  }
  template <class F>
  bool list(const char* key, F each) {
    if (!error.empty() || !j.contains(key)) return error.empty();
    if (!j[key].is_array() || j[key].empty() || j[key].size() > 8) {
      error = std::string(key) + " must be a list of 1..8 values";
      return false;
    }
    for (const json& v : j[key])
      if (!each(v)) {
        if (error.empty()) error = std::string(key) + " has a bad value";
        return false;
      }
    return true;
  }
};

json eval_json(const CnnEvalResult& r) {
  json j = {{"n", r.n}, {"accuracy", r.accuracy}, {"loss", r.loss}, {"pointing_game", r.pointing_game},
            {"mask_iou", r.mask_iou}, {"energy_in_mask", r.energy_in_mask},
            {"background_energy", r.background_energy}, {"mask_fraction", r.mask_fraction}};
  json e = json::array(), p = json::array();
  bool any = false;
  for (size_t s = 0; s < r.cbam_energy_in_mask.size(); ++s) {
    e.push_back(finite_or_null(r.cbam_energy_in_mask[s]));
    p.push_back(finite_or_null(r.cbam_pointing_game[s]));
    any = any || std::isfinite(r.cbam_energy_in_mask[s]);
  }
  if (any) j["cbam_spatial"] = {{"energy_in_mask", e}, {"pointing_game", p}};
  return j;
}

class CnnTrainer {
 public:
  // Training from options (JSON text).
  explicit CnnTrainer(const std::string& options_json) {
    const json j = json::parse(options_json, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      error_ = "CnnTrainer: options must be a JSON object";
      return;
    }
    Options o{j};
    CnnConfig& cfg = model_.config;
    std::string head = "gap", cbam = "none";
    double seed = 1;
    o.text("head", &head);
    o.text("cbam", &cbam);
    o.number("lseR", 1e-3, 1000, &cfg.lse_r);
    o.number("seed", 0, 2147483647, &seed);
    o.integer("imageSize", 16, 128, &cfg.image_size);
    o.integer("classes", 2, 5, &cfg.num_classes);
    o.integer("cbamReduction", 1, 64, &cfg.cbam_reduction);
    std::vector<int> widths;
    std::vector<bool> pool;
    if (o.list("widths", [&](const json& v) {
          if (!v.is_number_integer() || v.get<int>() < 1 || v.get<int>() > 256) return false;
          widths.push_back(v.get<int>());
          return true;
        }) && !widths.empty()) {
      cfg.widths = widths;
      cfg.pool.assign(widths.size(), false);
      for (size_t s = 0; s + 1 < widths.size(); ++s) cfg.pool[s] = true;
      cfg.cbam.assign(widths.size(), false);
    }
    if (o.list("pool", [&](const json& v) {
          if (!v.is_boolean()) return false;
          pool.push_back(v.get<bool>());
          return true;
        }) && !pool.empty()) {
      if (pool.size() != cfg.widths.size()) o.error = "pool must have one entry per stage (" + std::to_string(cfg.widths.size()) + ")";
      cfg.pool = pool;
    }
    CnnTrainOptions& t = options_;
    o.integer("epochs", 1, 200, &t.epochs);
    o.integer("trainSize", 1, 1000000, &t.train_size);
    o.integer("valSize", 1, 100000, &t.val_size);
    o.integer("batchSize", 1, 1024, &t.batch_size);
    o.text("optimizer", &t.optimizer);
    o.number("lr", 0, 10, &t.lr);
    o.number("momentum", 0, 1, &t.momentum);
    o.number("weightDecay", 0, 1, &t.weight_decay);
    o.number("confounder", 0, 1, &t.data.confounder);
    o.number("textureContrast", 0, 1, &t.data.texture_contrast);
    o.integer("probes", 1, 16, &probes_);
    o.integer("testSize", 1, 100000, &test_size_);
    if (!o.error.empty()) {
      error_ = "CnnTrainer: " + o.error;
      return;
    }
    if (!parse_pool_head(head, &cfg.head)) {
      error_ = "CnnTrainer: head must be gap, gmp or lse, got '" + head + "'";
      return;
    }
    if (t.optimizer != "sgd" && t.optimizer != "adam") {
      error_ = "CnnTrainer: optimizer must be sgd or adam";
      return;
    }
    if (!parse_cbam_placement(cbam, cfg.stages(), &cfg.cbam)) {
      error_ = "CnnTrainer: cbam must be none, all, or stage1..stage" + std::to_string(cfg.stages()) +
               " (comma-separated), got '" + cbam + "'";
      return;
    }
    t.seed = static_cast<uint64_t>(seed);
    t.data.image_size = cfg.image_size;
    t.data.num_classes = cfg.num_classes;
    const std::string bad = check_cnn_train_options(cfg, t);
    if (!bad.empty()) {
      error_ = "CnnTrainer: " + bad;
      return;
    }
    for (int k = 0; k < cfg.num_classes; ++k) model_.class_names.push_back(shape_kind_name(k));
    Rng rng(t.seed);  // as `attnlab train-cnn`: the seed fixes the initial weights too
    model_.params.init(cfg, rng);
    run_ = std::make_unique<CnnTrainingRun>(cfg, model_.params, t);
    if (!run_->error().empty()) error_ = "CnnTrainer: " + run_->error();
  }

  // A loaded model (no training).
  CnnTrainer(const std::string& config_json, const val& weights) {
    if (!weights.instanceof(val::global("Uint8Array"))) {
      error_ = "loadCnnModel: the weights must be a Uint8Array (model.safetensors bytes)";
      return;
    }
    const size_t n = weights["length"].as<size_t>();
    std::vector<uint8_t> bytes(n);
    if (n) val(emscripten::typed_memory_view(n, bytes.data())).call<void>("set", weights);
    std::string err;
    if (!load_cnn_model(config_json, bytes.data(), bytes.size(), &model_, &err)) {
      error_ = "loadCnnModel: " + err;
      return;
    }
    options_.data.image_size = model_.config.image_size;
    options_.data.num_classes = model_.config.num_classes;
    const json extra = json::parse(model_.extra_json, nullptr, false);
    if (extra.is_object() && extra.contains("training") && extra["training"].is_object()) {
      const json& tr = extra["training"];
      if (tr.contains("seed") && tr["seed"].is_number_unsigned()) options_.seed = tr["seed"].get<uint64_t>();
      if (tr.contains("confounder") && tr["confounder"].is_number()) {
        const double p = tr["confounder"].get<double>();
        if (p >= 0 && p <= 1) options_.data.confounder = p;
      }
      if (tr.contains("texture_contrast") && tr["texture_contrast"].is_number()) {
        const double c = tr["texture_contrast"].get<double>();
        if (c >= 0 && c <= 1) options_.data.texture_contrast = c;
      }
      if (tr.contains("epochs") && tr["epochs"].is_number_integer()) options_.epochs = tr["epochs"].get<int>();
    }
    loaded_ = true;
  }

  std::string error() const { return error_; }
  bool done() const { return error_.empty() && (loaded_ || (run_ && run_->done())); }

  std::string step(int max_batches) {
    if (!error_.empty()) return json{{"error", error_}}.dump();
    if (!run_) return json{{"error", "step: a loaded model does not train"}}.dump();
    if (run_->done()) return json{{"error", "step: the training has finished"}}.dump();
    const CnnTrainProgress p = run_->step(std::max(1, max_batches));
    json j = {{"epoch", p.epoch}, {"epochs", p.epochs}, {"batch", p.batch}, {"batches", p.batches},
              {"train_loss", p.train_loss}, {"train_accuracy", p.train_accuracy}, {"images", p.images},
              {"epoch_done", p.epoch_done}, {"done", run_->done()}};
    if (p.epoch_done)
      j["stats"] = {{"epoch", p.stats.epoch}, {"train_loss", p.stats.train_loss},
                    {"train_accuracy", p.stats.train_accuracy}, {"val_loss", p.stats.val_loss},
                    {"val_accuracy", p.stats.val_accuracy}};
    if (!run_->error().empty()) j["error"] = run_->error();
    return j.dump();
  }

  val probes() const {
    if (!error_.empty()) return cnn_error(error_);
    const CnnConfig& cfg = model_.config;
    const ShapesDataset data(test_config(0.0), options_.seed, Split::Test, probes_);
    std::vector<int> idx(probes_);
    for (int i = 0; i < probes_; ++i) idx[i] = i;
    Mat<float> x;
    std::vector<int> label_list;
    std::vector<std::vector<uint8_t>> mask_list;
    data.batch(idx, x, label_list, &mask_list);
    const CnnProbeMaps pm = cnn_probe_maps(cfg, params(), x, label_list);
    std::vector<float> images(x.data(), x.data() + x.size()), cams;
    std::vector<uint8_t> masks;
    val labels = val::array(), predicted = val::array(), backgrounds = val::array();
    for (size_t i = 0; i < pm.probes.size(); ++i) {
      const CnnProbeMap& p = pm.probes[i];
      masks.insert(masks.end(), mask_list[i].begin(), mask_list[i].end());
      cams.insert(cams.end(), p.cam.begin(), p.cam.end());
      labels.call<void>("push", p.label);
      predicted.call<void>("push", p.predicted);
      backgrounds.call<void>("push", data.example(idx[i]).background);
    }
    val cam = val::object();
    cam.set("h", pm.h);
    cam.set("w", pm.w);
    cam.set("data", out_array(cams));
    val spatial = val::array();
    for (int s = 0; s < cfg.stages(); ++s) {
      if (pm.probes.empty() || pm.probes[0].cbam.size() <= size_t(s) || pm.probes[0].cbam[s].empty()) continue;
      std::vector<float> d;
      for (const CnnProbeMap& p : pm.probes) d.insert(d.end(), p.cbam[s].begin(), p.cbam[s].end());
      const FeatureShape sh = cfg.stage_cbam_shape(s);
      val m = val::object();
      m.set("stage", s + 1);
      m.set("h", sh.h);
      m.set("w", sh.w);
      m.set("data", out_array(d));
      spatial.call<void>("push", m);
    }
    val r = val::object();
    r.set("n", static_cast<int>(pm.probes.size()));
    r.set("size", cfg.image_size);
    r.set("classes", cfg.num_classes);
    r.set("labels", labels);
    r.set("predicted", predicted);
    r.set("backgrounds", backgrounds);
    r.set("images", out_array(images));
    r.set("masks", out_array(masks));
    r.set("cam", cam);
    r.set("spatial", spatial);
    return r;
  }

  std::string metrics(int n) const {
    if (!error_.empty()) return json{{"error", error_}}.dump();
    if (n < 1) n = test_size_;
    if (n > 100000) return json{{"error", "metrics: n must be at most 100000"}}.dump();
    json j;
    j["decorrelated"] = eval_json(evaluate_cnn(model_.config, params(), ShapesDataset(test_config(0.0), options_.seed, Split::Test, n)));
    if (options_.data.confounder > 0)
      j["confounded"] = eval_json(evaluate_cnn(model_.config, params(),
                                               ShapesDataset(test_config(options_.data.confounder), options_.seed, Split::Test, n)));
    j["confounder"] = options_.data.confounder;
    return j.dump();
  }

  val erase(int k, double threshold, int n, int keep) const {
    if (!error_.empty()) return cnn_error(error_);
    if (k < 1 || k > 8) return cnn_error("erase: k (steps) must be an integer in 1..8, got " + std::to_string(k));
    if (!(threshold > 0 && threshold < 1)) return cnn_error("erase: threshold must be in (0, 1)");
    if (n < 1 || n > 5000) return cnn_error("erase: n must be in 1..5000");
    keep = std::max(0, std::min(keep, std::min(n, 16)));
    const CnnConfig& cfg = model_.config;
    const ShapesDataset data(test_config(0.0), options_.seed, Split::Test, n);
    CnnErasingOptions eo;
    eo.steps = k;
    eo.threshold = threshold;
    const CnnErasingResult r = run_cnn_erasing(cfg, params(), data, eo);
    json steps = json::array();
    for (int s = 0; s < k; ++s)
      steps.push_back({{"step", s + 1}, {"still_correct", r.still_correct[s]}, {"recall", r.recall[s]},
                       {"precision", r.precision[s]}, {"union_area", r.union_area[s]}, {"step_area", r.step_area[s]}});
    const CnnErasingTrace t = trace_cnn_erasing(cfg, params(), data, keep, eo);
    std::vector<float> images, maps;
    std::vector<uint8_t> unions, masks;
    for (int i = 0; i < t.n; ++i) {
      for (const auto& im : t.images[i]) images.insert(images.end(), im.begin(), im.end());
      for (const auto& m : t.maps[i]) maps.insert(maps.end(), m.begin(), m.end());
      for (const auto& u : t.unions[i]) unions.insert(unions.end(), u.begin(), u.end());
      masks.insert(masks.end(), t.masks[i].begin(), t.masks[i].end());
    }
    val out = val::object();
    out.set("steps", val(steps.dump()));
    out.set("k", k);
    out.set("n", n);
    out.set("keep", t.n);
    out.set("size", cfg.image_size);
    out.set("threshold", threshold);
    out.set("fill", eo.fill);
    out.set("images", out_array(images));
    out.set("maps", out_array(maps));
    out.set("unions", out_array(unions));
    out.set("masks", out_array(masks));
    return out;
  }

  val weights() const {
    if (!error_.empty()) return cnn_error(error_);
    CnnModel m = current();
    return out_array(cnn_model_weights(m, StorageType::F32));
  }

  std::string config_json() const {
    if (!error_.empty()) return "";
    return cnn_model_config_json(current());
  }

 private:
  ShapesConfig test_config(double confounder) const {
    ShapesConfig d = options_.data;
    d.confounder = confounder;
    return d;
  }
  const CnnParams<float>& params() const { return run_ ? run_->params() : model_.params; }

  CnnModel current() const {
    CnnModel m = model_;
    if (!run_) return m;
    m.params = run_->params();
    json per_epoch = json::array();
    for (const CnnEpochStats& s : run_->history())
      per_epoch.push_back({{"epoch", s.epoch}, {"train_loss", s.train_loss}, {"train_accuracy", s.train_accuracy},
                           {"val_loss", s.val_loss}, {"val_accuracy", s.val_accuracy}});
    const CnnTrainOptions& o = run_->options();
    json extra;
    extra["training"] = {{"where", "in the browser (attnlab CnnTrainer, wasm)"},
                         {"data", "procedural shapes (core/data/shapes_dataset), seed " + std::to_string(o.seed)},
                         {"seed", o.seed}, {"confounder", o.data.confounder},
                         {"texture_contrast", o.data.texture_contrast}, {"train_size", o.train_size},
                         {"val_size", o.val_size}, {"epochs", o.epochs}, {"epochs_done", run_->history().size()},
                         {"batch_size", o.batch_size}, {"optimizer", o.optimizer}, {"lr", o.lr},
                         {"momentum", o.momentum}, {"weight_decay", o.weight_decay},
                         {"loss", "softmax cross-entropy (mean over the batch)"}, {"selection", "last epoch"},
                         {"storage", "f32"}, {"per_epoch", per_epoch}};
    m.extra_json = extra.dump();
    return m;
  }

  CnnModel model_;
  CnnTrainOptions options_;
  std::unique_ptr<CnnTrainingRun> run_;
  std::string error_;
  int probes_ = 6, test_size_ = 500;
  bool loaded_ = false;
};

CnnTrainer* load_cnn_model_raw(const std::string& config_json, const val& weights) {
  return new CnnTrainer(config_json, weights);
}

EM_JS(void, install_cnn_facade, (), {
  var M = Module;
  function check(r) {
    if (r instanceof Error) throw r;
    return r;
  }
  function parsed(text) {
    var j = JSON.parse(text);
    if (j && j.error) throw new Error(j.error);
    return j;
  }
  function CnnTrainer(options) {
    if (!(this instanceof CnnTrainer)) throw new Error("CnnTrainer must be called with new");
    if (options && options._cnnRaw) {
      this._raw = options._cnnRaw;
    } else {
      var text = typeof options === "string" ? options : JSON.stringify(options === undefined ? {} : options);
      this._raw = new M._cnn_CnnTrainer(text);
    }
    var e = this._raw.error();
    if (e) {
      this._raw.delete();
      throw new Error(e);
    }
  }
  CnnTrainer.prototype.step = function(maxBatches) {
    if (!Number.isInteger(maxBatches) || maxBatches < 1) throw new Error("step: maxBatches must be a positive integer");
    return parsed(this._raw.step(maxBatches));
  };
  CnnTrainer.prototype.probes = function() { return check(this._raw.probes()); };
  CnnTrainer.prototype.metrics = function(n) { return parsed(this._raw.metrics(n === undefined ? 0 : n)); };
  CnnTrainer.prototype.erase = function(k, threshold, n, keep) {
    var r = check(this._raw.erase(k, threshold === undefined ? 0.5 : threshold, n === undefined ? 200 : n,
                                  keep === undefined ? 4 : keep));
    r.steps = JSON.parse(r.steps);
    return r;
  };
  CnnTrainer.prototype.weights = function() { return check(this._raw.weights()); };
  CnnTrainer.prototype.configJson = function() { return this._raw.configJson(); };
  CnnTrainer.prototype.done = function() { return this._raw.done(); };
  CnnTrainer.prototype.delete = function() { this._raw.delete(); };
  M.CnnTrainer = CnnTrainer;
  M.loadCnnModel = function(configJson, weights) {
    if (typeof configJson !== "string") throw new Error("loadCnnModel: configJson must be the config.json text");
    return new CnnTrainer({ _cnnRaw: M._cnn_loadModel(configJson, weights) });
  };
});

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_cnn) {
  emscripten::class_<CnnTrainer>("_cnn_CnnTrainer")
      .constructor<const std::string&>()
      .function("error", &CnnTrainer::error)
      .function("done", &CnnTrainer::done)
      .function("step", &CnnTrainer::step)
      .function("probes", &CnnTrainer::probes)
      .function("metrics", &CnnTrainer::metrics)
      .function("erase", &CnnTrainer::erase)
      .function("weights", &CnnTrainer::weights)
      .function("configJson", &CnnTrainer::config_json);
  emscripten::function("_cnn_loadModel", &load_cnn_model_raw, emscripten::allow_raw_pointers());
  install_cnn_facade();
}
