// The catalogue entries of the ONNX methods (see method_catalogue.h).
#include "explain/onnx/method_catalogue.h"

namespace attnlab {

namespace {
const std::vector<ParamSpec>& option_specs() {
  static const std::vector<ParamSpec> specs = {
      {"samples", "int", 25, 1, 1000, {}, "SmoothGrad: noisy copies averaged"},
      {"noise", "number", 0.15, 0, 1, {}, "SmoothGrad: noise σ as a fraction of the input's range"},
      {"steps", "int", 32, 1, 1000, {}, "integrated gradients: path steps (midpoint rule)"},
      {"seed", "int", 0, 0, 9007199254740991.0, {}, "SmoothGrad: seed of the noise; random: seed of the map"},
  };
  return specs;
}
std::vector<ParamSpec> pick(std::initializer_list<const char*> names) {
  std::vector<ParamSpec> out;
  for (const char* n : names) out.push_back(*find_param(option_specs(), n));
  return out;
}
}  // namespace

const std::vector<OnnxMethodInfo>& onnx_method_catalogue() {
  static const std::vector<OnnxMethodInfo> all = {
      {"gradcam", "Grad-CAM", "layer", "Grad-CAM (Selvaraju et al. 2017): the layer's channels weighted by their mean gradient.", {}},
      {"gradcampp", "Grad-CAM++", "layer", "Grad-CAM++ (Chattopadhay et al. 2018): higher-order weights of the positive gradients.", {}},
      {"hirescam", "HiResCAM", "layer", "HiResCAM (Draelos & Carin 2020): gradient times activation per position, summed over channels.", {}},
      {"xgradcam", "XGrad-CAM", "layer", "XGrad-CAM (Fu et al. 2020): channel weights normalised by the activation.", {}},
      {"layercam", "LayerCAM", "layer", "LayerCAM (Jiang et al. 2021): positive gradient times activation per position.", {}},
      {"ablationcam", "AblationCAM", "layer",
       "AblationCAM (Desai & Ramaswamy 2020): each channel is zeroed in turn and the rest of the network re-run; its weight is the relative drop of the class score. One partial pass per channel.", {}},
      {"eigencam", "EigenCAM", "layer", "EigenCAM (Muhammad & Yeasin 2020): the first principal component of the activations; no gradient, no class.", {}},
      {"cam", "CAM", "layer",
       "CAM (Zhou et al. 2016): the layer's channels weighted by the linear classifier's weights of the class; only for a model whose head after the layer is global average pooling + one linear layer (Grad-CAM generalises it).", {}},
      {"random", "Random (baseline)", "layer",
       "Random baseline: values uniform in [0, 1) from the seed over the layer's grid, blind to the model and the photo. A method that explains the model should beat it on the deletion and insertion curves.",
       pick({"seed"})},
      {"gradient", "Gradient", "input", "Input gradient (Simonyan et al. 2014): max over channels of |∂ score / ∂ pixel|.", {}},
      {"gradient-x-input", "Gradient × input", "input",
       "Gradient × input (Shrikumar et al. 2016): each pixel's value times the score's gradient there, summed over the colour channels (signed).", {}},
      {"smoothgrad", "SmoothGrad", "input", "SmoothGrad (Smilkov et al. 2017): the gradient averaged over noisy copies of the photo.",
       pick({"samples", "noise", "seed"})},
      {"integrated-gradients", "Integrated gradients", "input",
       "Integrated gradients (Sundararajan et al. 2017) from an all-zero input; completeness: the attributions sum to score(x) − score(0).",
       pick({"steps"})},
      {"attention", "Attention (last layer)", "attention",
       "A vision transformer's own attention: what the class token attends to in the last layer, heads averaged, over the patch grid. Only for models with attention.", {}},
      {"rollout", "Attention rollout", "attention",
       "Attention rollout (Abnar & Zuidema 2020): every layer's head-averaged attention, mixed half and half with the residual connection, multiplied through; the class token's row over the patch grid.", {}},
      {"chefer", "Chefer relevance", "attention",
       "Chefer relevance (Chefer, Gur & Wolf 2021): each layer's attention weighted by its gradient (positive part, heads averaged), accumulated from the bottom; the class token's row over the patch grid.", {}},
      {"attnlrp", "AttnLRP", "attention",
       "AttnLRP (Achtibat et al. 2024), its rules found in the graph: LayerNorm scales held, GELU passed through, half to each factor of Q·Kᵀ and A·V; the class's logit split over the pixels (x × the propagated quantity), summed per patch. Signed: the map's low end is against the class; the line under it says what the pixels carry of the logit.", {}},
      {"cp-lrp", "CP-LRP", "attention",
       "CP-LRP (Ali et al. 2022): as AttnLRP but every attention distribution held fixed, so relevance flows through the values only; summed per patch, signed.", {}},
  };
  return all;
}

const OnnxMethodInfo* find_onnx_method_info(const std::string& name) {
  for (const auto& m : onnx_method_catalogue())
    if (m.name == name) return &m;
  return nullptr;
}

std::string onnx_options_from_json(const nlohmann::json& options, InputMethodOptions* out) {
  if (!options.is_object()) return "options must be a JSON object";
  const std::string bad = check_params(option_specs(), options);
  if (!bad.empty()) return bad;
  out->samples = param_or_default(option_specs(), options, "samples").get<int>();
  out->noise = param_or_default(option_specs(), options, "noise").get<double>();
  out->steps = param_or_default(option_specs(), options, "steps").get<int>();
  out->seed = param_or_default(option_specs(), options, "seed").get<uint64_t>();
  return "";
}

std::vector<std::string> onnx_scaling_names() { return {"imagenet", "unit", "signed", "raw"}; }

}  // namespace attnlab
