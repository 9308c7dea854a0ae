// CP-LRP (Ali et al., ICML 2022, "conservative propagation") on the core's transformer: the attention held
// constant, LayerNorm's scale held constant; the token relevances of the explained logit (signed).
#include "explain/lrp_relevance.h"

namespace attnlab {

std::vector<double> cp_lrp_importance(const ExplainInput& in) {
  return transformer_relevance(*in.cfg, *in.params, in.ids, in.target, PropagationRule::CpLrp).tokens;
}

}  // namespace attnlab
