// Raw self-attention: the [CLS] row of one layer over the tokens, averaged over the heads (per-head rows are in
// SelfAttentionMaps::A). Unlike the interface's "attention" (the last layer's row renormalised over the tokens),
// this keeps the weight [CLS] puts on itself out of the sum, so the values need not add up to 1.
#include "explain/self_attention_maps.h"

namespace attnlab {

std::vector<double> raw_attention_from_maps(const SelfAttentionMaps& m, int layer) {
  const int l = layer < 0 ? m.layers - 1 : layer;
  return cls_row(fuse_heads(m.A[l], HeadFusion::Mean));
}

}  // namespace attnlab
