// attnlab command line: trains, evaluates and explains text models with the core. Every subcommand
// prints one JSON object as its last stdout line (progress goes to stderr).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <nlohmann/json.hpp>

#include "catalogue/catalogue.h"
#include "explain/explain_text.h"
#include "experiment_command.h"
#include "files.h"
#include "han_command.h"
#include "model/text_checkpoint.h"
#include "model/transformer_config.h"
#include "parallel/parallel_for.h"
#include "text/dataset.h"
#include "train/data_parallel.h"
#include "train/text_trainer.h"
#include "validators.h"

using namespace attnlab;
using nlohmann::json;

namespace attnlab::cli {  // cli/cnn_command.cpp: train-cnn, eval-cnn; the runner returns -1 when neither ran
std::function<int()> add_cnn_commands(CLI::App& app, const std::string& command_line);
std::function<int()> add_onnx_commands(CLI::App& app);  // cli/onnx_command.cpp: onnx-info, explain-onnx
std::function<int()> add_generate_command(CLI::App& app);  // cli/generate_command.cpp: generate
std::function<int()> add_tokenize_command(CLI::App& app);  // cli/tokenize_command.cpp: tokenize
std::function<int()> add_onnx_text_command(CLI::App& app);  // cli/onnx_text_command.cpp: explain-onnx-text
std::function<int()> add_shapes_command(CLI::App& app);  // cli/shapes_command.cpp: shapes-data
}

using cli::fail;
using cli::load_model;
using cli::load_tsv;

namespace {


json metrics_json(const ClassificationMetrics& m) {
  return {{"n", m.n}, {"accuracy", m.accuracy}, {"f1", m.f1}, {"precision", m.precision}, {"recall", m.recall}};
}

ClassificationMetrics evaluate(const TextModel& model, const std::vector<EncodedExample>& data) {
  std::vector<int> gold;
  size_t longest = 1;
  for (const auto& ex : data) {
    gold.push_back(ex.label);
    longest = std::max(longest, ex.ids.size());
  }
  // Batches of 64, fewer for very long texts: at most ~64k tokens (~600 MB of activations) per batch.
  const int batch = static_cast<int>(std::clamp<size_t>(65536 / longest, 1, 64));
  return classification_metrics(predict_classes(model.config, model.params, data, batch), gold,
                                model.config.num_classes);
}

}  // namespace

namespace {
int attnlab_main(int argc, char** argv) {
  CLI::App app{"attnlab: attention vs gradients vs erasure, from the command line"};
  app.require_subcommand(1);
  // --threads, accepted before or after any command's name (fallthrough): the core's threads
  // (core/parallel/parallel_for.h). The output does not depend on it.
  int threads = 0;
  app.add_option("--threads", threads, "threads the core uses, 0 = every core (results do not depend on it)")
      ->check(CLI::Range(0, kMaxThreads));
  app.fallthrough();
  std::string command_line;
  for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);

