// Name -> image explanation method (see image_method.h).
#include "explain/image/image_method.h"

namespace attnlab {
namespace {
struct Entry {
  const char* name;
  ImageMethodFn fn;
};
const Entry kMethods[] = {
    {"cam", &cam_map}, {"gradcam", &grad_cam_map}, {"gradcampp", &grad_cam_plus_plus_map}, {"random", &random_map}};
}  // namespace

ImageMethodFn find_image_method(const std::string& name) {
  for (const Entry& e : kMethods)
    if (name == e.name) return e.fn;
  return nullptr;
}

std::vector<std::string> image_method_names() {
  std::vector<std::string> names;
  for (const Entry& e : kMethods) names.push_back(e.name);
  return names;
}

bool image_method_inputs_ok(const FeatureMapsView& F, const GapLinearHead<float>& head, int class_index) {
  return F.data && F.h >= 1 && F.w >= 1 && F.k == head.channels && class_index >= 0 &&
         class_index < head.classes && head.weight.size() == static_cast<size_t>(head.classes) * head.channels;
}

}  // namespace attnlab
