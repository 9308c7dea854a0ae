// Jain & Wallace 2019 adversarial attention, on any model kind through the attention-model interface
// (model/attention_model.h). K candidate attentions alpha_k, each the softmax of its own theta_k within each of the
// instance's softmax groups (a flat model: one group over the T units; a HAN document's words: one per sentence),
// minimise
//   L = sum_k [ -J(alpha_k, alpha) + 500 * ReLU(TVD(y(alpha_k), y) - eps) ]
//       - 1/(K(K-1)) * sum_{j != k} J(alpha_j, alpha_k)
// with J(a, b) = sum_g w_g JSD(a_g, b_g) over the groups of two units or more (w: the instance's group_weights(),
// 1 for one group, the sentence attention beta for a HAN's words, so J stays in [0, ln 2]) (Adam, lr 0.01, 500 steps,
// theta initialised at log(1/n_g) + N(0, 3^2)). The result is the largest J(alpha_k, alpha) among candidates whose
// output stays within eps (total variation) of the original.
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/experiment.h"  // ExperimentOptions
#include "experiments/frozen_encoder.h"  // jensen_shannon, total_variation
#include "model/attention_model.h"
#include "nn/rng.h"

namespace attnlab {

struct AdversarialOptions {
  int candidates = 5;
  int steps = 500;
  double lr = 0.01;
  double epsilon = 0.01;
  double penalty = 500;
  double init_std = 3;
};

struct AdversarialResult {
  bool found = false;             // some candidate within epsilon
  double max_jsd = 0;             // JSD of the best valid candidate (0 when none)
  std::vector<double> attention;  // the best valid candidate (the original attention when none)
  std::vector<double> probs;      // outputs with it
  double tvd = 0;
  std::vector<double> candidate_jsd, candidate_tvd;
};

// The instance's softmax groups: the units of each (in unit order) and its weight in J.
struct AttentionGroups {
  explicit AttentionGroups(const AttentionInstance& fi);
  std::vector<std::vector<int>> members;
  std::vector<double> weights;
  bool any_choice() const;  // some group has two units or more (else every candidate is the model's attention)
  std::vector<double> gather(const std::vector<double>& v, size_t g) const;  // v's entries of group g
  std::vector<double> softmax(const std::vector<double>& theta) const;      // within each group
  // theta gradient from an alpha gradient through the groups' softmaxes.
  std::vector<double> softmax_backward(const std::vector<double>& a, const std::vector<double>& g) const;
  double divergence(const std::vector<double>& a, const std::vector<double>& b) const;  // J(a, b)
  // grad_u += scale * d J(a, b) / d a_u.
  void add_d_divergence(const std::vector<double>& a, const std::vector<double>& b, double scale,
                        std::vector<double>& grad) const;
  // JSD(a_g, b_g) of each group of two units or more, unweighted.
  std::vector<double> group_divergences(const std::vector<double>& a, const std::vector<double>& b) const;
};

// The objective L for candidates theta[k] (each of length size()) and its gradient (same shape).
double adversarial_objective(const AttentionInstance& fi, const std::vector<std::vector<double>>& theta,
                             const AdversarialOptions& o, std::vector<std::vector<double>>* grad);

AdversarialResult adversarial_search(const AttentionInstance& fi, const AdversarialOptions& o, Rng& rng);

// The experiment's parameters (candidates, steps, lr, epsilon), its row fields for one searched instance ({predicted,
// max_jsd, found, tvd, max_attention (of effective_attention()), attention, adversarial_attention, probabilities,
// adversarial_probabilities, candidate_jsd, candidate_tvd}; with several softmax groups, e.g. a HAN's words, also
// num_groups and mean_group_jsd: the unweighted mean over the groups of two units or more of JSD(alpha'_g, alpha_g))
// and the summary of such rows.
AdversarialOptions adversarial_options(const ExperimentOptions& opt);
void adversarial_row(const AttentionInstance& fi, const AdversarialResult& r, nlohmann::json& row);
nlohmann::json adversarial_summary(const std::vector<nlohmann::json>& rows, int classes);

std::vector<double> softmax_of(const std::vector<double>& theta);

}  // namespace attnlab