  // train-text
  auto* train = app.add_subcommand("train-text", "train a text classifier (BiLSTM + attention, or a transformer encoder)");
  std::string train_path, dev_path, test_path, out_dir, attention = "tanh", vocab_path, storage = "f16";
  int train_max_tokens = 0;
  int epochs = 8, batch_size = 32, embedding_dim = 128, hidden_dim = 128, min_count = 1, limit = 0, num_classes = 2;
  uint64_t seed = 1;
  double lr = 1e-3, weight_decay = 1e-5;
  train->add_option("--train", train_path, "training TSV (label<TAB>text)")->required();
  double dev_fraction = 0.1;
  int max_vocab = 0;
  train->add_option("--dev", dev_path, "dev TSV, for model selection (default: held out of --train, see --dev-fraction)");
  train->add_option("--dev-fraction", dev_fraction, "without --dev: every (1/F)-th training example is held out as dev")
      ->check(CLI::Range(0.01, 0.5));
  train->add_option("--max-tokens", train_max_tokens, "cut every text to its first N tokens (0 = no cut); recorded in the model")
      ->check(CLI::NonNegativeNumber);
  train->add_option("--max-vocab", max_vocab, "keep only the N most frequent words (0 = no limit)")->check(CLI::NonNegativeNumber);
  train->add_option("--test", test_path, "test TSV, evaluated once with the selected model");
  train->add_option("--out", out_dir, "output folder (config.json + model.safetensors)")->required();
  train->add_option("--attention", attention, "tanh | dot | uniform")->check(CLI::IsMember({"tanh", "dot", "uniform"}));
  train->add_option("--seed", seed);
  train->add_option("--epochs", epochs)->check(CLI::Range(1, 1000));
  train->add_option("--batch-size", batch_size)->check(CLI::Range(1, 4096));
  int train_parts_opt = 0;
  cli::add_parts_option(train, &train_parts_opt);
  train->add_option("--lr", lr)->check(cli::FiniteRange(1e-12, 10.0));
  train->add_option("--weight-decay", weight_decay)->check(cli::FiniteRange(0.0, 10.0));
  train->add_option("--embedding-dim", embedding_dim)->check(CLI::Range(1, 4096));
  train->add_option("--hidden-dim", hidden_dim)->check(CLI::Range(1, 4096));
  train->add_option("--num-classes", num_classes)->check(CLI::Range(2, 1000));
  train->add_option("--vocab-from", vocab_path, "TSV whose words form the vocabulary (default: --train)");
  train->add_option("--min-count", min_count, "keep words seen at least this often")->check(CLI::Range(1, 1000000));
  train->add_option("--limit", limit, "use only the first N training examples (0 = all)")->check(CLI::NonNegativeNumber);
  train->add_option("--storage", storage, "f16 | f32 weights on disk")->check(CLI::IsMember({"f16", "f32"}));
  // transformer encoder (docs/DESIGN.md "Transformer encoder"); --embedding-dim is d
  std::string encoder = "bilstm", optimizer = "adam";
  int layers = 2, heads = 4, ffn_dim = 256, max_len = 128;
  double warmup = 0.1, dropout = 0.1;
  train->add_option("--encoder", encoder, "bilstm | ortho_bilstm (Mohankumar et al.'s Orthogonal LSTM) | transformer")
      ->check(CLI::IsMember({"bilstm", "ortho_bilstm", "transformer"}));
  // Losses on the explanation (core/train/explanation_penalties.h)
  double diversity = 0, deception = 0;
  std::string impermissible_path, impermissible_positions_path;
  train->add_option("--diversity", diversity, "Diversity LSTM: weight of the conicity penalty (the paper's 0.5)")
      ->check(cli::FiniteRange(0.0, 1e6));
  train->add_option("--deception", deception, "Pruthi et al.: weight of -log(1 - attention mass on --impermissible)")
      ->check(cli::FiniteRange(0.0, 1e6));
  train->add_option("--impermissible", impermissible_path, "file of impermissible words, one per line (--deception)");
  train->add_option("--impermissible-positions", impermissible_positions_path,
                    "file of impermissible token positions (--deception): one line per --train example, in order, "
                    "0-based positions separated by spaces (an empty line: none)");
  train->add_option("--layers", layers, "transformer blocks")->check(CLI::Range(1, 64));
  train->add_option("--heads", heads, "attention heads (must divide --embedding-dim)")->check(CLI::Range(1, 64));
  train->add_option("--ffn-dim", ffn_dim, "transformer feed-forward width")->check(CLI::Range(1, 65536));
  train->add_option("--max-len", max_len, "transformer: longest input in tokens (longer ones are cut)")->check(CLI::Range(1, 100000));
  train->add_option("--optimizer", optimizer, "adam (amsgrad, L2 decay) | adamw (decoupled decay, warm-up + linear decay)")
      ->check(CLI::IsMember({"adam", "adamw"}));
  train->add_option("--warmup", warmup, "adamw: warm-up fraction of all steps")->check(CLI::Range(0.0, 1.0));
  train->add_option("--dropout", dropout, "transformer: dropout rate in training")->check(CLI::Range(0.0, 0.9));

  // eval-text
  auto* eval = app.add_subcommand("eval-text", "accuracy and F1 of a text model on a TSV");
  std::string model_dir, data_path;
  eval->add_option("--model", model_dir)->required();
  eval->add_option("--data", data_path)->required();

