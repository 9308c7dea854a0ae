// What the catalogue (core/catalogue) says about each image map method and metric plan: name, label, kind
// ("map": from the features and the head, no network pass; "plan": a perturbation plan, plan.h), a one-line
// description, its parameters (defaults and ranges: the page's defaults), and the number of network passes
// its plan needs as a function of those parameters (image_method_passes; `passes` is the same rule in words).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catalogue/param_spec.h"

namespace attnlab {

struct ImageMethodInfo {
  std::string name, label, kind, description, passes;
  std::vector<ParamSpec> params;
};

// Map methods in the page's order (cam, gradcam, gradcampp, scorecam, rise, occlusion, random), then the
// metric plans (deletion, insertion, explanationMask).
const std::vector<ImageMethodInfo>& image_method_catalogue();
const ImageMethodInfo* find_image_method_info(const std::string& name);

// Network passes of name's plan for params (missing keys: the defaults; channels = K of the features), or -1 for
// an unknown name or bad parameters (*error set when non-null). Map methods: 0.
long image_method_passes(const std::string& name, const nlohmann::json& params, int channels, std::string* error = nullptr);

}  // namespace attnlab
