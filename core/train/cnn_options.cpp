#include "train/cnn_options.h"

#include <cmath>

namespace attnlab {
namespace {

nlohmann::json finite_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

const std::vector<ParamSpec>& cnn_option_specs() {
  static const std::vector<ParamSpec> specs = [] {
    const CnnConfig c;
    const CnnTrainOptions t;
    const CnnSetup s;
    return std::vector<ParamSpec>{
        {"head", "string", "gap", 0, -1, {"gap", "gmp", "lse"}, "pooling head"},
        nparam("lseR", c.lse_r, 1e-3, 1000, "log-sum-exp sharpness r"),
        {"cbam", "string", "none", 0, -1, {}, "CBAM placement: none, all, stageN or a comma list"},
        nparam("confounder", t.data.confounder, 0, 1, "P(background kind == class) in training"),
        nparam("seed", 1, 0, 2147483647, "initial weights, data and batch order"),
        iparam("epochs", t.epochs, 1, 200, "training epochs"),
        iparam("imageSize", c.image_size, 16, 128, "image side in pixels"),
        iparam("classes", c.num_classes, 2, 5, "number of shape classes"),
        iparam("cbamReduction", c.cbam_reduction, 1, 64, "CBAM channel reduction"),
        {"widths", "int_list", c.widths, 1, 256, {}, "channels per stage (pooling after every stage but the last)"},
        {"pool", "bool_list", c.pool, 0, -1, {}, "2×2 max pool after each stage"},
        iparam("trainSize", t.train_size, 1, 1000000, "training images per epoch"),
        iparam("valSize", t.val_size, 1, 100000, "validation images"),
        iparam("batchSize", t.batch_size, 1, 1024, "batch size"),
        {"optimizer", "string", t.optimizer, 0, -1, {"sgd", "adam"}, "optimizer"},
        nparam("lr", t.lr, 0, 10, "learning rate"),
        nparam("momentum", t.momentum, 0, 1, "SGD momentum"),
        nparam("weightDecay", t.weight_decay, 0, 1, "weight decay"),
        nparam("textureContrast", t.data.texture_contrast, 0, 1, "background texture contrast"),
        iparam("probes", s.probes, 1, 16, "probe images whose maps are shown"),
        iparam("testSize", s.test_size, 1, 100000, "images of metrics()")};
  }();
  return specs;
}

const nlohmann::json& cnn_recipes() {
  static const nlohmann::json r = nlohmann::json::parse(R"J({
    "page": {"label": "page (32×32, 4 stages 8/16/32/64, 8×8 maps, 4,000 images per epoch, Adam)", "imageSize": 32,
             "widths": [8, 16, 32, 64], "pool": [true, true, false, false], "trainSize": 4000, "valSize": 500,
             "optimizer": "adam", "lr": 0.003},
    "tiny": {"label": "tiny (32×32, 8/16/32, 256 images per epoch — a quick look)", "imageSize": 32,
             "widths": [8, 16, 32], "trainSize": 256, "valSize": 100, "optimizer": "adam", "lr": 0.003},
    "full": {"label": "full (64×64, 16/32/64, 8,000 images per epoch, SGD — the CLI default; slow here)", "imageSize": 64,
             "widths": [16, 32, 64], "trainSize": 8000, "valSize": 500, "optimizer": "sgd", "lr": 0.05}})J");
  return r;
}

std::vector<std::string> cnn_class_names(int num_classes) {
  std::vector<std::string> names;
  for (int k = 0; k < num_classes; ++k) names.push_back(shape_kind_name(k));
  return names;
}

std::string cnn_setup_from_json(const nlohmann::json& j, CnnSetup* out) {
  if (!j.is_object()) return "options must be a JSON object";
  const std::vector<ParamSpec>& specs = cnn_option_specs();
  const std::string bad = check_params(specs, j);
  if (!bad.empty()) return bad;
  auto get = [&](const char* key) { return param_or_default(specs, j, key); };
  CnnConfig& cfg = out->model.config;
  CnnTrainOptions& t = out->train;
  cfg.lse_r = get("lseR").get<double>();
  cfg.image_size = get("imageSize").get<int>();
  cfg.num_classes = get("classes").get<int>();
  cfg.cbam_reduction = get("cbamReduction").get<int>();
  if (j.contains("widths")) {
    cfg.widths = j["widths"].get<std::vector<int>>();
    cfg.pool.assign(cfg.widths.size(), false);
    for (size_t s = 0; s + 1 < cfg.widths.size(); ++s) cfg.pool[s] = true;
    cfg.cbam.assign(cfg.widths.size(), false);
  }
  if (j.contains("pool")) {
    const std::vector<bool> pool = j["pool"].get<std::vector<bool>>();
    if (pool.size() != cfg.widths.size())
      return "pool must have one entry per stage (" + std::to_string(cfg.widths.size()) + ")";
    cfg.pool = pool;
  }
  t.epochs = get("epochs").get<int>();
  t.train_size = get("trainSize").get<int>();
  t.val_size = get("valSize").get<int>();
  t.batch_size = get("batchSize").get<int>();
  t.optimizer = get("optimizer").get<std::string>();
  t.lr = get("lr").get<double>();
  t.momentum = get("momentum").get<double>();
  t.weight_decay = get("weightDecay").get<double>();
  t.data.confounder = get("confounder").get<double>();
  t.data.texture_contrast = get("textureContrast").get<double>();
  out->probes = get("probes").get<int>();
  out->test_size = get("testSize").get<int>();
  const std::string head = get("head").get<std::string>(), cbam = get("cbam").get<std::string>();
  if (!parse_pool_head(head, &cfg.head)) return "head must be gap, gmp or lse, got '" + head + "'";
  if (!parse_cbam_placement(cbam, cfg.stages(), &cfg.cbam))
    return "cbam must be none, all, or stage1..stage" + std::to_string(cfg.stages()) + " (comma-separated), got '" +
           cbam + "'";
  t.seed = static_cast<uint64_t>(get("seed").get<double>());
  t.data.image_size = cfg.image_size;
  t.data.num_classes = cfg.num_classes;
  const std::string wrong = check_cnn_train_options(cfg, t);
  if (!wrong.empty()) return wrong;
  out->model.class_names = cnn_class_names(cfg.num_classes);
  return "";
}

CnnTrainingDefaults cnn_training_defaults(const CnnModel& model) {
  CnnTrainingDefaults d;
  const nlohmann::json extra = nlohmann::json::parse(model.extra_json, nullptr, false);
  if (!extra.is_object() || !extra.contains("training") || !extra["training"].is_object()) return d;
  const nlohmann::json& tr = extra["training"];
  if (tr.contains("seed") && tr["seed"].is_number_unsigned()) d.seed = tr["seed"].get<uint64_t>();
  if (tr.contains("texture_contrast") && tr["texture_contrast"].is_number()) {
    const double c = tr["texture_contrast"].get<double>();
    if (c >= 0 && c <= 1) d.texture_contrast = c;
  }
  if (tr.contains("confounder") && tr["confounder"].is_number()) {
    const double p = tr["confounder"].get<double>();
    if (p >= 0 && p <= 1) d.confounder = p;
  }
  if (tr.contains("epochs") && tr["epochs"].is_number_integer()) d.epochs = tr["epochs"].get<int>();
  return d;
}

nlohmann::json cnn_eval_json(const CnnEvalResult& r, double confounder) {
  nlohmann::json j = {{"n", r.n}, {"accuracy", r.accuracy}, {"loss", r.loss}, {"pointing_game", r.pointing_game},
                      {"mask_iou", r.mask_iou}, {"energy_in_mask", r.energy_in_mask},
                      {"mask_fraction", r.mask_fraction}, {"background_energy", r.background_energy},
                      {"background_class_rate", r.background_class_rate}, {"confounder", confounder}};
  j["pointing"] = {{"standard_tolerance_px", r.pointing_standard_tolerance},
                   {"hit", r.pointing_game},
                   {"hit_standard_tolerance", r.pointing_game_standard},
                   {"centre_baseline", r.pointing_centre_baseline},
                   {"centre_baseline_standard_tolerance", r.pointing_centre_baseline_standard},
                   {"feature_cell", r.pointing_feature_cell},
                   {"centre_of_mass", r.pointing_centre_of_mass},
                   {"miss_distance_px", r.pointing_miss_distance}};
  nlohmann::json bc = nlohmann::json::array(), bs = nlohmann::json::array(), bz = nlohmann::json::array();
  for (size_t k = 0; k < r.pointing_by_class.size(); ++k) {
    bc.push_back(finite_or_null(r.pointing_by_class[k]));
    bs.push_back(finite_or_null(r.pointing_by_class_standard[k]));
    bz.push_back(finite_or_null(r.pointing_centre_by_class[k]));
  }
  j["pointing"]["by_class"] = {{"hit", bc}, {"hit_standard_tolerance", bs}, {"centre_baseline", bz}};
  nlohmann::json e = nlohmann::json::array(), p = nlohmann::json::array();
  bool any = false;
  for (size_t s = 0; s < r.cbam_energy_in_mask.size(); ++s) {
    e.push_back(finite_or_null(r.cbam_energy_in_mask[s]));
    p.push_back(finite_or_null(r.cbam_pointing_game[s]));
    any = any || std::isfinite(r.cbam_energy_in_mask[s]);
  }
  if (any) j["cbam_spatial"] = {{"energy_in_mask", e}, {"pointing_game", p}};
  return j;
}

}  // namespace attnlab
