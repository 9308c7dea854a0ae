// CAM (Zhou et al. 2016): map = Σ_k W[c, k] · F_k at feature resolution, no ReLU (the raw class map).
#include "explain/image/image_method.h"

namespace attnlab {

std::vector<float> cam_map(const FeatureMapsView& F, const GapLinearHead<float>& head, int class_index,
                           const MapOptions&) {
  if (!image_method_inputs_ok(F, head, class_index)) return {};
  const size_t hw = static_cast<size_t>(F.h) * F.w;
  std::vector<double> acc(hw, 0.0);
  const float* w = head.weight.data() + static_cast<size_t>(class_index) * head.channels;
  for (int k = 0; k < F.k; ++k) {
    const float* f = F.channel(k);
    for (size_t p = 0; p < hw; ++p) acc[p] += static_cast<double>(w[k]) * f[p];
  }
  return std::vector<float>(acc.begin(), acc.end());
}

}  // namespace attnlab
