// A transformer instance with everything below the last layer's [CLS] attention frozen, for the experiments
// that intervene on "the attention" (experiments/frozen_encoder.h): with alpha imposed on the last layer's
// [CLS] query in every head (row [c_h, (1 - c_h)·alpha], self_attention.h), the output is a small function
// of alpha: ctx_h = c_h v_h,0 + (1 - c_h) sum_t alpha_t v_h,t;  then Wo, the residual, the FFN sub-block,
// the final LayerNorm and the decoder — all in double. Equals the full forward with alpha_override.
#pragma once
#include <vector>

#include "model/text_model.h"

namespace attnlab {

struct TransformerFrozen {
  TransformerBlockParams<double> last;  // the last block's parameters
  LayerNormParams<double> ln_f;
  LinearParams<double> decoder;
  int heads = 1;
  Vec<double> x_cls;          // [d] the last block's input at [CLS]
  Mat<double> v;              // [d x (T+1)] its value vectors (incl. bias), [CLS] first
  std::vector<double> self;   // per head: the model's own weight of [CLS] on itself (c_h)
  std::vector<double> alpha;  // the model's alpha (head-averaged [CLS] row over the tokens, renormalised)
};

// From a float forward of one sequence (cache of text_forward_ids on {ids}).
TransformerFrozen freeze_transformer(const TextConfig& cfg, const TextParams<float>& p, const TextCache<float>& cache);

// Logits [C'] for imposed weights alpha (length T, used as given).
Vec<double> transformer_frozen_logits(const TransformerFrozen& f, const std::vector<double>& alpha);
// d (w · logits) / d alpha for a weight vector w [C'] (length T).
std::vector<double> transformer_frozen_grad(const TransformerFrozen& f, const std::vector<double>& alpha,
                                            const Vec<double>& w);

}  // namespace attnlab
