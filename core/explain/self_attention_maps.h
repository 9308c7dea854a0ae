// The self-attention state of one input, read from one forward (and, for the gradient-weighted methods, one
// backward) of a transformer text model — what every self-attention explanation uses: the attention
// probabilities of every layer and head over all positions ([CLS] first), the value vectors and output
// projections for norm-based importance, and d logit_target / d A. Methods built on it, one per file:
//   rollout_importance.cpp, attention_flow_importance.cpp, relevance_importance.cpp,
//   grad_attention_importance.cpp, attention_norm_importance.cpp, raw_attention_importance.cpp.
#pragma once
#include <string>
#include <vector>

#include "explain/importance.h"

namespace attnlab {

struct SelfAttentionMaps {
  int layers = 0, heads = 0, n = 0;          // n = T + 1 positions ([CLS] at 0)
  std::vector<std::vector<Mat<double>>> A;   // [layer][head] [n x n], row = query, column = key
  std::vector<std::vector<Mat<double>>> dA;  // d logit_target / d A (same shape); empty without gradients
  // Kobayashi et al.: per layer, f_h(x_j) = Wo[:, head h] v_h,j, [layer][head] [d x n].
  std::vector<std::vector<Mat<double>>> transformed_values;
  std::vector<double> probabilities;         // class probabilities of the input
};

// One forward (+ one backward when with_gradients) of in.ids (>= 1 token; cut to the model's max_len).
// Requires a transformer model.
SelfAttentionMaps self_attention_maps(const ExplainInput& in, bool with_gradients);

enum class HeadFusion { Mean, Max, Min };
const char* head_fusion_name(HeadFusion f);

// The heads of one layer fused ([n x n]).
Mat<double> fuse_heads(const std::vector<Mat<double>>& heads, HeadFusion fusion);

// Abnar & Zuidema: Ã = 0.5·A + 0.5·I with rows renormalised to sum 1.
Mat<double> residual_augmented(const Mat<double>& A);

// Rollout through the given layers (bottom first): R = Ã_L ··· Ã_1 (Ã from residual_augmented).
Mat<double> attention_rollout(const std::vector<Mat<double>>& fused_layers);

// Maximum flow in the layered attention graph of the given (already residual-augmented) layers: nodes (l, i),
// l = 0..L, i = 0..n-1; an edge (l, j) -> (l+1, i) of capacity C_l[i, j]. Returns the max flow from (0, source)
// to (L, sink) — exact (Dinic's algorithm on the DAG; capacities are doubles).
double layered_max_flow(const std::vector<Mat<double>>& capacities, int source, int sink);

// Raw [CLS] row over the tokens (length T) of a map [n x n].
std::vector<double> cls_row(const Mat<double>& m);

// Importance methods on a transformer (ExplainInput signature; [CLS] excluded, one value per token):
std::vector<double> rollout_importance(const ExplainInput& in);           // mean fusion, all layers
std::vector<double> attention_flow_importance(const ExplainInput& in);    // mean fusion, all layers
std::vector<double> relevance_importance(const ExplainInput& in);         // Chefer et al. 2021
std::vector<double> grad_attention_importance(const ExplainInput& in);    // mean_h (A ⊙ dA) of the last layer
std::vector<double> attention_norm_importance(const ExplainInput& in);    // Kobayashi et al. 2020, last layer
// The same from maps already computed (no further forward pass). `layers`: how many bottom layers to use
// (0 = all) — Abnar & Zuidema's per-layer curves.
std::vector<double> rollout_from_maps(const SelfAttentionMaps& m, HeadFusion fusion, int layers = 0);
std::vector<double> flow_from_maps(const SelfAttentionMaps& m, HeadFusion fusion, int layers = 0);
// Attention flow's cost: one max-flow per position on a graph of layers·n² edges, ~layers·n²·(n − 1) steps and
// memory in layers·n² (5 layers × 512 positions: 40 s natively). Where a user's text can be long (an ONNX
// transformer, the page's per-layer curves) flow is computed only while flow_affordable, and otherwise left out
// with flow_limit_note. `layers` is the sum over the graphs built (per-layer curves: 1 + 2 + … + L).
constexpr double kFlowMaxWork = 6e7;
bool flow_affordable(int positions, int layers);
std::string flow_limit_note(int positions, int layers);
std::vector<double> relevance_from_maps(const SelfAttentionMaps& m);
std::vector<double> grad_attention_from_maps(const SelfAttentionMaps& m);
std::vector<double> attention_norm_from_maps(const SelfAttentionMaps& m, int layer = -1);  // -1 = last
// Raw [CLS] row of a layer, head-averaged (layer -1 = last).
std::vector<double> raw_attention_from_maps(const SelfAttentionMaps& m, int layer = -1);

}  // namespace attnlab
