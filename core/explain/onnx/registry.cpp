// Registry of the CAM-family methods on ONNX layers (see layer_method.h).
#include "explain/onnx/layer_method.h"

namespace attnlab {

namespace {
struct Entry {
  const char* name;
  LayerMethodFn fn;
  bool needs_gradient;
  const char* no_map_reason = "";
};
const Entry kMethods[] = {
    {"gradcam", &onnx_grad_cam, true},   {"gradcampp", &onnx_grad_cam_pp, true}, {"hirescam", &onnx_hires_cam, true},
    {"xgradcam", &onnx_xgrad_cam, true}, {"layercam", &onnx_layer_cam, true},    {"eigencam", &onnx_eigen_cam, false},
    {"cam", &onnx_cam, true,
     "CAM needs a global-average-pooling + linear head right after the layer (the class score's gradient is then the "
     "same at every position of the layer); this model's head after that layer is not, so use Grad-CAM, which is CAM's "
     "generalisation"},
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

std::string layer_method_no_map_reason(const std::string& name) {
  for (const auto& e : kMethods)
    if (name == e.name) return e.no_map_reason;
  return "";
}

std::vector<std::string> layer_method_names() {
  std::vector<std::string> v;
  for (const auto& e : kMethods) v.push_back(e.name);
  return v;
}

}  // namespace attnlab
