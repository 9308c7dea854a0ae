// `attnlab global-view --model DIR [--data TRAIN.tsv] [--top N] [--level word|sentence]`: which words (or
// sentences) lie closest to the learned attention query of an additive-attention model (core/explain/
// global_view.h): flat tanh text models (level word) and HAN models (word or sentence). Without --data the
// contextual scores come from the training file recorded in the model's config ("training.train"). The last
// stdout line is one JSON object (global_view_json, plus model, data).
#include <iostream>
#include <nlohmann/json.hpp>

#include "explain/global_view.h"
#include "files.h"
#include "han_command.h"

namespace attnlab::cli {

std::function<int()> add_global_view_command(CLI::App& app) {
  struct Opts {
    std::string model, data, level = "word";
    int top = 50;
  };
  auto o = std::make_shared<Opts>();
  auto* sub = app.add_subcommand("global-view", "rank words / sentences by their score against the attention query");
  sub->add_option("--model", o->model, "model folder (tanh text model or HAN)")->required();
  sub->add_option("--data", o->data, "training TSV for the contextual scores (default: the model's training file)");
  sub->add_option("--top", o->top, "top and bottom N")->check(CLI::Range(1, 100000));
  sub->add_option("--level", o->level, "word | sentence (HAN)")->check(CLI::IsMember({"word", "sentence"}));
  return [sub, o]() -> int {
    if (!*sub) return -1;
    auto training_file = [&](const std::string& extra_json) {
      if (!o->data.empty()) return o->data;
      const nlohmann::json j = nlohmann::json::parse(extra_json, nullptr, false);
      if (j.is_object() && j.contains("training") && j["training"].contains("train") && j["training"]["train"].is_string())
        return j["training"]["train"].get<std::string>();
      fail("--data is needed (the model's config names no training file)");
    };
    GlobalView view;
    std::vector<std::string> class_names;
    std::string data;
    if (is_han_dir(o->model)) {
      const HanModel model = load_han(o->model);
      data = training_file(model.extra_json);
      std::vector<HanDocument> docs;
      for (const auto& ex : encode_han(model, load_raw_tsv(data), data, 0)) docs.push_back(ex.doc);
      view = global_view_han(model, docs, o->level);
      class_names = model.class_names;
    } else {
      const TextModel model = load_model(o->model);
      if (o->level != "word") fail("--level sentence needs a HAN model");
      data = training_file(model.extra_json);
      std::vector<std::vector<int>> train;
      for (const auto& ex : encode_examples(model.vocab, load_tsv(data, model.max_tokens), model.config.num_classes, data))
        train.push_back(ex.ids);
      view = global_view_text(model, train);
      class_names = model.class_names;
    }
    if (!view.error.empty()) fail(o->model + ": " + view.error);
    nlohmann::json j = nlohmann::json::parse(global_view_json(view, o->top, class_names));
    j["model"] = o->model;
    j["data"] = data;
    std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << std::endl;
    return 0;
  };
}

}  // namespace attnlab::cli
