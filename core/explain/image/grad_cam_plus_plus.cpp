// Grad-CAM++ (Chattopadhyay et al. 2018), closed form for the score S = exp(y_c) with first-order gradients
// g = ∂y_c/∂F (from the head's backward), as in the paper (eq. 19) and pytorch-grad-cam:
//   a_k,p = g² / (2 g² + (Σ_q F_k,q) · g³)   (0 where g = 0 or the denominator is 0),
//   w_k = Σ_p a_k,p · ReLU(g_k,p),   map = ReLU(Σ_k w_k F_k).
// Computed in double without an epsilon (the head's gradients are ~1e-4, where an epsilon would dominate).
#include "explain/image/image_method.h"

#include <algorithm>

namespace attnlab {

std::vector<float> grad_cam_plus_plus_map(const FeatureMapsView& F, const GapLinearHead<float>& head,
                                          int class_index, const MapOptions&) {
  if (!image_method_inputs_ok(F, head, class_index)) return {};
  const size_t hw = static_cast<size_t>(F.h) * F.w;
  std::vector<float> dlogits(head.classes, 0.f), grad(static_cast<size_t>(F.k) * hw);
  dlogits[class_index] = 1.f;
  head.backward(F.data, 1, static_cast<int>(hw), dlogits.data(), grad.data(), nullptr, nullptr);
  std::vector<double> acc(hw, 0.0);
  for (int k = 0; k < F.k; ++k) {
    const float* f = F.channel(k);
    double sum_f = 0;
    for (size_t p = 0; p < hw; ++p) sum_f += f[p];
    double wk = 0;
    for (size_t p = 0; p < hw; ++p) {
      const double g = grad[k * hw + p];
      if (g == 0) continue;
      const double den = 2 * g * g + sum_f * g * g * g;
      if (den == 0) continue;
      wk += (g * g / den) * std::max(0.0, g);
    }
    for (size_t p = 0; p < hw; ++p) acc[p] += wk * f[p];
  }
  std::vector<float> out(hw);
  for (size_t p = 0; p < hw; ++p) out[p] = static_cast<float>(std::max(0.0, acc[p]));
  return out;
}

}  // namespace attnlab
