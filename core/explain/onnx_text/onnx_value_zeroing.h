// Value zeroing (Mohebbi et al., EACL 2023) on a user's ONNX text transformer, with the values and the block outputs
// found in the graph (nothing declared):
//   the values of layer l: the second input of its found attention's A·V product; position j's value vectors are its
//     rows along that tensor's second-last axis (the keys), every head's;
//   layer l's output: the residual stream after block l (explain/onnx/residual_stream.h);
//   C_l[i, j] = the cosine distance between layer l's output at position i and the same output with position j's
//     values zeroed in layer l and the rest of the graph re-run (Executor::forward_from), taken in double as
//     ‖a/‖a‖ − b/‖b‖‖² / 2; rows normalised to sum 1 (a row that is all 0 stays 0);
//   rollout from the explained position e (a classifier's position 0, a causal LM's last): r = C_L[e, :] · C_{L−1}
//     ··· C_1, no residual added (the measure already includes it); a token's score is r at its position — NaN at
//     e and at no token (the position a graph prepends itself), as the other attention rows.
// The exported sst2-transformer gives the core transformer's value zeroing (explain/context_mixing.h: the same
// definition on a pre-LN block). Cost: one forward of the graph from layer l's values on per layer and position
// (L × n); onnx_value_zeroing_layer computes one layer so a caller can show progress between layers.
#pragma once
#include <string>
#include <vector>

#include "explain/onnx/residual_stream.h"
#include "explain/onnx_text/onnx_text_model.h"

namespace attnlab {

// After model.run(ids): the residual stream of the graph and the positions of its attention (checked: every layer
// has the same count, the values and the outputs have that many rows).
struct OnnxValueZeroingPlan {
  ResidualStream stream;
  int positions = 0;
  int explained = 0;  // the explained position
};
bool plan_onnx_value_zeroing(OnnxTextModel& model, OnnxValueZeroingPlan* plan, std::string* error);

// C_l [positions × positions] of one layer. The model must hold the explained input's forward (model.run, or a
// previous call: each leaves the executor as it found it).
bool onnx_value_zeroing_layer(OnnxTextModel& model, const OnnxValueZeroingPlan& plan, int layer, Mat<double>* C,
                              std::string* error);

// The rollout over the tokens (length = the model's token count of the run).
std::vector<double> onnx_value_zeroing_rollout(const OnnxTextModel& model, const OnnxValueZeroingPlan& plan,
                                               const std::vector<Mat<double>>& layers);

// All of it on ids: run, plan, every layer, rollout; the model is left on ids.
bool onnx_value_zeroing(OnnxTextModel& model, const std::vector<int>& ids, std::vector<double>* tokens,
                        std::string* error);

}  // namespace attnlab
