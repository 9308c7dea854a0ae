#include "experiments/adversarial.h"

#include <algorithm>
#include <cmath>

#include "experiments/experiment.h"

namespace attnlab {

std::vector<double> softmax_of(const std::vector<double>& theta) {
  const double mx = *std::max_element(theta.begin(), theta.end());
  std::vector<double> a(theta.size());
  double s = 0;
  for (size_t i = 0; i < theta.size(); ++i) s += a[i] = std::exp(theta[i] - mx);
  for (double& v : a) v /= s;
  return a;
}


AttentionGroups::AttentionGroups(const AttentionInstance& fi) : weights(fi.group_weights()) {
  members.resize(static_cast<size_t>(fi.num_groups()));
  for (int u = 0; u < fi.size(); ++u) members[static_cast<size_t>(fi.groups()[static_cast<size_t>(u)])].push_back(u);
}

bool AttentionGroups::any_choice() const {
  for (const auto& m : members)
    if (m.size() > 1) return true;
  return false;
}

std::vector<double> AttentionGroups::gather(const std::vector<double>& v, size_t g) const {
  std::vector<double> out;
  out.reserve(members[g].size());
  for (int u : members[g]) out.push_back(v[static_cast<size_t>(u)]);
  return out;
}

std::vector<double> AttentionGroups::softmax(const std::vector<double>& theta) const {
  std::vector<double> a(theta.size());
  for (size_t g = 0; g < members.size(); ++g) {
    if (members[g].empty()) continue;
    const std::vector<double> s = softmax_of(gather(theta, g));
    for (size_t i = 0; i < s.size(); ++i) a[static_cast<size_t>(members[g][i])] = s[i];
  }
  return a;
}

// Within each group (gathered, so the sums run as over a contiguous vector): a_i (g_i − Σ_l a_l g_l).
std::vector<double> AttentionGroups::softmax_backward(const std::vector<double>& a,
                                                      const std::vector<double>& g) const {
  std::vector<double> out(a.size(), 0.0);
  for (size_t k = 0; k < members.size(); ++k) {
    const std::vector<double> ak = gather(a, k), gk = gather(g, k);
    double dot = 0;
    for (size_t i = 0; i < ak.size(); ++i) dot += ak[i] * gk[i];
    for (size_t i = 0; i < ak.size(); ++i) out[static_cast<size_t>(members[k][i])] = ak[i] * (gk[i] - dot);
  }
  return out;
}

double AttentionGroups::divergence(const std::vector<double>& a, const std::vector<double>& b) const {
  double j = 0;
  for (size_t g = 0; g < members.size(); ++g)
    if (members[g].size() > 1) j += weights[g] * jensen_shannon(gather(a, g), gather(b, g));
  return j;
}

// d JSD(a, b) / d a_i = 0.5 log(a_i / m_i), m = (a + b) / 2 (0 where a_i = 0: it is multiplied by a_i in the
// softmax backward anyway).
void AttentionGroups::add_d_divergence(const std::vector<double>& a, const std::vector<double>& b, double scale,
                                       std::vector<double>& grad) const {
  for (size_t g = 0; g < members.size(); ++g)
    for (int u : members[g]) {
      const size_t i = static_cast<size_t>(u);
      if (a[i] > 0) grad[i] += scale * weights[g] * 0.5 * std::log(a[i] / (0.5 * (a[i] + b[i])));
    }
}

std::vector<double> AttentionGroups::group_divergences(const std::vector<double>& a,
                                                       const std::vector<double>& b) const {
  std::vector<double> out;
  for (size_t g = 0; g < members.size(); ++g)
    if (members[g].size() > 1) out.push_back(jensen_shannon(gather(a, g), gather(b, g)));
  return out;
}

namespace {

// The objective for an instance whose groups are already read (the search calls it every step).
double objective(const AttentionInstance& fi, const AttentionGroups& groups,
                 const std::vector<std::vector<double>>& theta, const AdversarialOptions& o,
                 std::vector<std::vector<double>>* grad) {
  const int K = static_cast<int>(theta.size());
  const int T = fi.size();
  const std::vector<double>& base_alpha = fi.attention();
  const std::vector<double>& base_probs = fi.probs();
  const int C = static_cast<int>(base_probs.size());
  std::vector<std::vector<double>> alpha(K), g_alpha(K, std::vector<double>(T, 0.0));
  for (int k = 0; k < K; ++k) alpha[k] = groups.softmax(theta[k]);
  const std::vector<std::vector<double>> probs = fi.outputs(alpha);  // one batch
  double loss = 0;
  for (int k = 0; k < K; ++k) {
    loss -= groups.divergence(alpha[k], base_alpha);
    groups.add_d_divergence(alpha[k], base_alpha, -1.0, g_alpha[k]);
    const double tvd = total_variation(probs[k], base_probs);
    if (tvd > o.epsilon) {
      loss += o.penalty * (tvd - o.epsilon);
      // d TVD / d alpha = 0.5 sum_c sign(p_c - q_c) d p_c / d alpha (binary: the two classes coincide).
      std::vector<double> sign(static_cast<size_t>(C), 0.0);
      for (int c = 0; c < C; ++c)
        sign[c] = probs[k][c] > base_probs[c] ? 1.0 : (probs[k][c] < base_probs[c] ? -1.0 : 0.0);
      fi.add_d_output_combination(alpha[k], sign, o.penalty * 0.5, g_alpha[k]);
    }
  }
  if (K > 1) {
    const double w = 1.0 / (K * (K - 1));
    for (int j = 0; j < K; ++j)
      for (int k = 0; k < K; ++k) {
        if (j == k) continue;
        loss -= w * groups.divergence(alpha[j], alpha[k]);
        // alpha_j is the first argument here and the second in the (k, j) term; JSD is symmetric.
        groups.add_d_divergence(alpha[j], alpha[k], -2 * w, g_alpha[j]);
      }
  }
  if (grad) {
    grad->resize(K);
    for (int k = 0; k < K; ++k) (*grad)[k] = groups.softmax_backward(alpha[k], g_alpha[k]);
  }
  return loss;
}

}  // namespace

double adversarial_objective(const AttentionInstance& fi, const std::vector<std::vector<double>>& theta,
                             const AdversarialOptions& o, std::vector<std::vector<double>>* grad) {
  return objective(fi, AttentionGroups(fi), theta, o, grad);
}

AdversarialResult adversarial_search(const AttentionInstance& fi, const AdversarialOptions& o, Rng& rng) {
  const AttentionGroups groups(fi);
  const int K = o.candidates, T = fi.size();
  std::vector<std::vector<double>> theta(K, std::vector<double>(T)), m(K, std::vector<double>(T, 0.0)),
      v(K, std::vector<double>(T, 0.0)), grad;
  for (auto& th : theta)
    for (const auto& members : groups.members)
      for (int u : members) th[static_cast<size_t>(u)] = std::log(1.0 / members.size()) + o.init_std * rng.normal();
  const double b1 = 0.9, b2 = 0.999, eps = 1e-8;
  for (int step = 1; step <= o.steps; ++step) {
    objective(fi, groups, theta, o, &grad);
    const double bc1 = 1 - std::pow(b1, step), bc2 = 1 - std::pow(b2, step);
    for (int k = 0; k < K; ++k)
      for (int t = 0; t < T; ++t) {
        const double g = grad[k][t];
        m[k][t] = b1 * m[k][t] + (1 - b1) * g;
        v[k][t] = b2 * v[k][t] + (1 - b2) * g * g;
        theta[k][t] -= o.lr * (m[k][t] / bc1) / (std::sqrt(v[k][t] / bc2) + eps);
      }
  }
  AdversarialResult r;
  r.attention = fi.attention();
  r.probs = fi.probs();
  std::vector<std::vector<double>> a(K);
  for (int k = 0; k < K; ++k) a[k] = groups.softmax(theta[k]);
  const std::vector<std::vector<double>> probs = fi.outputs(a);
  for (int k = 0; k < K; ++k) {
    const double jsd = groups.divergence(a[k], fi.attention()), tvd = total_variation(probs[k], fi.probs());
    r.candidate_jsd.push_back(jsd);
    r.candidate_tvd.push_back(tvd);
    if (tvd <= o.epsilon && (!r.found || jsd > r.max_jsd)) {
      r.found = true;
      r.max_jsd = jsd;
      r.attention = a[k];
      r.probs = probs[k];
      r.tvd = tvd;
    }
  }
  return r;
}

Experiment adversarial_experiment() {
  Experiment e;
  e.name = "adversarial";
  e.description = "Jain & Wallace adversarial attention: max JSD from the model's attention with the output within eps";
  e.run = [](const AttentionModel& model, const Instance& in, const ExperimentOptions& opt, Rng& rng, const void*) {
    nlohmann::json row;
    row["num_tokens"] = in.ids.size();
    const std::unique_ptr<AttentionInstance> fi = freeze_or_skip(model, in, 2, row);
    if (!fi) return row;
    if (!AttentionGroups(*fi).any_choice()) {
      row["skipped"] = std::string("no softmax over two ") + model.unit_name() + "s";
      return row;
    }
    row["num_tokens"] = fi->size();
    const AdversarialResult r = adversarial_search(*fi, adversarial_options(opt), rng);
    adversarial_row(*fi, r, row);
    return row;
  };
  e.summarize = [](const AttentionModel& model, const std::vector<nlohmann::json>& rows, const ExperimentOptions&) {
    return adversarial_summary(rows, listed_classes(model));
  };
  return e;
}

AdversarialOptions adversarial_options(const ExperimentOptions& opt) {
  AdversarialOptions o;
  o.candidates = opt.get_int("candidates", o.candidates);
  o.steps = opt.get_int("steps", o.steps);
  o.lr = opt.get_double("lr", o.lr);
  o.epsilon = opt.get_double("epsilon", o.epsilon);
  return o;
}

void adversarial_row(const AttentionInstance& fi, const AdversarialResult& r, nlohmann::json& row) {
  const std::vector<double> effective = fi.effective_attention();
  row["predicted"] = fi.predicted();
  row["max_jsd"] = r.max_jsd;
  row["found"] = r.found;
  row["tvd"] = r.tvd;
  row["max_attention"] = *std::max_element(effective.begin(), effective.end());
  row["attention"] = fi.attention();
  row["adversarial_attention"] = r.attention;
  row["probabilities"] = fi.probs();
  row["adversarial_probabilities"] = r.probs;
  row["candidate_jsd"] = r.candidate_jsd;
  row["candidate_tvd"] = r.candidate_tvd;
  if (fi.num_groups() > 1) {  // e.g. a HAN's words, one softmax per sentence: the unweighted mean over the groups
    const AttentionGroups groups(fi);
    row["num_groups"] = fi.num_groups();
    row["mean_group_jsd"] = number_or_null(mean_of(groups.group_divergences(r.attention, fi.attention())));
  }
}

nlohmann::json adversarial_summary(const std::vector<nlohmann::json>& rows, int classes) {
  std::vector<double> all;
  std::vector<std::vector<double>> by_class(classes), by_bin(kMaxAttentionBins);
  int found = 0;
  for (const auto& row : rows) {
    const double jsd = row_number(row, "max_jsd");
    if (row.contains("skipped") || !std::isfinite(jsd)) continue;
    all.push_back(jsd);
    found += row_flag(row, "found");
    const int cls = row_class(row);
    if (cls >= 0 && cls < classes) by_class[cls].push_back(jsd);
    const int bin = max_attention_bin(row_number(row, "max_attention"));
    if (bin >= 0) by_bin[bin].push_back(jsd);
  }
  auto above = [](const std::vector<double>& v, double x) {
    if (v.empty()) return std::nan("");
    return double(std::count_if(v.begin(), v.end(), [x](double d) { return d > x; })) / v.size();
  };
  nlohmann::json s;
  s["mean_max_jsd"] = mean_of(all);
  s["median_max_jsd"] = median_of(all);
  s["fraction_jsd_above_0.4"] = above(all, 0.4);
  s["fraction_found"] = all.empty() ? std::nan("") : double(found) / all.size();
  s["n_used"] = all.size();
  s["jsd_upper_bound"] = std::log(2.0);
  s["by_max_attention"] = max_attention_bins_json(by_bin, "mean_max_jsd");
  nlohmann::json pc = nlohmann::json::object();
  for (int c = 0; c < classes; ++c)
    pc[std::to_string(c)] = {{"n", by_class[c].size()}, {"mean_max_jsd", mean_of(by_class[c])},
                             {"fraction_jsd_above_0.4", above(by_class[c], 0.4)}};
  s["per_class"] = pc;
  return s;
}

}  // namespace attnlab
