// `attnlab train-cnn --out DIR [--head gap|gmp|lse] [--cbam none|stage1|stage2|stage3|all] [--confounder P]
//  [--seed N] [--epochs N] ...` trains the localisation lab's CNN on the procedural shapes data and writes a
// model folder (config.json + model.safetensors); `attnlab eval-cnn --model DIR [--confounder P]` scores a
// model folder on a freshly generated test split. Both print one JSON object as their last stdout line
// (progress goes to stderr): accuracy, pointing_game, mask_iou, energy_in_mask, and background_energy.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>

#include "files.h"
#include "model/cnn_checkpoint.h"
#include "train/cnn_trainer.h"

namespace attnlab::cli {

using nlohmann::json;

namespace {

struct CnnCommands {
  CLI::App* train = nullptr;
  CLI::App* eval = nullptr;
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
  bool eval_seed_given = false;
};

json nan_to_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json eval_json(const CnnEvalResult& r, double confounder) {
  json j = {{"n", r.n}, {"accuracy", r.accuracy}, {"loss", r.loss}, {"pointing_game", r.pointing_game},
            {"mask_iou", r.mask_iou}, {"energy_in_mask", r.energy_in_mask}, {"mask_fraction", r.mask_fraction},
            {"confounder", confounder}};
  if (confounder > 0) j["background_energy"] = r.background_energy;
  json cb_e = json::array(), cb_p = json::array();
  bool any = false;
  for (size_t s = 0; s < r.cbam_energy_in_mask.size(); ++s) {
    cb_e.push_back(nan_to_null(r.cbam_energy_in_mask[s]));
    cb_p.push_back(nan_to_null(r.cbam_pointing_game[s]));
    any = any || std::isfinite(r.cbam_energy_in_mask[s]);
  }
  if (any) j["cbam_spatial"] = {{"energy_in_mask", cb_e}, {"pointing_game", cb_p}};
  return j;
}

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
  cfg.image_size = c.image_size;
  cfg.num_classes = c.classes;
  cfg.cbam_reduction = c.cbam_reduction;
  cfg.lse_r = c.lse_r;
  if (!parse_pool_head(c.head, &cfg.head)) fail("--head must be gap, gmp or lse");
  if (!parse_cbam_placement(c.cbam, cfg.stages(), &cfg.cbam))
    fail("--cbam must be none, all, or stage1..stage" + std::to_string(cfg.stages()) + " (comma-separated)");
  for (int k = 0; k < cfg.num_classes; ++k) model.class_names.push_back(shape_kind_name(k));
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
  o.data = data_config(cfg, c.confounder, c.texture_contrast);
  const std::string bad = check_cnn_train_options(cfg, o);
  if (!bad.empty()) fail("train-cnn: " + bad);
  Rng rng(c.seed);
  model.params.init(cfg, rng);
  std::cerr << "train-cnn: " << o.train_size << " train / " << o.val_size << " val images " << cfg.image_size << "x"
            << cfg.image_size << ", head " << c.head << ", cbam " << cbam_placement_name(cfg.cbam)
            << ", confounder " << c.confounder << ", seed " << c.seed << "\n";
  const auto t0 = std::chrono::steady_clock::now();
  // Throughput counts only steps without the end-of-epoch validation (one batch per step).
  double step_seconds = 0;
  long step_images = 0;
  CnnTrainingRun run(cfg, model.params, o);
  json per_epoch = json::array();
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
      per_epoch.push_back({{"epoch", st.epoch}, {"train_loss", st.train_loss}, {"train_accuracy", st.train_accuracy},
                           {"val_loss", st.val_loss}, {"val_accuracy", st.val_accuracy}});
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
  const ShapesDataset clean_test(data_config(cfg, 0.0, c.texture_contrast), c.seed, Split::Test, c.test_size);
  const CnnEvalResult clean = evaluate_cnn(cfg, model.params, clean_test);
  metrics["test_decorrelated"] = eval_json(clean, 0.0);
  if (c.confounder > 0) {
    const ShapesDataset conf_test(data_config(cfg, c.confounder, c.texture_contrast), c.seed, Split::Test,
                                  c.test_size);
    const CnnEvalResult conf = evaluate_cnn(cfg, model.params, conf_test);
    metrics["test_confounded"] = eval_json(conf, c.confounder);
  }
  const double images_per_second = step_seconds > 0 ? step_images / step_seconds : 0.0;
  json extra;
  extra["training"] = {{"data", "procedural shapes (core/data/shapes_dataset), seed " + std::to_string(c.seed)},
                       {"seed", c.seed}, {"confounder", c.confounder}, {"texture_contrast", c.texture_contrast},
                       {"train_size", o.train_size},
                       {"val_size", o.val_size}, {"test_size", c.test_size}, {"epochs", o.epochs},
                       {"batch_size", o.batch_size}, {"optimizer", o.optimizer}, {"lr", o.lr},
                       {"momentum", o.momentum}, {"weight_decay", o.weight_decay},
                       {"loss", "softmax cross-entropy (mean over the batch)"}, {"selection", "last epoch"},
                       {"storage", c.storage}, {"seconds", seconds}, {"images_per_second", images_per_second},
                       {"per_epoch", per_epoch}};
  extra["metrics"] = metrics;
  extra["provenance"] = {{"command", command_line}};
  model.extra_json = extra.dump();
  std::error_code ec;
  std::filesystem::create_directories(c.out_dir, ec);
  std::string error;
  if (!write_file(c.out_dir + "/config.json", cnn_model_config_json(model), &error) ||
      !write_file(c.out_dir + "/model.safetensors", cnn_model_weights(model, st), &error))
    fail(error);
  json summary = {{"out", c.out_dir}, {"seconds", seconds}, {"images_per_second", images_per_second},
                  {"metrics", metrics}};
  std::cout << summary.dump() << std::endl;
  return 0;
}

int run_eval(const CnnCommands& c) {
  const CnnModel model = load_cnn_folder(c.model_dir);
  // Defaults from the model's training section: its seed (the test split is disjoint from its training
  // images) and its texture contrast.
  const json extra = json::parse(model.extra_json, nullptr, false);
  const json training = extra.is_object() && extra.contains("training") ? extra["training"] : json::object();
  uint64_t seed = c.eval_seed;
  if (!c.eval_seed_given)
    seed = training.contains("seed") && training["seed"].is_number_unsigned() ? training["seed"].get<uint64_t>() : 1;
  double texture = ShapesConfig().texture_contrast;
  if (training.contains("texture_contrast") && training["texture_contrast"].is_number())
    texture = training["texture_contrast"].get<double>();
  const ShapesConfig d = data_config(model.config, c.eval_confounder, texture);
  const std::string bad = check_shapes_config(d);
  if (!bad.empty()) fail("eval-cnn: " + bad);
  CnnEvalOptions eo;
  eo.iou_threshold = c.iou_threshold;
  const CnnEvalResult r = evaluate_cnn(model.config, model.params, ShapesDataset(d, seed, Split::Test, c.eval_n), eo);
  json j = eval_json(r, c.eval_confounder);
  j["seed"] = seed;
  j["texture_contrast"] = texture;
  j["model"] = c.model_dir;
  j["head"] = pool_head_name(model.config.head);
  j["cbam"] = cbam_placement_name(model.config.cbam);
  std::cout << j.dump() << std::endl;
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
  t->add_option("--texture-contrast", c->texture_contrast, "background texture contrast (per channel)")
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
  t->add_option("--lr", c->lr);
  t->add_option("--momentum", c->momentum);
  t->add_option("--weight-decay", c->weight_decay);
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
  return [c, command_line]() -> int {
    if (*c->train) return run_train(*c, command_line);
    if (*c->eval) return run_eval(*c);
    return -1;
  };
}

}  // namespace attnlab::cli
