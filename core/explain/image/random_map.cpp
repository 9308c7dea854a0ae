// Random baseline map: h·w values uniform in [0, 1) from Rng(seed) (same stream natively and in wasm);
// ignores the features' values and the class (still checks the inputs like every method).
#include "explain/image/image_method.h"
#include "nn/rng.h"

namespace attnlab {

std::vector<float> random_map(const FeatureMapsView& F, const GapLinearHead<float>& head, int class_index,
                              const MapOptions& options) {
  if (!image_method_inputs_ok(F, head, class_index)) return {};
  Rng rng(options.seed);
  std::vector<float> out(static_cast<size_t>(F.h) * F.w);
  for (float& v : out) v = static_cast<float>(rng.uniform());
  return out;
}

}  // namespace attnlab
