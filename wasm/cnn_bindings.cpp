// The only Embind code for the localization lab (contract: docs/DESIGN.md "Localization lab"). Owns no math:
// it calls core/ (train/cnn_options.h, train/cnn_trainer.h, experiments/cnn_formation.h, experiments/cnn_erasing.h,
// model/cnn_checkpoint.h) and copies results out as objects or fresh typed arrays (never views of the heap).
// Errors as docs/DESIGN.md "Binding convention": raw names start with "_raw_", nothing is thrown inside wasm;
// wasm/facade.js exposes (options checked by core/train/cnn_options, shared with `attnlab train-cnn`):
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
//       logits, biases [n] (the true class's logit, eval mode, and its classifier bias: for a GAP head
//       logit = mean(cam) + bias),
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
#include <nlohmann/json.hpp>

#include "boundary.h"
#include "model/cnn_checkpoint.h"
#include "experiments/cnn_erasing.h"
#include "experiments/cnn_erasing_trace.h"
#include "experiments/cnn_formation.h"
#include "train/cnn_options.h"
#include "train/cnn_trainer.h"

namespace {

using nlohmann::json;
using namespace attnlab;
using namespace attnlab::wasm;

val cnn_error(const std::string& message) { return error_val(message); }

class CnnTrainer {
 public:
  // Training from options (an object or its JSON text; core/train/cnn_options.h).
  explicit CnnTrainer(const val& options) {
    Err e;
    json j;
    CnnSetup setup;
    if (object_arg(options, "options", &j, e)) e.fail(cnn_setup_from_json(j, &setup));  // fail(""): no error
    if (!e.ok()) {
      error_ = "CnnTrainer: " + e.message;
      return;
    }
    model_ = std::move(setup.model);
    options_ = setup.train;
    probes_ = setup.probes;
    test_size_ = setup.test_size;
    Rng rng(options_.seed);  // as `attnlab train-cnn`: the seed fixes the initial weights too
    model_.params.init(model_.config, rng);
    run_ = std::make_unique<CnnTrainingRun>(model_.config, model_.params, options_);
    if (!run_->error().empty()) error_ = "CnnTrainer: " + run_->error();
  }

  // A loaded model (no training).
  CnnTrainer(const std::string& config_json, const val& weights) {
    Err e;
    std::vector<uint8_t> bytes;
    if (!u8(weights, "the weights (model.safetensors bytes)", &bytes, e)) {
      error_ = "loadCnnModel: " + e.message;
      return;
    }
    std::string err;
    if (!load_cnn_model(config_json, bytes.data(), bytes.size(), &model_, &err)) {
      error_ = "loadCnnModel: " + err;
      return;
    }
    options_.data.image_size = model_.config.image_size;
    options_.data.num_classes = model_.config.num_classes;
    const CnnTrainingDefaults d = cnn_training_defaults(model_);  // as `attnlab eval-cnn`
    options_.seed = d.seed;
    options_.data.confounder = d.confounder;
    options_.data.texture_contrast = d.texture_contrast;
    if (d.epochs > 0) options_.epochs = d.epochs;
    loaded_ = true;
  }

  std::string error() const { return error_; }
  bool done() const { return error_.empty() && (loaded_ || (run_ && run_->done())); }

  val step(int max_batches) {
    if (max_batches < 1) return cnn_error("step: maxBatches must be a positive integer");
    if (!run_) return cnn_error("step: a loaded model does not train");
    if (run_->done()) return cnn_error("step: the training has finished");
    const CnnTrainProgress p = run_->step(std::max(1, max_batches));
    json j = {{"epoch", p.epoch}, {"epochs", p.epochs}, {"batch", p.batch}, {"batches", p.batches},
              {"train_loss", p.train_loss}, {"train_accuracy", p.train_accuracy}, {"images", p.images},
              {"epoch_done", p.epoch_done}, {"done", run_->done()}};
    if (p.epoch_done)
      j["stats"] = {{"epoch", p.stats.epoch}, {"train_loss", p.stats.train_loss},
                    {"train_accuracy", p.stats.train_accuracy}, {"val_loss", p.stats.val_loss},
                    {"val_accuracy", p.stats.val_accuracy}};
    if (!run_->error().empty()) return cnn_error(run_->error());
    return out_json(j);
  }

  val probes() const {
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
    val labels = val::array(), predicted = val::array(), backgrounds = val::array(), logits = val::array(),
        biases = val::array();
    for (size_t i = 0; i < pm.probes.size(); ++i) {
      const CnnProbeMap& p = pm.probes[i];
      masks.insert(masks.end(), mask_list[i].begin(), mask_list[i].end());
      cams.insert(cams.end(), p.cam.begin(), p.cam.end());
      labels.call<void>("push", p.label);
      predicted.call<void>("push", p.predicted);
      logits.call<void>("push", p.logit);
      biases.call<void>("push", p.bias);
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
    r.set("logits", logits);
    r.set("biases", biases);
    r.set("images", out_array(images));
    r.set("masks", out_array(masks));
    r.set("cam", cam);
    r.set("spatial", spatial);
    return r;
  }

  val metrics(int n) const {
    if (n < 1) n = test_size_;
    if (n > 100000) return cnn_error("metrics: n must be at most 100000");
    json j;
    j["decorrelated"] = cnn_eval_json(evaluate_cnn(model_.config, params(), ShapesDataset(test_config(0.0), options_.seed, Split::Test, n)), 0.0);
    if (options_.data.confounder > 0)
      j["confounded"] = cnn_eval_json(evaluate_cnn(model_.config, params(), ShapesDataset(test_config(options_.data.confounder),
                                                                                       options_.seed, Split::Test, n)),
                                      options_.data.confounder);
    j["confounder"] = options_.data.confounder;
    return out_json(j);
  }

  val erase(int k, double threshold, int n, int keep) const {
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
    out.set("steps", out_json(steps));
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
    CnnModel m = current();
    return out_array(cnn_model_weights(m, StorageType::F32));
  }

  std::string config_json() const {
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
    m.extra_json = extra.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_cnn) {
  emscripten::class_<CnnTrainer>("_raw_CnnTrainer")
      .constructor<const val&>()
      .function("error", &CnnTrainer::error)
      .function("done", &CnnTrainer::done)
      .function("step", &CnnTrainer::step)
      .function("probes", &CnnTrainer::probes)
      .function("metrics", &CnnTrainer::metrics)
      .function("erase", &CnnTrainer::erase)
      .function("weights", &CnnTrainer::weights)
      .function("configJson", &CnnTrainer::config_json);
  emscripten::function("_raw_loadCnnModel", &load_cnn_model_raw, emscripten::allow_raw_pointers());
}
