// Value zeroing (Mohebbi et al., EACL 2023) rolled out to the [CLS] row (context_mixing.h). The n² block forwards run
// in the model's own precision (float: the SIMD kernels; in double they cost 2.3× natively and more in wasm); the
// cosine distances are taken in double from the float outputs, which keeps them within 1e-4 of the double
// reference (tests/core/test_propagation_rules.cpp).
#include "explain/context_mixing.h"

namespace attnlab {

std::vector<double> value_zeroing_importance(const ExplainInput& in) {
  std::vector<double> r = mixing_rollout(value_zeroing_layers(*in.cfg, *in.params, in.ids));
  r.resize(in.ids.size(), 0.0);  // tokens past max_len (or no layers): 0
  return r;
}

}  // namespace attnlab
