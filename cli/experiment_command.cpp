#include "experiment_command.h"

#include <chrono>
#include <iostream>

#include "experiments/experiment.h"
#include "files.h"
#include "han_command.h"
#include "onnx_text_dir.h"
#include "sst_rationales.h"
#include "train/adversary_trainer.h"
#include "train/explanation_penalties.h"

namespace attnlab::cli {

CLI::App* add_experiment_command(CLI::App& app, ExperimentCommand& cmd) {
  std::vector<std::string> names;
  for (const Experiment& e : experiment_registry()) names.push_back(e.name);
  names.push_back("adversarial-training");  // these two train models, so they are not per-instance experiments
  names.push_back("diagnostic");
  auto* sub = app.add_subcommand("experiment", "run one attention-explanation experiment over a data set");
  sub->add_option("name", cmd.name, "experiment")->required()->check(CLI::IsMember(names));
  sub->add_option("--model", cmd.model_dir, "model folder")->required();
  sub->add_option("--data", cmd.data_path, "label<TAB>text file")->required();
  sub->add_option("--out", cmd.out_path, "JSON file for the per-instance rows and the summary (else: summary on stdout only)");
  sub->add_option("--limit", cmd.limit, "only the first N instances (0 = all)")->check(CLI::NonNegativeNumber);
  sub->add_option("--seed", cmd.seed, "seed of the per-instance random streams");
  sub->add_option("--param", cmd.params, "experiment parameter key=value (e.g. steps=500)");
  sub->add_option("--with-model", cmd.with_models, "another model folder to compare with (seeds)");
  sub->add_option("--layer", cmd.layer, "an ONNX text model: the found attention layer intervened on (default: the last)");
  sub->add_option("--output", cmd.output, "an ONNX text model: the graph output (default: 'logits', or the only one)");
  sub->add_option("--trees", cmd.trees_path, "SST PTB trees of --data for plausibility (default <data dir>/trees/<name>.txt)");
  sub->add_option("--impermissible-positions", cmd.positions_path,
                  "impermissible: token positions of each --data example, one line each (as train-text reads them)");
  return sub;
}

namespace {

// W&P §4: for each lambda, train a model-consistent adversary on --param train=F.tsv and compare it with
// the base model on --data: TVD of outputs, JSD/KL of attention, its own accuracy/F1.
int run_adversarial_training(const ExperimentCommand& cmd, const ExperimentOptions& options,
                             const std::string& command_line) {
  const TextModel base = load_model(cmd.model_dir);
  if (base.config.attention == AttentionKind::Uniform) fail("adversarial-training needs a model with learned attention");
  auto train_path = options.params.find("train");
  if (train_path == options.params.end() || !train_path->is_string())
    fail("adversarial-training needs --param train=PATH (the adversary's training data)");
  auto encode = [&](const std::string& path, int limit) {  // the model's max_tokens cut, as in training
    return encode_examples(base.vocab, load_tsv(path, base.max_tokens), base.config.num_classes, path, limit);
  };
  const auto train = encode(train_path->get<std::string>(), 0);
  const auto data = encode(cmd.data_path, cmd.limit);
  std::vector<double> lambdas = {0, 0.1, 0.5, 1, 2, 5};
  auto l = options.params.find("lambdas");
  if (l != options.params.end()) {
    if (!l->is_array()) fail("--param lambdas=[...] must be a JSON array of numbers");
    lambdas.clear();
    for (const auto& v : *l) {
      if (!v.is_number()) fail("--param lambdas=[...] must be a JSON array of numbers");
      lambdas.push_back(v.get<double>());
    }
  }
  TrainOptions to;
  to.epochs = options.get_int("epochs", 8);
  to.seed = cmd.seed;
  const auto t0 = std::chrono::steady_clock::now();
  nlohmann::json rows = nlohmann::json::array();
  for (double lambda : lambdas) {
    TextParams<float> adv;
    Rng rng(cmd.seed);
    adv.init(base.config, rng);
    train_adversary(base, adv, train, lambda, to, [&](const TrainProgress& p) {
      if (p.epoch_done) std::cerr << "lambda " << lambda << ": epoch " << p.epoch << "/" << p.epochs << " loss " << p.train_loss << "\n";
      return true;
    });
    const AdversaryComparison c = compare_with_base(base, adv, data);
    rows.push_back({{"lambda", lambda}, {"tvd_mean", c.tvd_mean}, {"jsd_mean", c.jsd_mean}, {"kl_mean", c.kl_mean},
                    {"accuracy", c.vs_gold.accuracy}, {"f1", c.vs_gold.f1}, {"n", c.n}});
  }
  nlohmann::json summary = {{"experiment", "adversarial-training"}, {"model", cmd.model_dir}, {"data", cmd.data_path},
                            {"train", train_path->get<std::string>()}, {"epochs", to.epochs}, {"seed", cmd.seed},
                            {"curve", rows},
                            {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}};
  nlohmann::json result = {{"experiment", "adversarial-training"}, {"summary", summary}, {"rows", rows},
                           {"command", command_line}};
  std::string error;
  if (!write_file(cmd.out_path, result.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", &error)) fail(error);
  std::cout << summary.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  return 0;
}

// W&P §3.4: a non-contextual MLP encoder (h_t = tanh(W x_t + b)) trained with attention that is its own
// (learned tanh attention), uniform, or imposed from the base BiLSTM model; test accuracy/F1 of each (with
// the same attention at test time). Train and dev files come from --param train=... dev=...
int run_diagnostic(const ExperimentCommand& cmd, const ExperimentOptions& options, const std::string& command_line) {
  const TextModel base = load_model(cmd.model_dir);
  auto path_param = [&](const char* key) {
    auto it = options.params.find(key);
    if (it == options.params.end() || !it->is_string()) fail(std::string("diagnostic needs --param ") + key + "=PATH");
    return it->get<std::string>();
  };
  auto encode = [&](const std::string& path, int limit) {  // the model's max_tokens cut, as in training
    return encode_examples(base.vocab, load_tsv(path, base.max_tokens), base.config.num_classes, path, limit);
  };
  const auto train = encode(path_param("train"), 0);
  const auto dev = encode(path_param("dev"), 0);
  const auto test = encode(cmd.data_path, cmd.limit);
  std::vector<int> gold;
  for (const auto& ex : test) gold.push_back(ex.label);
  const AttentionImposer base_attention = [&base](const TextBatch& batch) {
    TextCache<float> cache;
    text_forward_ids(base.config, base.params, batch, cache);
    return cache.attention.alpha;
  };
  struct Variant {
    const char* name;
    AttentionKind attention;
    AttentionImposer impose;
  };
  const std::vector<Variant> variants = {{"mlp_learned_attention", AttentionKind::Tanh, nullptr},
                                         {"mlp_uniform_attention", AttentionKind::Uniform, nullptr},
                                         {"mlp_bilstm_attention", AttentionKind::Uniform, base_attention}};
  const auto t0 = std::chrono::steady_clock::now();
  nlohmann::json rows = nlohmann::json::array();
  const ClassificationMetrics base_test =
      classification_metrics(predict_classes(base.config, base.params, test), gold, base.config.num_classes);
  rows.push_back({{"variant", "base_bilstm"}, {"test_accuracy", base_test.accuracy}, {"test_f1", base_test.f1}});
  for (const Variant& v : variants) {
    TextConfig cfg = base.config;
    cfg.encoder = EncoderKind::Mlp;
    cfg.attention = v.attention;
    TextParams<float> params;
    Rng rng(cmd.seed);
    params.init(cfg, rng);
    TrainOptions to;
    to.epochs = options.get_int("epochs", 8);
    to.seed = cmd.seed;
    to.impose_attention = v.impose;
    const TrainResult r = train_text_model(cfg, params, train, dev, to, [&](const TrainProgress& p) {
      if (p.epoch_done) std::cerr << v.name << ": epoch " << p.epoch << " dev acc " << p.dev.accuracy << "\n";
      return true;
    });
    const ClassificationMetrics m =
        classification_metrics(predict_classes(cfg, params, test, 64, v.impose), gold, cfg.num_classes);
    rows.push_back({{"variant", v.name}, {"dev_accuracy", r.best_dev.accuracy}, {"best_epoch", r.best_epoch},
                    {"test_accuracy", m.accuracy}, {"test_f1", m.f1}});
  }
  nlohmann::json summary = {{"experiment", "diagnostic"}, {"model", cmd.model_dir}, {"data", cmd.data_path},
                            {"train", path_param("train")}, {"dev", path_param("dev")}, {"seed", cmd.seed},
                            {"variants", rows},
                            {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}};
  std::string error;
  if (!write_file(cmd.out_path, nlohmann::json({{"summary", summary}, {"rows", rows}, {"command", command_line}}).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", &error))
    fail(error);
  std::cout << summary.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  return 0;
}

}  // namespace

// --param key=value pairs; values that parse as JSON (numbers, arrays) are kept as such, others as strings.
nlohmann::json parse_experiment_params(const std::vector<std::string>& params) {
  nlohmann::json out = nlohmann::json::object();
  for (const std::string& kv : params) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) fail("--param '" + kv + "' is not key=value");
    const std::string value = kv.substr(eq + 1);
    const nlohmann::json parsed = nlohmann::json::parse(value, nullptr, false);
    out[kv.substr(0, eq)] = parsed.is_discarded() ? nlohmann::json(value) : parsed;
  }
  return out;
}

int run_experiment_command(const ExperimentCommand& cmd, const std::string& command_line) {
  if (is_onnx_text_model(cmd.model_dir)) return run_onnx_text_experiment_command(cmd, command_line);
  if (is_han_dir(cmd.model_dir)) return run_han_experiment_command(cmd, command_line);  // "attnlab-han-v1"
  if (cmd.name == "adversarial-training" || cmd.name == "diagnostic") {
    if (load_model(cmd.model_dir).config.encoder == EncoderKind::Transformer)
      fail(cmd.name + " is defined for the BiLSTM's single attention distribution (W&P); it has no transformer "
           "analogue here (docs/RESULTS.md, transformer section)");
    if (cmd.out_path.empty()) fail(cmd.name + " needs --out F.json");
    ExperimentOptions options;
    options.params = parse_experiment_params(cmd.params);
    return cmd.name == "diagnostic" ? run_diagnostic(cmd, options, command_line)
                                    : run_adversarial_training(cmd, options, command_line);
  }
  const Experiment* e = find_experiment(cmd.name);
  if (!e) fail("unknown experiment '" + cmd.name + "'");
  const TextModel model = load_model(cmd.model_dir);
  std::vector<TextExample> raw = load_tsv(cmd.data_path, model.max_tokens);
  if (!cmd.positions_path.empty()) {
    if (cmd.name != "impermissible") fail("--impermissible-positions is read by the impermissible experiment only");
    attach_position_lists(cmd.positions_path, &raw);
  }
  std::vector<Instance> data;
  int skipped_empty = 0, marked_tokens = 0;
  for (size_t i = 0; i < raw.size() && (cmd.limit == 0 || static_cast<int>(i) < cmd.limit); ++i) {
    if (raw[i].tokens.empty()) {
      ++skipped_empty;
      continue;
    }
    data.push_back({static_cast<int>(i), raw[i].label, raw[i].tokens, model.vocab.ids(raw[i].tokens)});
    if (!raw[i].marked.empty()) {  // marks of the instances used (within --limit)
      int kept = 0;
      data.back().marked = marked_flags(raw[i].marked, raw[i].tokens.size(), &kept);
      marked_tokens += kept;
    }
  }
  nlohmann::json trees_report;
  if (e->needs_human_rationales || !cmd.trees_path.empty()) {
    const std::string trees = sst_trees_path(cmd.data_path, cmd.trees_path);
    if (trees.empty())
      fail(cmd.name + " needs human rationales: SST trees for " + cmd.data_path + " (--trees PATH; the default " +
           "<data dir>/trees/<data name>.txt does not exist)");
    trees_report = attach_sst_rationales(trees, cmd.data_path, data);
  }
  std::vector<TextModel> others;
  others.reserve(cmd.with_models.size());
  for (const std::string& dir : cmd.with_models) {
    others.push_back(load_model(dir));
    if (others.back().vocab.words() != model.vocab.words()) fail(dir + ": vocabulary differs from --model's");
  }
  ExperimentOptions options;
  options.seed = cmd.seed;
  for (const TextModel& m : others) options.other_models.push_back(&m);
  options.params = parse_experiment_params(cmd.params);
  if (const std::string bad = check_experiment_params(*e, options.params); !bad.empty()) fail("--param: " + bad);
  const auto t0 = std::chrono::steady_clock::now();
  nlohmann::json result = run_experiment(*e, model, data, options, experiment_progress(cmd.name));
  nlohmann::json extra = nlohmann::json::object();
  if (!cmd.with_models.empty()) extra["with_models"] = cmd.with_models;
  if (skipped_empty) extra["skipped_empty_lines"] = skipped_empty;
  if (!cmd.positions_path.empty())
    extra["impermissible_positions"] = {{"file", cmd.positions_path}, {"marked_tokens", marked_tokens}};
  if (!trees_report.is_null()) extra["human_rationales"] = trees_report;
  return report_experiment(cmd, options, std::move(result), std::chrono::steady_clock::now() - t0, extra, command_line);
}

std::function<bool(int, int)> experiment_progress(const std::string& name) {
  auto last_percent = std::make_shared<int>(-1);
  return [name, last_percent](int done, int total) {
    const int percent = total ? 100 * done / total : 100;
    if (percent / 10 != *last_percent / 10) {
      std::cerr << name << ": " << done << "/" << total << "\n";
      *last_percent = percent;
    }
    return true;
  };
}

int report_experiment(const ExperimentCommand& cmd, const ExperimentOptions& options, nlohmann::json result,
                      std::chrono::steady_clock::duration elapsed, const nlohmann::json& extra,
                      const std::string& command_line) {
  nlohmann::json summary = result["summary"];
  summary["experiment"] = cmd.name;
  summary["model"] = cmd.model_dir;
  summary["data"] = cmd.data_path;
  summary["seed"] = cmd.seed;
  summary["params"] = options.params;
  summary["seconds"] = std::chrono::duration<double>(elapsed).count();
  summary.update(extra);
  result["summary"] = summary;
  result["command"] = command_line;
  std::string error;
  const auto dump = [](const nlohmann::json& j, int indent) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  if (!cmd.out_path.empty() && !write_file(cmd.out_path, dump(result, -1) + "\n", &error)) fail(error);
  std::cout << dump(summary, -1) << std::endl;
  return 0;
}

}  // namespace attnlab::cli
