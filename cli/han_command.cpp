// HAN commands: `attnlab train-han` (the text recipe on documents split into sentences), and the HAN side
// of `eval-text` / `explain-text` (main.cpp dispatches here when config.json has "format": "attnlab-han-v1").
// Every command prints one JSON object as its last stdout line; progress goes to stderr.
#include "han_command.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "explain/han/explain_han.h"
#include "files.h"
#include "text/dataset.h"
#include "train/data_parallel.h"
#include "train/han_trainer.h"
#include "validators.h"

namespace attnlab::cli {

using nlohmann::json;

std::vector<RawDocument> load_raw_tsv(const std::string& path) {
  std::string content, error;
  if (!read_file(path, &content, &error)) fail(error);
  std::vector<RawTextExample> raw;  // core/text/dataset.h: the parser the wasm HanLab uses too
  if (!parse_raw_labeled_tsv(content, &raw, &error)) fail(path + ": " + error);
  std::vector<RawDocument> out;
  for (auto& r : raw) out.push_back({r.label, std::move(r.text)});
  return out;
}

bool is_han_dir(const std::string& dir) {
  std::string config, error;
  return read_file(dir + "/config.json", &config, &error) && config_format(config) == "attnlab-han-v1";
}

HanModel load_han(const std::string& dir) {
  std::string config, weights, error;
  if (!read_file(dir + "/config.json", &config, &error)) fail(error);
  if (!read_file(dir + "/model.safetensors", &weights, &error)) fail(error);
  HanModel m;
  if (!load_han_model(config, reinterpret_cast<const uint8_t*>(weights.data()), weights.size(), &m, &error))
    fail(dir + ": " + error);
  return m;
}

std::vector<HanExample> encode_han(const HanModel& model, const std::vector<RawDocument>& docs, const std::string& path,
                                   int limit) {
  std::vector<HanExample> out;
  for (size_t i = 0; i < docs.size() && (limit == 0 || static_cast<int>(i) < limit); ++i) {
    if (docs[i].label >= model.config.num_classes)
      fail(path + ": label " + std::to_string(docs[i].label) + " is not a class of the model (0.." +
           std::to_string(model.config.num_classes - 1) + ")");
    out.push_back({docs[i].label, han_encode(model, docs[i].text).ids});
  }
  return out;
}

json han_metrics_json(const ClassificationMetrics& m) {
  return {{"n", m.n}, {"accuracy", m.accuracy}, {"f1", m.f1}, {"precision", m.precision}, {"recall", m.recall}};
}

ClassificationMetrics han_evaluate(const HanModel& model, const std::vector<HanExample>& data) {
  std::vector<int> gold;
  for (const auto& ex : data) gold.push_back(ex.label);
  return classification_metrics(han_predict_classes(model.config, model.params, data), gold, model.config.num_classes);
}

int han_eval_command(const std::string& dir, const std::string& data_path) {
  const HanModel model = load_han(dir);
  const auto data = encode_han(model, load_raw_tsv(data_path), data_path, 0);
  std::cout << han_metrics_json(han_evaluate(model, data)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
  return 0;
}

int han_explain_command(const std::string& dir, const std::string& text, int ig_steps) {
  const HanModel model = load_han(dir);
  HanExplainOptions o;
  o.ig_steps = ig_steps;
  const HanExplanation e = explain_han(model, text, o);
  std::cout << han_explanation_json(e) << std::endl;
  return e.error.empty() ? 0 : 1;
}

std::function<int()> add_han_commands(CLI::App& app, const std::string& command_line) {
  struct Opts {
    std::string train, dev, test, out, word_attention = "tanh", sentence_attention = "tanh", storage = "f16";
    double dev_fraction = 0.1, lr = 1e-3, weight_decay = 1e-5;
    int epochs = 8, batch_size = 32, embedding_dim = 100, word_hidden = 50, sentence_hidden = 50, min_count = 2;
    int max_vocab = 15000, limit = 0, num_classes = 2, max_sentences = 100, max_sentence_tokens = 100, max_tokens = 0;
    int parts = 0;
    uint64_t seed = 1;
    bool run_together = true, lower_case = false;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("train-han", "train a hierarchical attention network (HAN) on documents");
  sub->add_option("--train", o->train, "training TSV (label<TAB>text)")->required();
  sub->add_option("--dev", o->dev, "dev TSV (default: every (1/F)-th training example, see --dev-fraction)");
  sub->add_option("--dev-fraction", o->dev_fraction)->check(CLI::Range(0.01, 0.5));
  sub->add_option("--test", o->test, "test TSV, evaluated once with the selected model");
  sub->add_option("--out", o->out, "output folder (config.json + model.safetensors)")->required();
  sub->add_option("--word-attention", o->word_attention, "tanh | uniform")->check(CLI::IsMember({"tanh", "uniform"}));
  sub->add_option("--sentence-attention", o->sentence_attention, "tanh | uniform")->check(CLI::IsMember({"tanh", "uniform"}));
  sub->add_option("--seed", o->seed);
  sub->add_option("--epochs", o->epochs)->check(CLI::Range(1, 1000));
  sub->add_option("--batch-size", o->batch_size)->check(CLI::Range(1, 4096));
  cli::add_parts_option(sub, &o->parts);
  sub->add_option("--lr", o->lr);
  sub->add_option("--weight-decay", o->weight_decay);
  sub->add_option("--embedding-dim", o->embedding_dim)->check(CLI::Range(1, 4096));
  sub->add_option("--word-hidden", o->word_hidden, "word GRU size per direction")->check(CLI::Range(1, 4096));
  sub->add_option("--sentence-hidden", o->sentence_hidden, "sentence GRU size per direction")->check(CLI::Range(1, 4096));
  sub->add_option("--min-count", o->min_count)->check(CLI::Range(1, 1000000));
  sub->add_option("--max-vocab", o->max_vocab, "keep the N most frequent words (0 = all)")->check(CLI::NonNegativeNumber);
  sub->add_option("--limit", o->limit, "use only the first N training examples (0 = all)")->check(CLI::NonNegativeNumber);
  sub->add_option("--num-classes", o->num_classes)->check(CLI::Range(2, 1000));
  sub->add_option("--max-sentences", o->max_sentences, "keep the first N sentences of a document")->check(CLI::Range(1, 1000000));
  sub->add_option("--max-sentence-tokens", o->max_sentence_tokens, "cut longer sentences into pieces of N tokens")
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--max-tokens", o->max_tokens, "keep the first N tokens of a document (0 = all)")->check(CLI::NonNegativeNumber);
  sub->add_option("--split-run-together", o->run_together,
                  "split run-together sentences (\"love.The\"); false = the first models' splitter");
  sub->add_option("--split-lower-case", o->lower_case,
                  "a lower-case letter after . ! ? starts a sentence too (\"i loved it. it was great!\"); recorded in the "
                  "model's config.json (split_lower_case); false = the shipped models' rule");
  sub->add_option("--storage", o->storage, "f16 | f32")->check(CLI::IsMember({"f16", "f32"}));
  return [sub, o, command_line]() -> int {
    if (!*sub) return -1;
    auto train_raw = load_raw_tsv(o->train);
    if (o->limit > 0 && static_cast<int>(train_raw.size()) > o->limit) train_raw.resize(o->limit);
    std::vector<RawDocument> dev_raw;
    if (!o->dev.empty()) {
      dev_raw = load_raw_tsv(o->dev);
    } else {  // every k-th example, as train-text does
      const size_t k = std::max<size_t>(2, static_cast<size_t>(std::lround(1.0 / o->dev_fraction)));
      std::vector<RawDocument> kept;
      for (size_t i = 0; i < train_raw.size(); ++i) (i % k == k - 1 ? dev_raw : kept).push_back(std::move(train_raw[i]));
      if (dev_raw.empty() || kept.empty()) fail("--train has too few examples to hold out a dev set");
      train_raw = std::move(kept);
    }
    HanModel model;
    model.split.max_sentences = o->max_sentences;
    model.split.max_sentence_tokens = o->max_sentence_tokens;
    model.split.max_tokens = o->max_tokens;
    model.split.run_together = o->run_together;
    model.split.lower_case_starts = o->lower_case;
    std::vector<std::vector<std::string>> vocab_sentences;
    for (const auto& d : train_raw)
      for (auto& s : split_document(d.text, model.split).sentences) vocab_sentences.push_back(std::move(s));
    model.vocab = Vocab::build(vocab_sentences, o->min_count, o->max_vocab);
    parse_attention(o->word_attention, &model.config.word_attention);
    parse_attention(o->sentence_attention, &model.config.sentence_attention);
    model.config.vocab_size = model.vocab.size();
    model.config.embedding_dim = o->embedding_dim;
    model.config.word_hidden = o->word_hidden;
    model.config.sentence_hidden = o->sentence_hidden;
    model.config.num_classes = o->num_classes;
    if (o->num_classes == 2) model.class_names = {"negative", "positive"};
    else for (int c = 0; c < o->num_classes; ++c) model.class_names.push_back("class " + std::to_string(c));
    const auto train_set = encode_han(model, train_raw, o->train, 0);
    const auto dev_set = encode_han(model, dev_raw, o->dev.empty() ? o->train : o->dev, 0);
    long tokens = 0, sentences = 0;
    for (const auto& ex : train_set) {
      sentences += static_cast<long>(ex.doc.size());
      for (const auto& s : ex.doc) tokens += static_cast<long>(s.size());
    }
    Rng rng(o->seed);
    model.params.init(model.config, rng);
    TrainOptions options;
    options.epochs = o->epochs;
    options.batch_size = o->batch_size;
    options.parts = o->parts;
    options.seed = o->seed;
    options.adam.lr = o->lr;
    options.adam.weight_decay = o->weight_decay;
    std::cerr << "train-han: " << train_set.size() << " train / " << dev_set.size() << " dev documents ("
              << sentences << " sentences, " << tokens << " tokens), vocab " << model.vocab.size() << ", attention "
              << o->word_attention << "/" << o->sentence_attention << ", seed " << o->seed << "\n";
    const auto t0 = std::chrono::steady_clock::now();
    auto elapsed = [&]() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
    int last_report = 0;
    const TrainResult result = train_han_model(model.config, model.params, train_set, dev_set, options,
                                               [&](const TrainProgress& p) {
      if (p.epoch_done)
        std::cerr << "epoch " << p.epoch << "/" << p.epochs << " loss " << p.train_loss << " dev acc " << p.dev.accuracy
                  << " f1 " << p.dev.f1 << " (best epoch " << p.best_epoch << ") " << elapsed() << " s\n";
      else if (p.batch - last_report >= 40 || p.batch < last_report) {
        last_report = p.batch;
        std::cerr << "  epoch " << p.epoch << " batch " << p.batch << "/" << p.batches << " loss " << p.train_loss << " "
                  << elapsed() << " s\n";
      }
      return true;
    });
    const double seconds = elapsed();
    const StorageType st = o->storage == "f16" ? StorageType::F16 : StorageType::F32;
    if (st == StorageType::F16)
      for (Mat<float>* m : model.params.list()) *m = m->unaryExpr([](float v) { return round_to_half(v); });
    json metrics;
    metrics["dev"] = han_metrics_json(han_evaluate(model, dev_set));
    if (!o->test.empty()) metrics["test"] = han_metrics_json(han_evaluate(model, encode_han(model, load_raw_tsv(o->test), o->test, 0)));
    json epochs_json = json::array();
    for (size_t e = 0; e < result.dev_per_epoch.size(); ++e)
      epochs_json.push_back({{"epoch", e + 1}, {"train_loss", result.train_loss_per_epoch[e]},
                             {"dev", han_metrics_json(result.dev_per_epoch[e])}});
    json extra;
    extra["training"] = {
        {"train", o->train},
        {"dev", o->dev.empty() ? "every " + std::to_string(std::lround(1.0 / o->dev_fraction)) + "th example of --train (" +
                                     std::to_string(dev_raw.size()) + ")"
                               : o->dev},
        {"train_examples", train_set.size()}, {"train_sentences", sentences}, {"train_tokens", tokens},
        {"min_count", o->min_count}, {"max_vocab", o->max_vocab}, {"epochs", o->epochs}, {"batch_size", o->batch_size},
        {"parts", static_cast<int>(train_parts(static_cast<size_t>(o->batch_size), o->parts))},
        {"optimizer", "adam amsgrad"}, {"lr", o->lr}, {"weight_decay", o->weight_decay},
        {"loss", "class-balanced cross-entropy (sum over batch)"}, {"selection", "best dev accuracy"},
        {"best_epoch", result.best_epoch}, {"seed", o->seed}, {"storage", o->storage}, {"seconds", seconds},
        {"sentence_splitter", "core/text/sentence_splitter.h"}, {"per_epoch", epochs_json}};
    extra["metrics"] = metrics;
    extra["provenance"] = {{"command", command_line}};
    model.extra_json = extra.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::error_code ec;
    std::filesystem::create_directories(o->out, ec);
    std::string error;
    if (!write_file(o->out + "/config.json", han_model_config_json(model), &error) ||
        !write_file(o->out + "/model.safetensors", han_model_weights(model, st), &error))
      fail(error);
    std::cout << json({{"out", o->out}, {"best_epoch", result.best_epoch}, {"seconds", seconds}, {"metrics", metrics}}).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
              << std::endl;
    return 0;
  };
}

}  // namespace attnlab::cli
