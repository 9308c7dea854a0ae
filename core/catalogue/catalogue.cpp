#include "catalogue/catalogue.h"

#include "experiments/experiment.h"
#include "experiments/han_attention_model.h"
#include "explain/explain_text.h"
#include "explain/image/image_method.h"
#include "explain/image/method_catalogue.h"
#include "explain/onnx/method_catalogue.h"
#include "explain/onnx/vit_maps.h"  // vit_method_is_forward_only
#include "onnx/executor.h"  // kMinOpset, kMaxOpset
#include "train/cnn_options.h"
#include "train/text_options.h"

namespace attnlab {
namespace {

nlohmann::json text_part() {
  const ExplainOptions d;
  nlohmann::json explain = nlohmann::json::array();
  explain.push_back(ParamSpec{"max_tokens", "int", d.max_tokens, 1, kMaxExplainTokens, {}, "the text is cut to its first N tokens (at most " + std::to_string(kMaxExplainTokens) + ")"}.to_json());
  explain.push_back(ParamSpec{"ig_steps", "int", d.ig_steps, 0, 10000, {}, "integrated-gradients steps (0: none)"}.to_json());
  const nlohmann::json methods = nlohmann::json::parse(R"J([
    {"name": "attention", "label": "attention", "signed": false,
     "description": "the model's attention weights alpha_t (uniform models: 1/T by construction)"},
    {"name": "gradient", "label": "gradient", "signed": false,
     "description": "Jain & Wallace: |sum_e x_te d p(predicted) / d x_te| with attention held constant, normalised to sum 1"},
    {"name": "leave_one_out", "label": "leave-one-out", "signed": false,
     "description": "|p(predicted) - p(predicted) without the token|"},
    {"name": "integrated_gradients", "label": "integrated gradients", "signed": true,
     "description": "integrated gradients from the all-zero embedding baseline (Kendall tau uses |value|)"}])J");
  // A transformer's further rows (explain_text.h; the ERASER / plausibility measures of experiments/measure_scores.h).
  const nlohmann::json transformer_methods = nlohmann::json::parse(R"J([
    {"name": "rollout", "label": "rollout", "signed": false,
     "description": "Abnar & Zuidema 2020: heads averaged, 0.5 A + 0.5 I, multiplied through the layers; the [CLS] row"},
    {"name": "flow", "label": "attention flow", "signed": false,
     "description": "Abnar & Zuidema 2020: maximum flow from the token to [CLS] through the layered attention graph"},
    {"name": "relevance", "label": "Chefer relevance", "signed": false,
     "description": "Chefer et al. 2021: (gradient x attention)+ averaged over heads, propagated through the layers"},
    {"name": "grad_attention", "label": "attention x gradient", "signed": false,
     "description": "last layer: A (.) d logit / d A, heads averaged; the [CLS] row"},
    {"name": "attention_norm", "label": "attention norm", "signed": false,
     "description": "Kobayashi et al. 2020: || sum_h A_h[CLS, j] f_h(x_j) || in the last layer"},
    {"name": "attnlrp", "label": "AttnLRP", "signed": true,
     "description": "Achtibat et al. 2024: the logit propagated with LayerNorm's scale held, GELU identity, half to each factor of Q K^T and A V; input x relevance"},
    {"name": "cp_lrp", "label": "CP-LRP", "signed": true,
     "description": "Ali et al. 2022: the attention held constant, LayerNorm's scale held, GELU identity; input x relevance"},
    {"name": "value_zeroing", "label": "value zeroing", "signed": false,
     "description": "Mohebbi et al. 2023: cosine distance of each layer output with the token's values zeroed, rows normalised, rolled out"},
    {"name": "alti", "label": "ALTI", "signed": false,
     "description": "Ferrando et al. 2022: L1 closeness of each token's exact share of the attention sublayer's output, rows normalised, rolled out"}])J");
  return {{"explain", explain},
          {"methods", methods},
          {"transformer_methods", transformer_methods},
          {"class_names", default_text_class_names()},
          {"training", params_json(text_training_specs())},
          {"adversary", params_json(adversary_training_specs())}};
}

nlohmann::json experiments_part() {
  nlohmann::json out = nlohmann::json::array();
  for (const Experiment& e : experiment_registry())
    out.push_back({{"name", e.name}, {"description", e.description}, {"params", params_json(e.params)},
                   {"per_instance", true},
                   {"needs", {{"min_tokens", e.min_tokens}, {"learned_attention", false},
                              {"other_models", e.needs_other_models}, {"human_rationales", e.needs_human_rationales}}}});
  for (const TrainingExperimentInfo& e : training_experiments())
    out.push_back({{"name", e.name}, {"description", e.description}, {"params", params_json(e.params)},
                   {"per_instance", false},
                   {"needs", {{"min_tokens", 1}, {"learned_attention", e.needs_learned_attention},
                              {"other_models", false}, {"human_rationales", false}}}});
  return out;
}

// The debate experiments that run on a HAN (the registry's, through HanAttentionModel; check_han_experiment decides,
// as for the CLI and the bindings), each at either level (param "level").
nlohmann::json han_experiments_part() {
  static const HanModel no_weights;  // the kind is all the check reads
  nlohmann::json out = nlohmann::json::array();
  for (const Experiment& e : experiment_registry()) {
    nlohmann::json params = nlohmann::json::object();
    bool word = false;
    if (check_han_experiment(e, no_weights, &params, &word).empty())
      out.push_back({{"name", e.name}, {"levels", {"sentence", "word"}}});  // described under "experiments"
  }
  return out;
}

nlohmann::json image_part() {
  nlohmann::json methods = nlohmann::json::array();
  for (const ImageMethodInfo& m : image_method_catalogue())
    methods.push_back({{"name", m.name}, {"label", m.label}, {"kind", m.kind}, {"description", m.description},
                       {"passes", m.passes}, {"params", params_json(m.params)},
                       {"passes_default", image_method_passes(m.name, nlohmann::json::object(), 1280)}});
  return {{"methods", methods}, {"feature_methods", image_method_names()},
          {"colormaps", {"viridis", "inferno", "gray", "jet"}}, {"erase_fills", {"mean", "blur", "grey"}},
          {"default_channels", 1280}};
}

nlohmann::json onnx_part() {
  nlohmann::json methods = nlohmann::json::array();
  for (const OnnxMethodInfo& m : onnx_method_catalogue())
    methods.push_back({{"name", m.name}, {"label", m.label}, {"kind", m.kind}, {"description", m.description},
                       {"params", params_json(m.params)}, {"forward_only", vit_method_is_forward_only(m.name)}});
  return {{"methods", methods}, {"scalings", onnx_scaling_names()}, {"opsets", {onnx::kMinOpset, onnx::kMaxOpset}},
          {"plans", {"scorecam", "rise", "occlusion", "deletion", "insertion"}}};
}

nlohmann::json cnn_part() {
  return {{"options", params_json(cnn_option_specs())}, {"recipes", cnn_recipes()}, {"default_recipe", "page"},
          {"class_names", cnn_class_names(5)}};
}

}  // namespace

nlohmann::json catalogue_json() {
  return {{"format", "attnlab-catalogue-v1"}, {"text", text_part()}, {"experiments", experiments_part()},
          {"han_experiments", han_experiments_part()}, {"image", image_part()}, {"onnx", onnx_part()}, {"cnn", cnn_part()}};
}

}  // namespace attnlab
