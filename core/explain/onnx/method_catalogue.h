// What the catalogue (core/catalogue) says about the methods on a user's ONNX classifier ("Your model", the
// CLI's explain-onnx): name, label, kind ("layer": a CAM-family map at a spatial layer, layer_method.h;
// "input": an input-space attribution, input_method.h; "attention": a map from an image transformer's attention over
// its patch grid, vit_maps.h), a one-line description and its parameters (the input
// methods' options: samples, noise, steps, seed). The perturbation plans of the image lab (Score-CAM, RISE,
// occlusion, deletion / insertion) also run on user models; their entries stay in image/method_catalogue.h.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catalogue/param_spec.h"
#include "explain/onnx/input_method.h"

namespace attnlab {

struct OnnxMethodInfo {
  std::string name, label, kind, description;
  std::vector<ParamSpec> params;
};

// Layer methods first (gradcam … layercam, ablationcam (forward passes, not a LayerMethodFn), eigencam, cam, random (the
// baseline)), then the input methods (gradient, smoothgrad, integrated-gradients), then the attention methods (attention,
// rollout, chefer, attnlrp, cp-lrp).
const std::vector<OnnxMethodInfo>& onnx_method_catalogue();
const OnnxMethodInfo* find_onnx_method_info(const std::string& name);

// The input methods' options from a JSON object (missing keys: the defaults); "" or a message naming the key.
std::string onnx_options_from_json(const nlohmann::json& options, InputMethodOptions* out);

// The input scalings of core/image/model_input.h, in the page's order.
std::vector<std::string> onnx_scaling_names();

}  // namespace attnlab
