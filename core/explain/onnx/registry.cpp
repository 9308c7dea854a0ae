// Registry of the CAM-family methods on ONNX layers (see layer_method.h).
#include "explain/onnx/layer_method.h"

namespace attnlab {

namespace {
struct Entry {
  const char* name;
  LayerMethodFn fn;
  bool needs_gradient;
};
const Entry kMethods[] = {
    {"gradcam", &onnx_grad_cam, true},   {"gradcampp", &onnx_grad_cam_pp, true}, {"hirescam", &onnx_hires_cam, true},
    {"xgradcam", &onnx_xgrad_cam, true}, {"layercam", &onnx_layer_cam, true},    {"eigencam", &onnx_eigen_cam, false},
};
}  // namespace

LayerMethodFn find_layer_method(const std::string& name, bool* needs_gradient) {
  for (const auto& e : kMethods)
    if (name == e.name) {
      if (needs_gradient) *needs_gradient = e.needs_gradient;
      return e.fn;
    }
  return nullptr;
}

std::vector<std::string> layer_method_names() {
  std::vector<std::string> v;
  for (const auto& e : kMethods) v.push_back(e.name);
  return v;
}

}  // namespace attnlab
