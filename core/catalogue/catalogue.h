// One catalogue of what the core offers, read by the CLI (`attnlab catalogue`) and the page (`Module.catalogue()`)
// so pickers, URL schema and help text are built from it: the text importance methods and explanation
// defaults, the image map methods and metric plans (parameters, network passes), the methods on a user's ONNX
// classifier (explain/onnx/method_catalogue.h), every experiment (name,
// description, parameters with defaults and ranges, what it needs), the in-page training recipes (text trainer,
// adversary, CNN options and the page / tiny / full recipes), the colour maps and erase fills, and the default
// class names. Assembled from the registries (experiments/registry.cpp, explain/image/registry.cpp,
// train/*_options.cpp); nothing here is a second copy.
#pragma once
#include <nlohmann/json.hpp>

namespace attnlab {

nlohmann::json catalogue_json();

}  // namespace attnlab
