// AttnLRP (Achtibat et al., ICML 2024) on the core's transformer: the token relevances of the explained logit
// (signed; rules in model/transformer.h, conservation in lrp_relevance.h).
#include "explain/lrp_relevance.h"

namespace attnlab {

std::vector<double> attnlrp_importance(const ExplainInput& in) {
  return transformer_relevance(*in.cfg, *in.params, in.ids, in.target, PropagationRule::AttnLrp).tokens;
}

}  // namespace attnlab
