// Context mixing on a user's ONNX text transformer — value zeroing (Mohebbi et al., EACL 2023) and ALTI (Ferrando et
// al., EMNLP 2022) — with the values, the attention's residual Adds and the block outputs found in the graph (nothing
// declared; explain/onnx/residual_stream.h). Per layer l a matrix C_l [positions × positions], rows normalised to sum 1
// (a row that is all 0 stays 0), then rolled out from the explained position e (a classifier's position 0, a causal
// LM's last): r = C_L[e, :] · C_{L−1} ··· C_1, no residual added (both measures include it); a token's score is r at
// its position — NaN at e and at no token (a position the graph prepends), as the other attention rows.
//   value zeroing: C_l[i, j] = the cosine distance between layer l's output at i and the same output with position j's
//     value vectors zeroed in layer l (its rows along the second-last axis of the A·V product's second input, every
//     head's) and the rest of the graph re-run (Executor::forward_from); taken in double as ‖a/‖a‖ − b/‖b‖‖² / 2.
//   ALTI: the attention's residual Add y_i = x_i + f_i splits into T_i(x_j) = δ_ij x_i + (f_i with the distribution
//     kept only in column j) − (f_i with the distribution all 0): the share of source j through the values and the
//     output projection, its bias left unattributed — read by replacing the distribution (forward_from), which holds
//     because f is linear in it (checked: the shares must add up to f − f(0), else the method says so). Pre-LN:
//     ȳ_i = y_i, T̃ = T. Post-LN (the Add feeds a LayerNormalization node): ȳ_i = that node's output and T̃_i(x_j) =
//     γ / σ_i ⊙ (T_i(x_j) − mean T_i(x_j)), σ_i the node's own scale on y_i (the paper's linearised LayerNorm).
//     C_l[i, j] = max(0, ‖ȳ_i‖₁ − ‖ȳ_i − T̃_i(x_j)‖₁).
// The exported sst2-transformer gives the core transformer's rows (explain/context_mixing.h: the same definitions on a
// pre-LN block). Cost: per layer and position, the graph from the replaced value on as far as the value read (the
// layer's output; ALTI: the sublayer's), then one full run to restore every value (L × n partial runs; ALTI + L); a
// *_layer call computes one layer so a caller can show progress between layers.
#pragma once
#include <string>
#include <vector>

#include "explain/onnx/residual_stream.h"
#include "explain/onnx_text/onnx_text_model.h"

namespace attnlab {

enum class MixingMethod { ValueZeroing, Alti };
// "value_zeroing" | "alti"; false for another name.
bool mixing_method_from_name(const std::string& name, MixingMethod* out);

// After model.run(ids): the residual stream of the graph and the positions of its attention (checked: every layer has
// the same count, the values and the outputs have that many rows).
struct OnnxMixingPlan {
  ResidualStream stream;
  int positions = 0;
  int explained = 0;  // the explained position
};
bool plan_onnx_mixing(OnnxTextModel& model, OnnxMixingPlan* plan, std::string* error);

// C_l of one layer. The model must hold the explained input's forward (model.run, or a previous call: each leaves the
// executor's values as it found them).
bool onnx_mixing_layer(OnnxTextModel& model, const OnnxMixingPlan& plan, MixingMethod method, int layer, Mat<double>* C,
                       std::string* error);

// The rollout over the tokens (length = the model's token count of the run).
std::vector<double> onnx_mixing_rollout(const OnnxTextModel& model, const OnnxMixingPlan& plan,
                                        const std::vector<Mat<double>>& layers);

// All of it on ids: run, plan, every layer, rollout; the model is left on ids.
bool onnx_context_mixing(OnnxTextModel& model, const std::vector<int>& ids, MixingMethod method,
                         std::vector<double>* tokens, std::string* error);

}  // namespace attnlab