  // explain-text
  auto* explain = app.add_subcommand("explain-text", "prediction and token importances for one text");
  std::string text;
  int max_tokens = ExplainOptions().max_tokens, ig_steps = ExplainOptions().ig_steps;  // the catalogue's defaults
  explain->add_option("--model", model_dir)->required();
  explain->add_option("--text", text)->required();
  explain->add_option("--max-tokens", max_tokens)->check(CLI::Range(1, kMaxExplainTokens));  // the catalogue's range
  explain->add_option("--ig-steps", ig_steps)->check(CLI::Range(0, 10000));

  // catalogue: methods, experiments, recipes and defaults (core/catalogue), the same JSON as Module.catalogue()
  auto* catalogue = app.add_subcommand("catalogue", "print the catalogue of methods, experiments and recipes (JSON)");

  cli::ExperimentCommand experiment;
  CLI::App* experiment_app = cli::add_experiment_command(app, experiment);

  const std::function<int()> run_cnn = cli::add_cnn_commands(app, command_line);
  const std::function<int()> run_onnx = cli::add_onnx_commands(app);
  const std::function<int()> run_han = cli::add_han_commands(app, command_line);  // train-han
  const std::function<int()> run_global_view = cli::add_global_view_command(app);
  const std::function<int()> run_generate = cli::add_generate_command(app);
  const std::function<int()> run_tokenize = cli::add_tokenize_command(app);
  const std::function<int()> run_onnx_text = cli::add_onnx_text_command(app);
  const std::function<int()> run_shapes = cli::add_shapes_command(app);

  CLI11_PARSE(app, argc, argv);
  set_thread_count(threads);

  if (*catalogue) {
    std::cout << catalogue_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
    return 0;
  }
  if (*experiment_app) return cli::run_experiment_command(experiment, command_line);
  if (const int rc = run_cnn(); rc >= 0) return rc;
  if (const int rc = run_onnx(); rc >= 0) return rc;
  if (const int rc = run_han(); rc >= 0) return rc;
  if (const int rc = run_global_view(); rc >= 0) return rc;
  if (const int rc = run_generate(); rc >= 0) return rc;
  if (const int rc = run_tokenize(); rc >= 0) return rc;
  if (const int rc = run_onnx_text(); rc >= 0) return rc;
  if (const int rc = run_shapes(); rc >= 0) return rc;

