// Value zeroing (Mohebbi et al., EACL 2023) rolled out to the [CLS] row, in double (context_mixing.h).
#include "explain/context_mixing.h"

namespace attnlab {

std::vector<double> value_zeroing_importance(const ExplainInput& in) {
  std::vector<double> r = mixing_rollout(
      value_zeroing_layers(*in.cfg, transformer_in_double(*in.params), embedded_in_double(*in.params, in.ids)));
  r.resize(in.ids.size(), 0.0);  // tokens past max_len (or no layers): 0
  return r;
}

}  // namespace attnlab
