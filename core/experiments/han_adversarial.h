// Jain & Wallace's adversarial attention search (experiments/adversarial.h) on HAN, at either level,
// exposed for tests. A candidate is a list of distributions ("groups"), each the softmax of its own theta:
//   level "sentence": one group, beta' over the S sentences; the sentence encoder states are frozen, so the
//     output for beta' is one classifier evaluation (han_output_with_sentence_attention);
//   level "word": one group per sentence, alpha'_i over its words; the word encoder states are frozen and the
//     sentence level (BiGRU, the model's own sentence attention, classifier) re-runs on the new sentence
//     vectors, the K candidates in one batch.
// Divergence of a candidate a' from the model's a: J(a', a) = sum_g w_g JSD(a'_g, a_g) with w = [1] at the
// sentence level and w = beta (the model's sentence attention, fixed, sums to 1) at the word level, so J is
// in [0, ln 2] at both levels. The search minimises, over K candidates (Adam, lr 0.01, 500 steps, theta
// initialised at log(1/n_g) + N(0, 3^2) per group, as the flat search):
//   L = sum_k [ -J(a_k, a) + 500 * ReLU(TVD(y(a_k), y) - eps) ] - 1/(K(K-1)) sum_{j != k} J(a_j, a_k)
// and returns the largest J(a_k, a) among candidates whose output is within eps (total variation).
#pragma once
#include <string>
#include <vector>

#include "experiments/adversarial.h"  // AdversarialOptions
#include "experiments/han_experiment.h"

namespace attnlab {

// One document frozen for the search at one level.
struct HanAdversary {
  std::string level;                             // "sentence" | "word"
  std::vector<double> probs;                     // the model's output
  std::vector<std::vector<double>> attention;    // the model's groups (sentence: {beta}; word: alpha per sentence)
  std::vector<double> weights;                   // w_g
  HanFrozen frozen;                              // sentence level: h and the classifier input
  std::vector<Mat<double>> word_states;          // word level: per sentence [2Hw x len]
  HanParams<double> sentence_params;             // word level: the sentence encoder, attention, classifier
  // Outputs of K candidates; with d_probs ([K][C]) also d(sum_k d_probs_k . y_k)/d attention ([K][g][t]).
  std::vector<std::vector<double>> outputs(const HanModel& model, const std::vector<std::vector<std::vector<double>>>& cands,
                                           const std::vector<std::vector<double>>* d_probs = nullptr,
                                           std::vector<std::vector<std::vector<double>>>* d_attention = nullptr) const;
};

HanAdversary han_adversary(const HanModel& model, const HanDocument& doc, const std::string& level);

// J(a, b) = sum_g w_g JSD(a_g, b_g).
double han_group_jsd(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b,
                     const std::vector<double>& w);

// L for candidates theta[k][g] and its gradient (same shape).
double han_adversarial_objective(const HanModel& model, const HanAdversary& adv,
                                 const std::vector<std::vector<std::vector<double>>>& theta, const AdversarialOptions& o,
                                 std::vector<std::vector<std::vector<double>>>* grad);

struct HanAdversarialResult {
  bool found = false;
  double max_jsd = 0;                            // J of the best valid candidate (0 when none)
  std::vector<std::vector<double>> attention;    // its groups (the model's when none)
  std::vector<double> probs;
  double tvd = 0;
  std::vector<double> candidate_jsd, candidate_tvd;
};

HanAdversarialResult han_adversarial_search(const HanModel& model, const HanAdversary& adv, const AdversarialOptions& o,
                                            Rng& rng);

}  // namespace attnlab
