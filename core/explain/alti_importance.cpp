// ALTI (Ferrando et al., EMNLP 2022) rolled out to the [CLS] row, in double (context_mixing.h).
#include "explain/context_mixing.h"

namespace attnlab {

std::vector<double> alti_importance(const ExplainInput& in) {
  std::vector<double> r = mixing_rollout(
      alti_layers(*in.cfg, transformer_in_double(*in.params), embedded_in_double(*in.params, in.ids)));
  r.resize(in.ids.size(), 0.0);  // tokens past max_len (or no layers): 0
  return r;
}

}  // namespace attnlab
