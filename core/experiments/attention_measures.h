// What several experiments compute from a frozen instance (model/attention_model.h), written once for every model
// kind — the flat experiments (kendall.cpp, erase_max.cpp, erase_until_flip.cpp) and the HAN ones (han_*.cpp) format
// these into their rows.
//   kendall_vs_importances   Kendall τ-b of the effective attention against the gradient and the leave-one-out
//                            importances of the predicted class (Jain & Wallace §4.1), with the three vectors.
//   erase_one                the output with one unit's weight zeroed (its group renormalised): JSD to the baseline
//                            and whether the decision flips (Serrano & Smith §4).
//   erase_until_flip         units zeroed cumulatively in `order` until the decision flips, evaluated in blocks of
//                            kEraseBlock prefixes (one batched forward each where the model batches): {removed,
//                            fraction, flipped[, curve: p of the predicted class after each removal]} (S&S §5).
//   attention_x_gradient     w_u · ∂p_pred/∂w_u at the model's weights.
//   unit_readings            the model's further readings of the instance (AttentionModel::token_measures: integrated
//                            gradients; a transformer's rollout, flow, Chefer relevance, attention × gradient, attention
//                            norm, AttnLRP, CP-LRP, value zeroing, ALTI) on the instance's units, for the experiments that
//                            set them beside attention (kendall, erase-until-flip).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "metrics/kendall.h"
#include "model/attention_model.h"

namespace attnlab {

constexpr int kEraseBlock = 32;

struct AttentionTaus {
  std::vector<double> attention, gradient, loo;  // effective attention, Importance::Gradient, Importance::LeaveOneOut
  KendallResult vs_gradient, vs_loo;
};
AttentionTaus kendall_vs_importances(const AttentionInstance& fi);

struct ErasedOne {
  std::vector<double> probs;
  double jsd = 0;
  bool flipped = false;
};
ErasedOne erase_one(const AttentionInstance& fi, int unit);

nlohmann::json erase_until_flip(const AttentionInstance& fi, const std::vector<int>& order, bool with_curve);

std::vector<double> attention_x_gradient(const AttentionInstance& fi, const std::vector<double>& gradient);

// Every token measure of the model but the ones those experiments compute themselves (attention, gradient,
// leave_one_out, random), in the model's order, each read at the token of every unit (unit_tokens) — a model without
// token measures (a HAN) gives none and true; each explains fi's decision (which may differ from the whole model's: a
// transformer's instance imposes the head-averaged row). False with *error when the model has them but cannot give
// them for this instance. ig_steps: integrated gradients' path segments; rng: the model's random measure draws from it
// (not returned).
struct UnitReadings {
  std::vector<std::string> names;
  std::vector<std::vector<double>> scores;  // [reading][unit]
};
bool unit_readings(const AttentionModel& model, const Instance& instance, const AttentionInstance& fi, int ig_steps,
                   Rng& rng, UnitReadings* out, std::string* error);

}  // namespace attnlab
