// The catalogue (core/catalogue) and the option logic moved out of the bindings: the catalogue lists every
// registry entry; its defaults are the ones the code uses (each experiment run with {} and with the listed
// defaults gives identical rows, and a changed value changes them — the negative control); the pass counts
// equal the plans' count(); the spec checks give the messages the bindings relied on; the CNN and text
// training setups take their defaults from the specs, and every CNN recipe is a valid setup.
#include <gtest/gtest.h>

#include "experiments/text_attention_model.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "catalogue/catalogue.h"
#include "experiments/han_attention_model.h"
#include "catalogue/param_spec.h"
#include "experiments/experiment.h"
#include "explain/explain_text.h"
#include "explain/image/image_method.h"
#include "explain/image/method_catalogue.h"
#include "explain/image/plan.h"
#include "metrics/deletion_insertion.h"
#include "train/cnn_options.h"
#include "train/text_options.h"

namespace attnlab {
namespace {

using nlohmann::json;

TextModel tiny_model(AttentionKind kind, float scale = 1.5f) {
  TextModel m;
  m.config.attention = kind;
  m.config.vocab_size = 10;
  m.config.embedding_dim = 4;
  m.config.hidden_dim = 3;
  m.config.num_classes = 2;
  std::vector<std::string> words = {"<pad>", "<unk>"};
  for (int i = 2; i < 10; ++i) words.push_back("w" + std::to_string(i));
  m.vocab = Vocab(words);
  Rng rng(7);
  m.params.init(m.config, rng);
  for (Mat<float>* p : m.params.list()) *p *= scale;
  return m;
}

json spec_defaults(const std::vector<ParamSpec>& specs) {
  json d = json::object();
  for (const ParamSpec& s : specs) d[s.name] = s.def;
  return d;
}

TEST(Catalogue, ListsEveryRegistryEntry) {
  const json c = catalogue_json();
  EXPECT_EQ(c["format"], "attnlab-catalogue-v1");
  std::vector<std::string> names;
  for (const auto& e : c["experiments"]) names.push_back(e["name"]);
  size_t i = 0;
  for (const Experiment& e : experiment_registry()) {
    ASSERT_LT(i, names.size());
    EXPECT_EQ(names[i++], e.name);
  }
  for (const TrainingExperimentInfo& e : training_experiments()) EXPECT_EQ(names[i++], e.name);
  EXPECT_EQ(i, names.size());
  // The HAN's experiments are the registry's that run on its kind, in the registry's order (negative control: the
  // ones that read a flat model's parameters or single tokens are not listed).
  std::vector<std::string> han;
  for (const auto& e : c["han_experiments"]) han.push_back(e["name"]);
  EXPECT_EQ(han, (std::vector<std::string>{"kendall", "permutation", "adversarial", "erase-max", "erase-until-flip"}));
  const HanModel no_weights;
  for (const Experiment& e : experiment_registry()) {
    nlohmann::json params = nlohmann::json::object();
    bool word = false;
    const bool runs = check_han_experiment(e, no_weights, &params, &word).empty();
    EXPECT_EQ(runs, std::find(han.begin(), han.end(), e.name) != han.end()) << e.name;
  }
  std::vector<std::string> feature;
  for (const auto& m : c["image"]["methods"])
    if (m["kind"] == "map") feature.push_back(m["name"]);
  std::vector<std::string> registry = image_method_names();
  std::sort(feature.begin(), feature.end());
  std::sort(registry.begin(), registry.end());
  EXPECT_EQ(feature, registry);  // every map method of the catalogue is a registered function and back
  for (const std::string& n : feature) EXPECT_NE(find_image_method(n), nullptr) << n;
  EXPECT_EQ(c["text"]["class_names"], json({"negative", "positive"}));
  EXPECT_EQ(c["cnn"]["class_names"], json({"circle", "square", "triangle", "cross", "ring"}));
  EXPECT_TRUE(c["cnn"]["recipes"].contains("page") && c["cnn"]["recipes"].contains("tiny") &&
              c["cnn"]["recipes"].contains("full"));
}

TEST(Catalogue, ExplainDefaultsAreTheCoreDefaults) {
  const json c = catalogue_json();
  const ExplainOptions d;
  for (const auto& p : c["text"]["explain"]) {
    if (p["name"] == "ig_steps") EXPECT_EQ(p["default"], d.ig_steps);
    if (p["name"] == "max_tokens") EXPECT_EQ(p["default"], d.max_tokens);
  }
  EXPECT_EQ(d.ig_steps, 50);  // one value for the page and the CLI (the page's 20 is gone)
}

// Every per-instance experiment gives the same row with {} as with its listed defaults; changing one listed
// parameter changes the row (so the parameter is really read under that name).
TEST(Catalogue, ExperimentDefaultsAreTheOnesTheCodeUses) {
  const TextModel model = tiny_model(AttentionKind::Tanh, 4.f);  // saturated: IG with few steps ranks differently
  Instance in{3, 1, {"w2", "w5", "w3", "w7", "w9", "w4", "w8", "w6"}, {2, 5, 3, 7, 9, 4, 8, 6}};
  in.rationale = {0, 1, 0, 0, 1, 1, 0, 0};  // plausibility needs a human rationale
  int changed = 0;
  for (const Experiment& e : experiment_registry()) {
    if (e.needs_other_models) continue;
    ExperimentOptions plain, listed;
    plain.seed = listed.seed = 4;
    listed.params = spec_defaults(e.params);
    EXPECT_EQ(check_experiment_params(e, listed.params), "") << e.name;
    auto row = [&](const ExperimentOptions& o) {
      const auto prepared = e.prepare ? e.prepare(TextAttentionModel(model), o) : nullptr;
      return run_instance(e, model, in, o, prepared.get());
    };
    EXPECT_EQ(row(plain).dump(), row(listed).dump()) << e.name;
    for (const ParamSpec& s : e.params) {
      if (s.type != "int" || !s.def.is_number_integer()) continue;
      // Some parameters act only through a ranking (eraser's ig_steps), so try a few other values.
      const int d = s.def.get<int>();
      bool differs = false;
      for (int v : {static_cast<int>(s.min), static_cast<int>(s.min) + 1, d / 2, d + 1}) {
        if (v == d || v < s.min || v > s.max) continue;
        ExperimentOptions other = plain;
        other.params[s.name] = v;
        if (row(other).dump() != row(plain).dump()) {
          differs = true;
          break;
        }
      }
      if (differs) ++changed;
      else ADD_FAILURE() << e.name << ": other values of " << s.name << " give the default's row";
    }
  }
  EXPECT_GE(changed, 4);
}

TEST(Catalogue, ExperimentParamChecks) {
  const Experiment* p = find_experiment("permutation");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(check_experiment_params(*p, {{"permutations", 50}}), "");
  EXPECT_EQ(check_experiment_params(*p, {{"permutations", 0}}), "permutations must be a number in [1, 10000]");
  EXPECT_EQ(check_experiment_params(*p, {{"permutations", 2.5}}), "permutations must be an integer");
  // a key the experiment does not read (a typo) is refused, naming the ones it takes
  EXPECT_EQ(check_experiment_params(*p, {{"permutatons", 50}}),
            "unknown parameter 'permutatons' for permutation (it takes: permutations)");
  EXPECT_EQ(check_experiment_params(*find_experiment("erase-max"), {{"steps", 5}}),
            "unknown parameter 'steps' for erase-max (it takes none)");
  EXPECT_EQ(check_experiment_params(*p, json::array()), "parameters must be a JSON object");
}

TEST(Catalogue, PassesEqualThePlansCounts) {
  const std::vector<float> image(3 * 224 * 224, 100.f), saliency(224 * 224, 0.5f);
  std::string error;
  for (auto [window, stride] : {std::pair{32, 16}, {48, 20}, {224, 1}}) {
    const auto plan = make_occlusion_plan(image, 224, 224, 0, window, stride, &error);
    ASSERT_TRUE(plan) << error;
    EXPECT_EQ(image_method_passes("occlusion", {{"window", window}, {"stride", stride}}, 1280), plan->count());
  }
  const auto rise = make_rise_plan(image, 224, 224, 0, 77, 7, 0.5, 1, &error);
  ASSERT_TRUE(rise) << error;
  EXPECT_EQ(image_method_passes("rise", {{"n", 77}}, 1280), rise->count());
  const auto del = make_curve_plan(CurveKind::Deletion, image, 224, 224, saliency, 0, 13, &error);
  ASSERT_TRUE(del) << error;
  EXPECT_EQ(image_method_passes("deletion", {{"steps", 13}}, 1280), del->count());
  const std::vector<float> features(5 * 7 * 7, 1.f);
  const auto score = make_score_cam_plan(image, 224, 224, features, 7, 7, 0, &error);
  ASSERT_TRUE(score) << error;
  EXPECT_EQ(image_method_passes("scorecam", json::object(), 5), score->count());
  EXPECT_EQ(image_method_passes("occlusion", json::object(), 1280), 1 + 13 * 13);  // defaults 32 / 16
  EXPECT_EQ(image_method_passes("cam", json::object(), 1280), 0);
  EXPECT_EQ(image_method_passes("lime", json::object(), 1280, &error), -1);
  EXPECT_EQ(error, "unknown image method 'lime'");
  EXPECT_EQ(image_method_passes("rise", {{"n", 1}}, 1280, &error), -1);
  EXPECT_EQ(error, "n must be a number in [50, 8000]");
}

TEST(Catalogue, CnnSetupFromSpecs) {
  CnnSetup s;
  ASSERT_EQ(cnn_setup_from_json(json::object(), &s), "");
  const CnnConfig c;
  const CnnTrainOptions t;
  EXPECT_EQ(s.model.config.widths, c.widths);
  EXPECT_EQ(s.model.config.image_size, c.image_size);
  EXPECT_EQ(s.train.epochs, t.epochs);
  EXPECT_EQ(s.train.optimizer, t.optimizer);
  EXPECT_DOUBLE_EQ(s.train.lr, t.lr);
  EXPECT_EQ(s.probes, 6);
  EXPECT_EQ(s.model.class_names.size(), 5u);
  for (auto it = cnn_recipes().begin(); it != cnn_recipes().end(); ++it) {
    json o = it.value();
    o.erase("label");
    CnnSetup r;
    EXPECT_EQ(cnn_setup_from_json(o, &r), "") << it.key();
    EXPECT_EQ(r.model.config.image_size, o["imageSize"].get<int>());
  }
  CnnSetup bad;
  EXPECT_EQ(cnn_setup_from_json({{"head", "avg"}}, &bad), "head must be gap, gmp or lse, got 'avg'");
  EXPECT_EQ(cnn_setup_from_json({{"epochs", 0}}, &bad), "epochs must be a number in [1, 200]");
  EXPECT_EQ(cnn_setup_from_json({{"epochs", 1.5}}, &bad), "epochs must be an integer");
  EXPECT_EQ(cnn_setup_from_json({{"widths", {8, 16}}, {"pool", {true}}}, &bad), "pool must have one entry per stage (2)");
  EXPECT_EQ(cnn_setup_from_json({{"optimizer", "rmsprop"}}, &bad), "optimizer must be sgd or adam, got 'rmsprop'");
}

TEST(Catalogue, TextTrainingSetupFromSpecs) {
  const std::string tsv = "1\tw2 w3\n0\tw4 w5\n";
  TextTrainingSetup s;
  ASSERT_EQ(text_training_setup(tsv, tsv, json::object(), &s), "");
  const TrainOptions d;
  EXPECT_EQ(s.train.epochs, d.epochs);
  EXPECT_EQ(s.train.batch_size, d.batch_size);
  EXPECT_DOUBLE_EQ(s.train.adam.lr, d.adam.lr);
  EXPECT_EQ(s.model.config.attention, AttentionKind::Tanh);
  EXPECT_EQ(s.model.config.embedding_dim, 128);
  EXPECT_EQ(s.train_set.size(), 2u);
  TextTrainingSetup bad;
  EXPECT_EQ(text_training_setup(tsv, tsv, {{"attention", "mlp"}}, &bad), "attention must be uniform, tanh or dot, got 'mlp'");
  EXPECT_EQ(text_training_setup(tsv, tsv, {{"epochs", 0}}, &bad), "epochs must be a number in [1, 1000]");
  EXPECT_EQ(text_training_setup("x\ty\n", tsv, json::object(), &bad).rfind("training data: ", 0), 0u);
  AdversarySetup a;
  const TextModel uniform = tiny_model(AttentionKind::Uniform);
  EXPECT_NE(adversary_training_setup(uniform, tsv, tsv, json::object(), &a).find("learned attention"), std::string::npos);
  const TextModel tanh = tiny_model(AttentionKind::Tanh);
  ASSERT_EQ(adversary_training_setup(tanh, tsv, tsv, {{"lambda", 0.5}}, &a), "");
  EXPECT_DOUBLE_EQ(a.lambda, 0.5);
  EXPECT_EQ(adversary_training_setup(tanh, tsv, tsv, {{"lambda", -1}}, &a), "lambda must be a number in [0, 1000000]");
}

TEST(Catalogue, TransformerTrainingSetupFromSpecs) {
  const std::string tsv = "1\tw2 w3 w4 w5 w6\n0\tw4 w5\n";
  TextTrainingSetup s;
  const json o = {{"encoder", "transformer"}, {"attention", "dot"}, {"layers", 1}, {"heads", 2},
                  {"embedding_dim", 8}, {"ffn_dim", 16}, {"max_len", 3}, {"dropout", 0.2}, {"lr", 5e-4}};
  ASSERT_EQ(text_training_setup(tsv, tsv, o, &s), "");
  EXPECT_EQ(s.model.config.encoder, EncoderKind::Transformer);
  EXPECT_EQ(s.model.config.layers, 1);
  EXPECT_EQ(s.model.config.heads, 2);
  EXPECT_EQ(s.model.config.hidden_dim, 8);
  EXPECT_EQ(s.model.config.ffn_dim, 16);
  EXPECT_EQ(s.model.max_tokens, 3);
  EXPECT_EQ(s.train_set[0].ids.size(), 3u);  // cut to max_len, as the CLI's forward does
  EXPECT_TRUE(s.train.use_adamw);
  EXPECT_DOUBLE_EQ(s.train.adamw_options.lr, 5e-4);
  EXPECT_DOUBLE_EQ(s.train.adamw_options.weight_decay, 0.01);
  EXPECT_DOUBLE_EQ(s.train.warmup_fraction, 0.1);
  EXPECT_DOUBLE_EQ(s.train.dropout, 0.2);
  EXPECT_EQ(s.model.params.transformer.layers.size(), 1u);
  // A few steps of the run move the loss, like any training.
  TextTrainingRun run(s.model.config, s.model.params, s.train_set, s.dev_set, s.train);
  const TrainProgress p = run.step(4);
  EXPECT_TRUE(std::isfinite(p.train_loss));
  TextTrainingSetup bad;
  EXPECT_EQ(text_training_setup(tsv, tsv, {{"encoder", "transformer"}, {"attention", "tanh"}}, &bad),
            "a transformer's attention is dot (scaled dot-product) or uniform (frozen 1/n rows), not tanh");
  EXPECT_EQ(text_training_setup(tsv, tsv, {{"encoder", "transformer"}, {"attention", "dot"}, {"heads", 3}}, &bad),
            "heads (3) must divide embedding_dim (128)");
  EXPECT_EQ(text_training_setup(tsv, tsv, {{"layers", 2}}, &bad), "layers is a transformer option (set encoder to transformer)");
  EXPECT_EQ(text_training_setup(tsv, tsv, {{"encoder", "transformer"}, {"attention", "dot"}, {"hidden_dim", 64}}, &bad),
            "hidden_dim is a BiLSTM option (a transformer's width is embedding_dim)");
  EXPECT_EQ(text_training_setup(tsv, tsv, {{"encoder", "rnn"}}, &bad), "encoder must be bilstm, ortho_bilstm or transformer, got 'rnn'");
  // The BiLSTM recipe is unchanged: Adam, no dropout.
  TextTrainingSetup b;
  ASSERT_EQ(text_training_setup(tsv, tsv, json::object(), &b), "");
  EXPECT_EQ(b.model.config.encoder, EncoderKind::BiLstm);
  EXPECT_FALSE(b.train.use_adamw);
  EXPECT_EQ(b.train.dropout, 0.0);
}

TEST(Catalogue, PreparedTextExplainsLikeTheText) {
  const TextModel model = tiny_model(AttentionKind::Dot);
  ExplainOptions o;
  o.max_tokens = 3;
  o.ig_steps = 8;
  const std::string text = "w2 w9 w4 nope w5";
  const PreparedText p = prepare_text(model, text, o.max_tokens);
  EXPECT_EQ(p.tokens.size(), 3u);
  EXPECT_TRUE(p.truncated);
  EXPECT_EQ(p.num_tokens_total, 5);
  EXPECT_EQ(explanation_json(explain_prepared(model, p, o)), explanation_json(explain_text(model, text, o)));
  EXPECT_NE(explanation_json(explain_prepared(model, prepare_text(model, text, 4), o)),
            explanation_json(explain_text(model, text, o)));  // negative control: another cut, another result
}

}  // namespace
}  // namespace attnlab