  if (*train) {
    auto train_raw = load_tsv(train_path, train_max_tokens);
    int marked_tokens = 0;  // impermissible by position, within the (cut) examples
    if (!impermissible_positions_path.empty()) {
      if (deception <= 0) fail("--impermissible-positions is read only with --deception > 0");
      marked_tokens = cli::attach_position_lists(impermissible_positions_path, &train_raw);
      if (marked_tokens == 0) fail(impermissible_positions_path + ": no position falls inside a training example");
    }
    if (limit > 0 && static_cast<int>(train_raw.size()) > limit) train_raw.resize(limit);
    std::vector<TextExample> dev_raw;
    if (!dev_path.empty()) {
      dev_raw = load_tsv(dev_path, train_max_tokens);
    } else {  // hold out every k-th training example (k = 1 / fraction): stratified even for sorted files
      const size_t k = std::max<size_t>(2, static_cast<size_t>(std::lround(1.0 / dev_fraction)));
      std::vector<TextExample> kept;
      for (size_t i = 0; i < train_raw.size(); ++i) (i % k == k - 1 ? dev_raw : kept).push_back(std::move(train_raw[i]));
      if (dev_raw.empty() || kept.empty()) fail("--train has too few examples to hold out a dev set");
      train_raw = std::move(kept);
    }
    std::vector<std::vector<std::string>> vocab_sentences;
    for (const auto& ex : vocab_path.empty() ? train_raw : load_tsv(vocab_path, train_max_tokens)) vocab_sentences.push_back(ex.tokens);
    TextModel model;
    model.vocab = Vocab::build(vocab_sentences, min_count, max_vocab);
    model.max_tokens = train_max_tokens;
    parse_attention(attention, &model.config.attention);
    model.config.vocab_size = model.vocab.size();
    model.config.embedding_dim = embedding_dim;
    model.config.hidden_dim = hidden_dim;
    model.config.num_classes = num_classes;
    if (encoder == "transformer") {
      const std::string bad = make_transformer_config(layers, heads, ffn_dim, max_len, &model.config, &model.max_tokens);
      if (!bad.empty()) fail(bad);
    }
    if (num_classes == 2) model.class_names = {"negative", "positive"};
    else for (int c = 0; c < num_classes; ++c) model.class_names.push_back("class " + std::to_string(c));
    const auto train_set = cli::encode_examples(model.vocab, train_raw, num_classes, train_path);
    const auto dev_set = cli::encode_examples(model.vocab, dev_raw, num_classes, dev_path);
    Rng rng(seed);
    model.params.init(model.config, rng);
    TrainOptions options;
    options.epochs = epochs;
    options.batch_size = batch_size;
    options.parts = train_parts_opt;
    options.seed = seed;
    options.adam.lr = lr;
    options.adam.weight_decay = weight_decay;
    if (optimizer == "adamw") {
      options.use_adamw = true;
      options.adamw_options.lr = lr;
      options.adamw_options.weight_decay = weight_decay;
      options.warmup_fraction = warmup;
    }
    if (encoder == "transformer") options.dropout = dropout;
    model.config.orthogonal = encoder == "ortho_bilstm";
    options.penalties.diversity = diversity;
    options.penalties.deception = deception;
    int impermissible_words = 0;
    if (!impermissible_path.empty()) {
      if (deception <= 0) fail("--impermissible is read only with --deception > 0");
      std::string words, error;
      if (!cli::read_file(impermissible_path, &words, &error)) fail(error);
      options.penalties.impermissible = impermissible_flags(model.vocab, words, &impermissible_words);
    } else if (deception > 0 && impermissible_positions_path.empty()) {
      fail("--deception needs --impermissible FILE (the words attention must not show) or --impermissible-positions FILE");
    }
    options.penalties.by_position = !impermissible_positions_path.empty();
    if (const std::string bad = check_explanation_penalties(model.config, options.penalties); !bad.empty()) fail(bad);
    std::cerr << "train-text: " << train_set.size() << " train / " << dev_set.size() << " dev examples, vocab "
              << model.vocab.size() << ", attention " << attention << ", seed " << seed
              << (marked_tokens ? ", " + std::to_string(marked_tokens) + " tokens impermissible by position" : "") << "\n";
    const auto t0 = std::chrono::steady_clock::now();
    long tokens = 0;
    for (const auto& ex : train_set) tokens += static_cast<long>(ex.ids.size());
    const TrainResult result = train_text_model(model.config, model.params, train_set, dev_set, options,
                                                [&](const TrainProgress& p) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (p.epoch_done)
        std::cerr << "epoch " << p.epoch << "/" << p.epochs << " loss " << p.train_loss << " dev acc "
                  << p.dev.accuracy << " f1 " << p.dev.f1 << " (best epoch " << p.best_epoch << ") " << s << " s\n";
      return true;
    });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Metrics are measured on the weights as stored (f16 rounding included).
    const StorageType st = storage == "f16" ? StorageType::F16 : StorageType::F32;
    if (st == StorageType::F16)
      for (Mat<float>* m : model.params.list()) *m = m->unaryExpr([](float v) { return round_to_half(v); });
    for (const auto& [name, m] : model.params.named())  // a diverged run must not leave a model eval-text rejects
      if (!m->allFinite())
        fail("training diverged: parameter '" + name + "' has NaN or infinite values" +
             (st == StorageType::F16 ? " after rounding to f16" : "") + " (try a smaller --lr)");
    json metrics;
    metrics["dev"] = metrics_json(evaluate(model, dev_set));
    if (!test_path.empty()) metrics["test"] = metrics_json(evaluate(model, cli::encode_examples(model.vocab, load_tsv(test_path, train_max_tokens), num_classes, test_path)));
    json epochs_json = json::array();
    for (size_t e = 0; e < result.dev_per_epoch.size(); ++e)
      epochs_json.push_back({{"epoch", e + 1}, {"train_loss", result.train_loss_per_epoch[e]},
                             {"dev", metrics_json(result.dev_per_epoch[e])}});
    json extra;
    extra["training"] = {{"train", train_path},
                         {"dev", dev_path.empty() ? "every " + std::to_string(std::lround(1.0 / dev_fraction)) +
                                                            "th example of --train (" + std::to_string(dev_raw.size()) + ")"
                                                      : dev_path},
                         {"max_vocab", max_vocab}, {"vocab_from", vocab_path.empty() ? train_path : vocab_path},
                         {"train_examples", train_set.size()}, {"min_count", min_count}, {"epochs", epochs},
                         {"batch_size", batch_size},
                         {"parts", static_cast<int>(train_parts(static_cast<size_t>(batch_size), train_parts_opt))},
                         {"optimizer", optimizer == "adamw" ? "adamw, linear warm-up " + std::to_string(warmup) +
                                                                  " of the steps, then linear decay to 0"
                                                            : "adam amsgrad"},
                         {"lr", lr}, {"encoder", encoder},
                         {"diversity", diversity}, {"deception", deception},
                         {"impermissible", impermissible_path.empty() ? json(nullptr) : json({{"file", impermissible_path},
                                                                          {"words_in_vocab", impermissible_words}})},
                         {"impermissible_positions", impermissible_positions_path.empty()
                                                         ? json(nullptr)
                                                         : json({{"file", impermissible_positions_path},
                                                                 {"marked_tokens", marked_tokens}})},
                         {"dropout", encoder == "transformer" ? dropout : 0.0},
                         {"weight_decay", weight_decay}, {"loss", "class-balanced cross-entropy (sum over batch)"},
                         {"selection", "best dev accuracy"}, {"best_epoch", result.best_epoch},
                         {"seed", seed}, {"storage", storage}, {"seconds", seconds},
                         {"tokens_per_second", seconds > 0 ? double(tokens) * result.dev_per_epoch.size() / seconds : 0.0},
                         {"per_epoch", epochs_json}};
    extra["metrics"] = metrics;
    extra["provenance"] = {{"command", command_line}};
    model.extra_json = extra.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    std::string error;
    if (!cli::write_file(out_dir + "/config.json", text_model_config_json(model), &error) ||
        !cli::write_file(out_dir + "/model.safetensors", text_model_weights(model, st), &error))
      fail(error);
    json summary = {{"out", out_dir}, {"best_epoch", result.best_epoch}, {"seconds", seconds}, {"metrics", metrics}};
    std::cout << summary.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
    return 0;
  }

  if (*eval) {
    if (cli::is_han_dir(model_dir)) return cli::han_eval_command(model_dir, data_path);  // "attnlab-han-v1"
    const TextModel model = load_model(model_dir);
    const auto data = cli::encode_examples(model.vocab, load_tsv(data_path, model.max_tokens), model.config.num_classes, data_path);
    std::cout << metrics_json(evaluate(model, data)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
    return 0;
  }

  if (*explain) {
    if (cli::is_han_dir(model_dir)) return cli::han_explain_command(model_dir, text, ig_steps);  // "attnlab-han-v1"
    const TextModel model = load_model(model_dir);
    ExplainOptions options;
    options.max_tokens = max_tokens;
    options.ig_steps = ig_steps;
    std::cout << explanation_json(explain_text(model, text, options)) << std::endl;
    return 0;
  }
  return 0;
}
}  // namespace

// No exception leaves the CLI: anything a command did not turn into its own message (an allocation that failed,
// a library's exception) becomes one line on stderr and exit status 1.
int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // glibc maps every block above its mmap threshold (128 KiB, raised only up to 32 MiB as blocks are freed) afresh and
  // faults its pages in on each use: the batched passes' temporaries (a batch's attention scores, activations of
  // 4,096 tokens) are such blocks, allocated and freed per pass. Natively that made leave-one-out on 2 threads 2–3×
  // slower than on one (the threads' faults serialise on the process's memory map; stories260K, 180 tokens: 4.2–4.9
  // s vs 2.3 s). Kept in the heap and reused instead (docs/BENCHMARKS.md "malloc"); the wasm core's allocator has no
  // such threshold.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
  try {
    return attnlab_main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory (the input is larger than this machine can hold)" << std::endl;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << std::endl;
  } catch (...) {
    std::cerr << "error: an unexpected failure" << std::endl;
  }
  return 1;
}
