// Grad-CAM (Selvaraju et al. 2017) at the last feature map: gradients of the class logit y_c w.r.t. F come
// from the head's backward (dlogits = one-hot c); α_k = mean over positions; map = ReLU(Σ_k α_k F_k).
#include "explain/image/image_method.h"

#include <algorithm>

namespace attnlab {

std::vector<float> grad_cam_map(const FeatureMapsView& F, const GapLinearHead<float>& head, int class_index,
                                const MapOptions&) {
  if (!image_method_inputs_ok(F, head, class_index)) return {};
  const size_t hw = static_cast<size_t>(F.h) * F.w;
  std::vector<float> dlogits(head.classes, 0.f), grad(static_cast<size_t>(F.k) * hw);
  dlogits[class_index] = 1.f;
  head.backward(F.data, 1, static_cast<int>(hw), dlogits.data(), grad.data(), nullptr, nullptr);
  std::vector<double> acc(hw, 0.0);
  for (int k = 0; k < F.k; ++k) {
    double alpha = 0;
    for (size_t p = 0; p < hw; ++p) alpha += grad[k * hw + p];
    alpha /= static_cast<double>(hw);
    const float* f = F.channel(k);
    for (size_t p = 0; p < hw; ++p) acc[p] += alpha * f[p];
  }
  std::vector<float> out(hw);
  for (size_t p = 0; p < hw; ++p) out[p] = static_cast<float>(std::max(0.0, acc[p]));
  return out;
}

}  // namespace attnlab
