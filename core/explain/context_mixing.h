// Context mixing on the core's transformer: how much each position's representation in a layer is made of each
// input position, per layer, then rolled out to the [CLS] row over the tokens (no residual added: both measures
// already include it). One forward pass of the model, then:
//   value zeroing (Mohebbi et al., EACL 2023): C_l[i, j] = cosine distance between layer l's output at i and that
//     output recomputed with token j's value vectors zeroed (every head of layer l; the residual, LayerNorm and
//     FFN recomputed), rows normalised to sum 1 — n extra forwards of one block per layer;
//   ALTI (Ferrando et al., EMNLP 2022) for a pre-LN block: the attention sublayer's output y_i = x_i +
//     Σ_j Σ_h A_h[i, j] Wo_h v_h,j + b_o splits exactly into T_i(x_j) = δ_ij x_i + Σ_h A_h[i, j] Wo_h v_h,j (LN1
//     sits inside each value, a function of its own token only; b_o is not attributed); C_l[i, j] =
//     max(0, ‖y_i‖₁ − ‖y_i − T_i(x_j)‖₁), rows normalised to sum 1. The FFN mixes nothing and is skipped.
// In the last layer only the [CLS] row is computed (nothing else reaches the output). Value zeroing's sources run in
// parts side by side on the core's threads (parallel/parallel_for.h; parts from n alone, so the values do not depend
// on the thread count). Rollout: r = C_L[CLS, :]
// · C_{L−1} ··· C_1; a token's score is r[token]. A row that sums to 0 stays 0.
#pragma once
#include <vector>

#include "explain/importance.h"

namespace attnlab {

// Per layer (bottom first): [rows x n], rows = n below the last layer, 1 ([CLS]) in the last. ids as the forward.
template <class T>
std::vector<Mat<double>> value_zeroing_layers(const TextConfig& cfg, const TextParams<T>& params,
                                              const std::vector<int>& ids);
template <class T>
std::vector<Mat<double>> alti_layers(const TextConfig& cfg, const TextParams<T>& params, const std::vector<int>& ids);
// The same on embedded tokens x [d x T] (params.embedding is not read).
template <class T>
std::vector<Mat<double>> value_zeroing_layers(const TextConfig& cfg, const TextParams<T>& params, const Mat<T>& x);
template <class T>
std::vector<Mat<double>> alti_layers(const TextConfig& cfg, const TextParams<T>& params, const Mat<T>& x);

// ALTI computes in double whatever the model's storage (it is cheap); value zeroing runs its n² block forwards in
// the model's precision and takes the distances in double (value_zeroing_importance.cpp). A transformer's parameters
// in double without the embedding table (cheap: the table is most of the model), and the tokens embedded in double.
TextParams<double> transformer_in_double(const TextParams<float>& params);
Mat<double> embedded_in_double(const TextParams<float>& params, const std::vector<int>& ids);

// The [CLS] row of the rollout over the tokens (length n − 1).
std::vector<double> mixing_rollout(const std::vector<Mat<double>>& layers);

// The methods (ExplainInput signature, one file each).
std::vector<double> value_zeroing_importance(const ExplainInput& in);  // value_zeroing_importance.cpp
std::vector<double> alti_importance(const ExplainInput& in);           // alti_importance.cpp

}  // namespace attnlab
