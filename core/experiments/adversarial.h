// Jain & Wallace 2019 adversarial attention, exposed for tests: K candidate distributions
// alpha_k = softmax(theta_k) over the T units of one instance (the model frozen around its attention) minimise
//   L = sum_k [ -JSD(alpha_k, alpha) + 500 * ReLU(TVD(y(alpha_k), y) - eps) ]
//       - 1/(K(K-1)) * sum_{j != k} JSD(alpha_j, alpha_k)
// (Adam, lr 0.01, 500 steps, theta initialised at log(1/T) + N(0, 3^2)). The result is the largest
// JSD(alpha_k, alpha) among candidates whose output stays within eps (total variation) of the original.
#pragma once
#include <vector>

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

// The objective L for candidates theta[k] (each of length T) and its gradient (same shape).
// Shared with the HAN adversary (han_adversarial.cpp):
// g_i += scale * d JSD(a, b) / d a_i = scale * 0.5 log(a_i / m_i), m = (a + b) / 2 (0 where a_i = 0).
void add_d_jsd(const std::vector<double>& a, const std::vector<double>& b, double scale, std::vector<double>& g);
// theta gradient from an alpha gradient through softmax: a_i (g_i - sum_l a_l g_l).
std::vector<double> softmax_backward(const std::vector<double>& a, const std::vector<double>& g);

// On any model kind through the attention-model interface; the instance's attention is one softmax (one group).
double adversarial_objective(const AttentionInstance& fi, const std::vector<std::vector<double>>& theta,
                             const AdversarialOptions& o, std::vector<std::vector<double>>* grad);

AdversarialResult adversarial_search(const AttentionInstance& fi, const AdversarialOptions& o, Rng& rng);

std::vector<double> softmax_of(const std::vector<double>& theta);

}  // namespace attnlab
