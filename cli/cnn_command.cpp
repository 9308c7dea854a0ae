// `attnlab train-cnn --out DIR [--head gap|gmp|lse] [--cbam none|stage1|stage2|stage3|all] [--confounder P]
//  [--seed N] [--epochs N] ...` trains the localisation lab's CNN on the procedural shapes data and writes a
// model folder (config.json + model.safetensors); `attnlab eval-cnn --model DIR [--confounder P]` scores a
// model folder on a freshly generated test split. Both print one JSON object as their last stdout line
// (progress goes to stderr): accuracy, pointing_game, mask_iou, energy_in_mask, and background_energy.
// train-cnn --ext-weight W --ext-fraction F adds GAIN_ext's pixel-level supervision (train/gain_ext_loss.h);
// --residual gives the network residual stages (model/cnn_model.h).
// train-cnn --curves-out FILE [--curve-n N] [--probes K] also writes per-epoch localisation metrics and the
// class maps of K fixed probe images (experiment 5); `attnlab cnn-experiment erasing --model DIR [--steps K]`
// runs adversarial erasing against the ground-truth masks (experiment 4, experiments/cnn_erasing.h).
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>

#include "experiments/cnn_erasing.h"
#include "experiments/cnn_formation.h"
#include "files.h"
#include "model/cnn_checkpoint.h"
#include "train/cnn_options.h"
#include "train/cnn_trainer.h"
#include "validators.h"

