// Layer-wise relevance propagation on the core's transformer (AttnLRP, CP-LRP): one forward, one backward under a
// propagation rule (model/transformer.h PropagationRule), relevance = input ⊙ the propagated quantity. The
// explained output is the target class's logit (binary, one logit z: z for class 1, −z for class 0).
// Conservation is reported, not assumed: the token relevances, the [CLS] and position embeddings' shares and the
// logit come back together; what is missing is what the biases (linear layers, LayerNorm betas, the decoder) and,
// for AttnLRP, the softmax rule's bias terms absorbed.
#pragma once
#include <vector>

#include "explain/importance.h"

namespace attnlab {

struct LrpRelevance {
  std::vector<double> tokens;  // one signed value per token (Σ_e x_te · r_te over the token embedding)
  double cls = 0;              // the [CLS] embedding's share
  double positions = 0;        // the position embeddings' share, summed
  double logit = 0;            // the explained output
  // logit − (Σ tokens + cls + positions): what biases and the softmax rule's bias terms absorbed.
  double unexplained() const;
};

// ids >= 1 token (cut to the model's max_len, as the forward does). Requires a transformer model; rule != Gradient
// gives the propagation rule, Gradient gives gradient × input.
template <class T>
LrpRelevance transformer_relevance(const TextConfig& cfg, const TextParams<T>& params, const std::vector<int>& ids,
                                   int target, PropagationRule rule);

// The methods (ExplainInput signature, one file each): the token relevances.
std::vector<double> attnlrp_importance(const ExplainInput& in);  // attnlrp_importance.cpp
std::vector<double> cp_lrp_importance(const ExplainInput& in);   // cp_lrp_importance.cpp

}  // namespace attnlab