namespace attnlab::cli {

using nlohmann::json;

namespace {

struct CnnCommands {
  CLI::App* train = nullptr;
  CLI::App* eval = nullptr;
  CLI::App* experiment = nullptr;
  // train-cnn
  std::string out_dir, head = "gap", cbam = "none", optimizer = "sgd", storage = "f16";
  double confounder = 0.0, texture_contrast = ShapesConfig().texture_contrast;
  double lr = 0.05, momentum = 0.9, weight_decay = 5e-4, lse_r = 5.0;
  uint64_t seed = 1;
  int epochs = 8, batch_size = 32, train_size = 8000, val_size = 500, test_size = 1000, image_size = 64,
      classes = 5, cbam_reduction = 4;
  // eval-cnn
  std::string model_dir;
  double eval_confounder = 0.0, iou_threshold = 0.5;
  int eval_n = 1000;
  uint64_t eval_seed = 0;
  bool eval_seed_given = false, texture_given = false;
  // train-cnn: curves over training (experiment 5)
  int curve_n = 0, probes = 0;
  double attention_mining = 0.0, ext_weight = 0.0, ext_fraction = 0.0;
  bool residual = false;
  std::string curves_out;
  // cnn-experiment
  std::string experiment_name;
  int erase_steps = 4;
  double erase_threshold = 0.5, erase_fill = 0.5;
};

// Texture contrast used when --confounder > 0 and --texture-contrast is not given. At the generator's default
// 0.1 the shortcut is only partly taken (p = 0.95, default recipe: 0.954 on confounded vs 0.779 on
// de-correlated test images); at 0.35 it dominates (0.945 vs 0.396; the prediction is the background's class
// on 73 % of de-correlated images), so a remedy's effect is large against the noise (docs/RESULTS.md,
// "Localization lab (issue 5)", experiment 3).
constexpr double kConfounderTextureContrast = 0.35;

// One evaluation JSON for the CLI and the page (train/cnn_options.h).
json eval_json(const CnnEvalResult& r, double confounder) { return cnn_eval_json(r, confounder); }

ShapesConfig data_config(const CnnConfig& cfg, double confounder, double texture_contrast) {
  ShapesConfig d;
  d.image_size = cfg.image_size;
  d.num_classes = cfg.num_classes;
  d.confounder = confounder;
  d.texture_contrast = texture_contrast;
  return d;
}

CnnModel load_cnn_folder(const std::string& dir) {
  std::string config, weights, error;
  if (!read_file(dir + "/config.json", &config, &error) || !read_file(dir + "/model.safetensors", &weights, &error))
    fail(error);
  CnnModel model;
  if (!load_cnn_model(config, reinterpret_cast<const uint8_t*>(weights.data()), weights.size(), &model, &error))
    fail(dir + ": " + error);
  return model;
}

int run_train(const CnnCommands& c, const std::string& command_line) {
  CnnModel model;
  CnnConfig& cfg = model.config;
  // Confounder runs default to a stronger background texture (kConfounderTextureContrast, see there).
  const double texture = c.texture_given ? c.texture_contrast
                                         : (c.confounder > 0 ? kConfounderTextureContrast : c.texture_contrast);
  cfg.image_size = c.image_size;
  cfg.num_classes = c.classes;
  cfg.cbam_reduction = c.cbam_reduction;
  cfg.lse_r = c.lse_r;
  cfg.residual = c.residual;
  if (!parse_pool_head(c.head, &cfg.head)) fail("--head must be gap, gmp or lse");
  if (!parse_cbam_placement(c.cbam, cfg.stages(), &cfg.cbam))
    fail("--cbam must be none, all, or stage1..stage" + std::to_string(cfg.stages()) + " (comma-separated)");
  model.class_names = cnn_class_names(cfg.num_classes);
  CnnTrainOptions o;
  o.epochs = c.epochs;
  o.batch_size = c.batch_size;
  o.train_size = c.train_size;
  o.val_size = c.val_size;
  o.seed = c.seed;
  o.optimizer = c.optimizer;
  o.lr = c.lr;
  o.momentum = c.momentum;
  o.weight_decay = c.weight_decay;
  o.attention_mining = c.attention_mining;
  o.ext_weight = c.ext_weight;
  o.ext_fraction = c.ext_fraction;
  o.data = data_config(cfg, c.confounder, texture);
  const std::string bad = check_cnn_train_options(cfg, o);
  if (!bad.empty()) fail("train-cnn: " + bad);
  Rng rng(c.seed);
  model.params.init(cfg, rng);
  std::cerr << "train-cnn: " << o.train_size << " train / " << o.val_size << " val images " << cfg.image_size << "x"
            << cfg.image_size << ", head " << c.head << ", cbam " << cbam_placement_name(cfg.cbam)
            << ", confounder " << c.confounder << ", seed " << c.seed << (c.residual ? ", residual" : "") << "\n";
  const auto t0 = std::chrono::steady_clock::now();
  // Throughput counts only steps without the end-of-epoch validation (one batch per step).
  double step_seconds = 0;
  long step_images = 0;
  CnnTrainingRun run(cfg, model.params, o);
  if (o.ext_weight > 0)
    std::cerr << "train-cnn: GAIN_ext weight " << o.ext_weight << " on " << run.mask_carriers()
              << " training images with masks\n";
  json per_epoch = json::array();
  // Experiment 5: localisation metrics on curve_n de-correlated test images and the maps of the first
  // `probes` test images, after every epoch (on the epoch's weights with recomputed BN statistics).
  const ShapesDataset curve_test(data_config(cfg, 0.0, texture), c.seed, Split::Test,
                                 std::max(1, std::max(c.curve_n, c.probes)));
  json curves = {{"probe_split", "test"}, {"probe_indices", c.probes}, {"curve_n", c.curve_n},
                 {"seed", c.seed}, {"epochs", json::array()}};
  Mat<float> probe_x;
  std::vector<int> probe_labels;
  if (c.probes > 0) {
    std::vector<int> idx(c.probes);
    for (int i = 0; i < c.probes; ++i) idx[i] = i;
    curve_test.batch(idx, probe_x, probe_labels);
  }
  // Epoch 0 = the initial weights (BN at its initial running statistics).
  auto snapshot = [&](int epoch, const CnnParams<float>& params, json* epoch_entry) {
    if (c.curve_n > 0) {
      const ShapesDataset sub(data_config(cfg, 0.0, texture), c.seed, Split::Test, c.curve_n);
      const CnnEvalResult r = evaluate_cnn(cfg, params, sub);
      (*epoch_entry)["test"] = eval_json(r, 0.0);
    }
    if (c.probes > 0) {
      const CnnProbeMaps pm = cnn_probe_maps(cfg, params, probe_x, probe_labels);
      json probes = json::array();
      for (const CnnProbeMap& m : pm.probes) {
        json pj = {{"label", m.label}, {"predicted", m.predicted}, {"cam", m.cam}};
        json cb = json::array();
        bool any = false;
        for (const auto& v : m.cbam) {
          cb.push_back(v);
          any = any || !v.empty();
        }
        if (any) pj["cbam"] = cb;
        probes.push_back(pj);
      }
      (*epoch_entry)["probes"] = probes;
      curves["map_h"] = pm.h;
      curves["map_w"] = pm.w;
    }
    (*epoch_entry)["epoch"] = epoch;
  };
  if (!c.curves_out.empty()) {
    json e0;
    snapshot(0, model.params, &e0);
    curves["epochs"].push_back(e0);
  }
  while (!run.done()) {
    const auto s0 = std::chrono::steady_clock::now();
    const long images0 = run.images();
    const CnnTrainProgress pr = run.step(1);
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
    if (!pr.epoch_done) {
      step_seconds += dt;
      step_images += pr.images - images0;
    }
    if (pr.epoch_done) {
      const CnnEpochStats& st = pr.stats;
      std::cerr << "epoch " << st.epoch << "/" << pr.epochs << " loss " << st.train_loss << " train acc "
                << st.train_accuracy << " val acc " << st.val_accuracy << " ("
                << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s)\n";
      json entry = {{"epoch", st.epoch}, {"train_loss", st.train_loss}, {"train_accuracy", st.train_accuracy},
                    {"val_loss", st.val_loss}, {"val_accuracy", st.val_accuracy}};
      if (c.curve_n > 0 || c.probes > 0) {
        json snap = entry;
        snapshot(st.epoch, run.params(), &snap);
        if (snap.contains("test")) entry["test"] = snap["test"];
        curves["epochs"].push_back(snap);
      }
      per_epoch.push_back(entry);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  model.params = run.params();
  const StorageType st = c.storage == "f16" ? StorageType::F16 : StorageType::F32;
  if (st == StorageType::F16) {  // metrics are measured on the weights as stored
    for (auto& np : model.params.trained()) *np.mat = np.mat->unaryExpr([](float v) { return round_to_half(v); });
    for (auto& np : model.params.buffers()) *np.mat = np.mat->unaryExpr([](float v) { return round_to_half(v); });
  }
  json metrics;
  const ShapesDataset clean_test(data_config(cfg, 0.0, texture), c.seed, Split::Test, c.test_size);
  const CnnEvalResult clean = evaluate_cnn(cfg, model.params, clean_test);
  metrics["test_decorrelated"] = eval_json(clean, 0.0);
  if (c.confounder > 0) {
    const ShapesDataset conf_test(data_config(cfg, c.confounder, texture), c.seed, Split::Test,
                                  c.test_size);
    const CnnEvalResult conf = evaluate_cnn(cfg, model.params, conf_test);
    metrics["test_confounded"] = eval_json(conf, c.confounder);
  }
  const double images_per_second = step_seconds > 0 ? step_images / step_seconds : 0.0;
  json extra;
  extra["training"] = {{"data", "procedural shapes (core/data/shapes_dataset), seed " + std::to_string(c.seed)},
                       {"seed", c.seed}, {"confounder", c.confounder}, {"texture_contrast", texture},
                       {"train_size", o.train_size},
                       {"val_size", o.val_size}, {"test_size", c.test_size}, {"epochs", o.epochs},
                       {"batch_size", o.batch_size}, {"optimizer", o.optimizer}, {"lr", o.lr},
                       {"momentum", o.momentum}, {"weight_decay", o.weight_decay},
                       {"loss", c.attention_mining > 0 ? "softmax cross-entropy (mean over the batch) + " +
                                    std::to_string(c.attention_mining) +
                                    " x GAIN attention mining (mean true-class probability on the batch with "
                                    "the attended region softly erased; mask constant)"
                                  : std::string("softmax cross-entropy (mean over the batch)")},
                       {"attention_mining", c.attention_mining}, {"selection", "last epoch"},
                       {"storage", c.storage}, {"seconds", seconds}, {"images_per_second", images_per_second},
                       {"per_epoch", per_epoch}};
  if (o.ext_weight > 0) {  // only then, so the training section of other runs is unchanged
    extra["training"]["ext_weight"] = o.ext_weight;
    extra["training"]["ext_fraction"] = o.ext_fraction;
    extra["training"]["ext_images"] = run.mask_carriers();
    extra["training"]["loss"] = extra["training"]["loss"].get<std::string>() + " + " + std::to_string(o.ext_weight) +
                                " x GAIN_ext (pixel-wise squared error between sigmoid(10 (A - 0.5)) of the "
                                "min-max normalised true-class CAM and the object mask, on the images with masks)";
  }
  extra["metrics"] = metrics;
  extra["provenance"] = {{"command", command_line}};
  model.extra_json = extra.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::error_code ec;
  std::filesystem::create_directories(c.out_dir, ec);
  std::string error;
  if (!c.curves_out.empty() && !write_file(c.curves_out, curves.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), &error)) fail(error);
  if (!write_file(c.out_dir + "/config.json", cnn_model_config_json(model), &error) ||
      !write_file(c.out_dir + "/model.safetensors", cnn_model_weights(model, st), &error))
    fail(error);
  json summary = {{"out", c.out_dir}, {"seconds", seconds}, {"images_per_second", images_per_second},
                  {"metrics", metrics}};
  std::cout << summary.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  return 0;
}

// The test data for a trained model: defaults from its training section — its seed (the test split is disjoint
// from its training images) and its texture contrast — unless --seed was given; --confounder from the command.
struct EvalData {
  CnnModel model;
  ShapesConfig data;
  uint64_t seed = 1;
  double texture = 0;
};

EvalData eval_data(const CnnCommands& c, const char* command) {
  EvalData e;
  e.model = load_cnn_folder(c.model_dir);
  const CnnTrainingDefaults defaults = cnn_training_defaults(e.model);  // as the page's loaded models
  e.seed = c.eval_seed_given ? c.eval_seed : defaults.seed;
  e.texture = defaults.texture_contrast;
  e.data = data_config(e.model.config, c.eval_confounder, e.texture);
  const std::string bad = check_shapes_config(e.data);
  if (!bad.empty()) fail(std::string(command) + ": " + bad);
  return e;
}

int run_eval(const CnnCommands& c) {
  const EvalData e = eval_data(c, "eval-cnn");
  const CnnModel& model = e.model;
  const ShapesConfig& d = e.data;
  const uint64_t seed = e.seed;
  const double texture = e.texture;
  CnnEvalOptions eo;
  eo.iou_threshold = c.iou_threshold;
  const CnnEvalResult r = evaluate_cnn(model.config, model.params, ShapesDataset(d, seed, Split::Test, c.eval_n), eo);
  json j = eval_json(r, c.eval_confounder);
  j["seed"] = seed;
  j["texture_contrast"] = texture;
  j["model"] = c.model_dir;
  j["head"] = pool_head_name(model.config.head);
  j["cbam"] = cbam_placement_name(model.config.cbam);
  if (model.config.residual) j["residual"] = true;
  std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  return 0;
}

int run_experiment(const CnnCommands& c) {
  const EvalData e = eval_data(c, "cnn-experiment");
  const CnnModel& model = e.model;
  const ShapesConfig& d = e.data;
  const uint64_t seed = e.seed;
  const double texture = e.texture;
  const ShapesDataset data(d, seed, Split::Test, c.eval_n);
  json j = {{"experiment", c.experiment_name}, {"model", c.model_dir}, {"seed", seed}, {"n", c.eval_n},
            {"confounder", c.eval_confounder}, {"texture_contrast", texture},
            {"head", pool_head_name(model.config.head)}, {"cbam", cbam_placement_name(model.config.cbam)}};
  if (c.experiment_name == "erasing") {
    CnnErasingOptions eo;
    eo.steps = c.erase_steps;
    eo.threshold = c.erase_threshold;
    eo.fill = static_cast<float>(c.erase_fill);
    const CnnErasingResult r = run_cnn_erasing(model.config, model.params, data, eo);
    j["steps"] = eo.steps;
    j["threshold"] = eo.threshold;
    j["fill"] = eo.fill;
    j["recall"] = r.recall;
    j["precision"] = r.precision;
    j["union_area"] = r.union_area;
    j["step_area"] = r.step_area;
    j["still_correct"] = r.still_correct;
  }
  std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  return 0;
}

}  // namespace

// Registers train-cnn and eval-cnn; the returned runner gives the exit code, or -1 when neither was chosen.
std::function<int()> add_cnn_commands(CLI::App& app, const std::string& command_line) {
  auto c = std::make_shared<CnnCommands>();
  c->train = app.add_subcommand("train-cnn", "train the localisation lab's CNN on procedural shapes");
  CLI::App* t = c->train;
  t->add_option("--out", c->out_dir, "output folder (config.json + model.safetensors)")->required();
  t->add_option("--head", c->head, "gap | gmp | lse")->check(CLI::IsMember({"gap", "gmp", "lse"}));
  t->add_option("--lse-r", c->lse_r, "log-sum-exp temperature r")->check(CLI::Range(1e-3, 1000.0));
  t->add_option("--cbam", c->cbam, "none | stage1 | stage2 | stage3 | all (or a comma list)");
  t->add_option("--cbam-reduction", c->cbam_reduction)->check(CLI::Range(1, 1024));
  t->add_option("--confounder", c->confounder, "P(background kind == class) in training, 0 = independent")
      ->check(CLI::Range(0.0, 1.0));
  t->add_option("--texture-contrast", c->texture_contrast,
                 "background texture contrast (per channel; default 0.1, or 0.35 with --confounder > 0)")
      ->each([c](const std::string&) { c->texture_given = true; })
      ->check(CLI::Range(0.0, 1.0));
  t->add_option("--seed", c->seed);
  t->add_option("--epochs", c->epochs)->check(CLI::Range(1, 10000));
  t->add_option("--batch-size", c->batch_size)->check(CLI::Range(1, 4096));
  t->add_option("--train-size", c->train_size)->check(CLI::Range(1, 10000000));
  t->add_option("--val-size", c->val_size)->check(CLI::Range(1, 10000000));
  t->add_option("--test-size", c->test_size)->check(CLI::Range(1, 10000000));
  t->add_option("--image-size", c->image_size)->check(CLI::Range(16, 512));
  t->add_option("--classes", c->classes, "number of shape classes (2..5)")->check(CLI::Range(2, 5));
  t->add_option("--optimizer", c->optimizer)->check(CLI::IsMember({"sgd", "adam"}));
  t->add_option("--lr", c->lr)->check(FiniteRange(1e-12, 10.0));
  t->add_option("--momentum", c->momentum)->check(FiniteRange(0.0, 1.0));
  t->add_option("--weight-decay", c->weight_decay)->check(FiniteRange(0.0, 10.0));
  t->add_option("--storage", c->storage, "f16 | f32 weights on disk")->check(CLI::IsMember({"f16", "f32"}));

  c->eval = app.add_subcommand("eval-cnn", "accuracy and localisation metrics of a CNN model folder");
  CLI::App* e = c->eval;
  e->add_option("--model", c->model_dir)->required();
  e->add_option("--confounder", c->eval_confounder, "P(background kind == class) of the test images (0 = independent)")
      ->check(CLI::Range(0.0, 1.0));
  e->add_option("--n", c->eval_n, "number of test images")->check(CLI::Range(1, 10000000));
  e->add_option("--seed", c->eval_seed, "data seed of the test split (default: the model's training seed)")
      ->each([c](const std::string&) { c->eval_seed_given = true; });
  e->add_option("--iou-threshold", c->iou_threshold)->check(CLI::Range(0.0, 1.0));
  t->add_option("--attention-mining", c->attention_mining,
                 "GAIN-style attention-mining weight (0 = off; experiments/cnn_attention_mining.h)")
      ->check(CLI::Range(0.0, 100.0));
  t->add_option("--ext-weight", c->ext_weight,
                 "GAIN_ext pixel-level supervision weight (0 = off; train/gain_ext_loss.h); needs --ext-fraction")
      ->check(CLI::Range(0.0, 1000.0));
  t->add_option("--ext-fraction", c->ext_fraction,
                 "share of the training images whose object mask GAIN_ext uses (seeded choice)")
      ->check(CLI::Range(0.0, 1.0));
  t->add_flag("--residual", c->residual,
              "residual stages: ReLU(CBAM(BN(conv3x3 x)) + shortcut x), 1x1 projection when the width changes");
  t->add_option("--curve-n", c->curve_n, "test images scored after every epoch (experiment 5; 0 = off)")
      ->check(CLI::Range(0, 100000));
  t->add_option("--probes", c->probes, "probe images (the first test images) whose maps are saved every epoch")
      ->check(CLI::Range(0, 1000));
  t->add_option("--curves-out", c->curves_out, "JSON file for the per-epoch curves and probe maps");

  c->experiment = app.add_subcommand("cnn-experiment", "localisation lab experiments on a CNN model folder");
  CLI::App* x = c->experiment;
  x->add_option("name", c->experiment_name, "erasing")->required()->check(CLI::IsMember({"erasing"}));
  x->add_option("--model", c->model_dir)->required();
  x->add_option("--confounder", c->eval_confounder, "P(background kind == class) of the test images")
      ->check(CLI::Range(0.0, 1.0));
  x->add_option("--n", c->eval_n, "number of test images")->check(CLI::Range(1, 10000000));
  x->add_option("--seed", c->eval_seed, "data seed of the test split (default: the model's training seed)")
      ->each([c](const std::string&) { c->eval_seed_given = true; });
  x->add_option("--steps", c->erase_steps, "erasing steps K")->check(CLI::Range(1, 100));
  x->add_option("--threshold", c->erase_threshold, "region: normalised map >= threshold")
      ->check(CLI::Range(0.0, 1.0));
  x->add_option("--fill", c->erase_fill, "value written into erased pixels")->check(CLI::Range(0.0, 1.0));
  return [c, command_line]() -> int {
    if (*c->train) return run_train(*c, command_line);
    if (*c->eval) return run_eval(*c);
    if (*c->experiment) return run_experiment(*c);
    return -1;
  };
}

}  // namespace attnlab::cli
