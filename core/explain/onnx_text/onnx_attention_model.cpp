// OnnxAttentionModel (onnx_attention_model.h): interventions on the found attention of a user's ONNX transformer.
#include "explain/onnx_text/onnx_attention_model.h"

#include <cmath>
#include <numeric>

#include "explain/onnx_text/onnx_text_explain.h"
#include "nn/rng.h"

#include <algorithm>
#include <cmath>

#include "explain/onnx_text/onnx_text_explain.h"  // onnx_text_probability, onnx_text_d_probability, onnx_text_leave_one_out

namespace attnlab {
namespace {

using onnx::Tensor;

int first_max(const std::vector<double>& v) {
  int best = 0;
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] > v[static_cast<size_t>(best)]) best = static_cast<int>(i);
  return best;
}

class OnnxAttentionInstance : public AttentionInstance {
 public:
  OnnxAttentionInstance(const OnnxAttentionModel& owner, const Instance& inst) : owner_(owner), ids_(inst.ids) {
    for (int s : inst.special) special_.push_back(s != 0);
    special_.resize(ids_.size(), false);
  }

  bool init(std::string* error) {
    OnnxTextModel& m = owner_.model();
    if (!run_original(error)) return false;
    const auto& found = m.attention();
    if (found.empty()) {
      *error = "no attention was found in this model (a Softmax over the keys that multiplies the values)";
      return false;
    }
    const int L = static_cast<int>(found.size());
    const int layer = owner_.layer() < 0 ? L - 1 : owner_.layer();
    if (layer >= L) {
      *error = "layer " + std::to_string(layer) + " is out of range (" + std::to_string(L) + " attention layers found)";
      return false;
    }
    probs_name_ = found[static_cast<size_t>(layer)].probabilities;
    onnx::AttentionShape s;
    if (!onnx::attention_shape(m.executor(), found[static_cast<size_t>(layer)], &s) || s.queries != s.keys) {
      *error = "the attention at '" + found[static_cast<size_t>(layer)].softmax_node +
               "' is not a square [heads, positions, positions] map";
      return false;
    }
    heads_ = static_cast<int>(s.heads);
    n_ = static_cast<int>(s.keys);
    const int T = static_cast<int>(ids_.size());
    const int offset = n_ - T;
    if (offset != 0 && offset != 1) {
      *error = "the attention has " + std::to_string(n_) + " positions for " + std::to_string(T) + " tokens";
      return false;
    }
    explained_ = m.causal() ? n_ - 1 : 0;
    original_ = *m.executor().value(probs_name_);
    // Units: token positions not held fixed; c_h: the held weight of the explained row in head h.
    self_.assign(static_cast<size_t>(heads_), 0.0);
    std::vector<double> mean;
    for (int p = 0; p < n_; ++p) {
      const int t = p - offset;
      const bool held = t < 0 || special_[static_cast<size_t>(t)];
      double avg = 0;
      for (int h = 0; h < heads_; ++h) {
        const double a = row_weight(original_, h, p);
        if (held) self_[static_cast<size_t>(h)] += a;
        avg += a / heads_;
      }
      if (held) continue;
      unit_pos_.push_back(p);
      unit_token_.push_back(t);
      mean.push_back(avg);
    }
    double sum = 0;
    for (double v : mean) sum += v;
    for (double& v : mean) v = sum > 0 ? v / sum : 1.0 / static_cast<double>(mean.size());
    attention_ = mean;
    group_.assign(attention_.size(), 0);
    // The baseline every intervention is compared with: the output with the model's own w imposed this way (as the
    // core transformer's frozen path does; with one head it is the model's output itself).
    model_probs_ = onnx_text_probabilities(m.logits());
    std::string e;
    if (!impose(attention_, &e)) {
      *error = e;
      return false;
    }
    probs_ = onnx_text_probabilities(m.current_logits());
    predicted_ = first_max(probs_);
    return true;
  }

  std::vector<std::vector<double>> outputs(const std::vector<std::vector<double>>& variants) const override {
    std::vector<std::vector<double>> out;
    std::string error;
    for (const auto& w : variants) {
      if (!impose(w, &error)) {
        out.push_back(std::vector<double>(probs_.size(), std::nan("")));
        continue;
      }
      out.push_back(onnx_text_probabilities(owner_.model().current_logits()));
    }
    return out;
  }

  std::vector<double> d_output(const std::vector<double>& weights, int cls) const override {
    std::vector<double> g(weights.size(), std::nan(""));
    std::string error;
    if (!impose(weights, &error)) return g;
    const std::vector<float> seed = onnx_text_d_probability(owner_.model().current_logits(), cls);
    if (!row_gradient(seed, &g, &error)) std::fill(g.begin(), g.end(), std::nan(""));
    return g;
  }

  // One backward pass for Σ_c a_c p_c: d/dz_k = a_k p_k − p_k Σ_c a_c p_c (one logit: (a_1 − a_0) σ(1 − σ)).
  void add_d_output_combination(const std::vector<double>& weights, const std::vector<double>& coeff, double scale,
                                std::vector<double>& g) const override {
    std::string error;
    std::vector<double> d(weights.size(), 0.0);
    if (!impose(weights, &error)) return;
    const std::vector<float> z = owner_.model().current_logits();
    const std::vector<double> p = onnx_text_probabilities(z);
    std::vector<float> seed(z.size());
    if (z.size() == 1) {
      seed[0] = static_cast<float>(scale * (coeff[1] - coeff[0]) * p[1] * p[0]);
    } else {
      double mean = 0;
      for (size_t c = 0; c < p.size(); ++c) mean += coeff[c] * p[c];
      for (size_t k = 0; k < p.size(); ++k) seed[k] = static_cast<float>(scale * p[k] * (coeff[k] - mean));
    }
    if (!row_gradient(seed, &d, &error)) return;
    for (size_t u = 0; u < g.size() && u < d.size(); ++u) g[u] += d[u];
  }

  std::vector<double> importance(Importance kind, int cls) const override {
    OnnxTextModel& m = owner_.model();
    std::string error;
    std::vector<double> out(unit_pos_.size(), std::nan(""));
    if (kind == Importance::LeaveOneOut) {
      std::vector<double> per_token;
      ++owner_.runs;
      state_ = State::Foreign;
      if (!onnx_text_leave_one_out(m, ids_, cls, model_probs_[static_cast<size_t>(cls)], 0, static_cast<int>(ids_.size()),
                                   &per_token, &error))
        return out;
      for (size_t u = 0; u < unit_token_.size(); ++u) out[u] = per_token[static_cast<size_t>(unit_token_[u])];
      return out;
    }
    if (!run_original(&error)) return out;
    std::vector<std::string> detached;
    for (const auto& a : m.attention()) detached.push_back(a.probabilities);
    m.executor().set_detached(detached);
    const bool ok = m.backward_seeded(onnx_text_d_probability(m.logits(), cls), "", &error);
    m.executor().set_detached({});
    std::vector<double> gx, gnorm;
    if (!ok || !m.embedding_gradients(&gx, &gnorm, &error)) return out;
    double sum = 0;
    for (size_t u = 0; u < unit_token_.size(); ++u) sum += out[u] = std::abs(gx[static_cast<size_t>(unit_token_[u])]);
    if (sum > 0)
      for (double& v : out) v /= sum;
    return out;
  }

 private:
  enum class State { Original, Intervened, Foreign };

  size_t index(int h, int p) const {
    return static_cast<size_t>((static_cast<int64_t>(h) * n_ + explained_) * n_ + p);
  }
  double row_weight(const Tensor<float>& t, int h, int p) const { return t.f[index(h, p)]; }

  // After impose: the backward from the explained position with d(objective)/d logits = seed, read at the replaced
  // row: out[u] = Σ_h (1 − c_h) ∂/∂A_h[e, u].
  bool row_gradient(const std::vector<float>& seed, std::vector<double>* out, std::string* error) const {
    OnnxTextModel& m = owner_.model();
    if (!m.backward_seeded(seed, probs_name_, error)) return false;
    const Tensor<float>* grad = m.executor().gradient(probs_name_);
    for (size_t u = 0; u < out->size(); ++u) {
      double s = 0;
      for (int h = 0; h < heads_; ++h)
        if (grad) s += (1 - self_[static_cast<size_t>(h)]) * grad->f[index(h, unit_pos_[u])];
      (*out)[u] = s;
    }
    return true;
  }

  // The forward pass of the instance itself (again when another run or an intervention came between).
  bool run_original(std::string* error) const {
    if (state_ == State::Original && seen_runs_ == owner_.runs) return true;
    if (!owner_.model().run(ids_, error)) return false;
    seen_runs_ = ++owner_.runs;
    state_ = State::Original;
    return true;
  }

  // The explained row replaced by the weights w (held positions keep theirs), the rest of the graph re-run.
  bool impose(const std::vector<double>& w, std::string* error) const {
    if (state_ == State::Foreign || seen_runs_ != owner_.runs) {
      state_ = State::Foreign;
      if (!run_original(error)) return false;
    }
    Tensor<float> r = original_;
    for (int h = 0; h < heads_; ++h)
      for (size_t u = 0; u < w.size() && u < unit_pos_.size(); ++u)
        r.f[index(h, unit_pos_[u])] = static_cast<float>((1 - self_[static_cast<size_t>(h)]) * w[u]);
    if (!owner_.model().executor().forward_from(probs_name_, r, error)) return false;
    state_ = State::Intervened;
    return true;
  }

  const OnnxAttentionModel& owner_;
  std::vector<int> ids_;
  std::vector<bool> special_;
  std::string probs_name_;
  int heads_ = 0, n_ = 0, explained_ = 0;
  Tensor<float> original_;
  std::vector<double> self_, model_probs_;  // c_h; the model's own output (leave-one-out's reference)
  std::vector<int> unit_pos_;
  mutable State state_ = State::Foreign;
  mutable long seen_runs_ = -1;
};

}  // namespace

const char* OnnxAttentionModel::skip_reason(const Instance& instance, int min_units) const {
  if (instance.ids.empty()) return "no tokens";
  int units = 0;
  for (size_t t = 0; t < instance.ids.size(); ++t) units += !(t < instance.special.size() && instance.special[t]);
  if (units == 0) return "no tokens but special ones";
  if (units < min_units) return "single token";
  return nullptr;
}

std::unique_ptr<AttentionInstance> OnnxAttentionModel::freeze(const Instance& instance, std::string* error) const {
  auto fi = std::make_unique<OnnxAttentionInstance>(*this, instance);
  std::string e;
  if (!fi->init(&e)) {
    if (error) *error = e;
    return nullptr;
  }
  return fi;
}

bool OnnxAttentionModel::prepare(const std::vector<int>& probe_ids, std::string* error) {
  if (model_.attention().empty()) {
    *error = "no attention was found in this model (a Softmax over the keys that multiplies the values): the debate "
             "experiments intervene on it";
    return false;
  }
  const int L = static_cast<int>(model_.attention().size());
  if (layer_ >= L || layer_ < -1) {
    *error = "layer " + std::to_string(layer_) + " is out of range (" + std::to_string(L) + " attention layers found)";
    return false;
  }
  if (!model_.run(probe_ids, error)) return false;
  ++runs;
  classes_ = model_.logits().size() == 1 ? 2 : static_cast<int>(model_.logits().size());
  return true;
}

std::vector<std::string> OnnxAttentionModel::token_measure_names() const {
  std::vector<std::string> names;
  if (!model_.attention().empty())
    names = {"attention", "rollout", "flow", "relevance", "grad_attention", "attnlrp", "cp_lrp", "value_zeroing", "alti"};
  else
    names = {"attnlrp", "cp_lrp"};
  for (const char* n : {"gradient", "gradient_x_input", "integrated_gradients", "leave_one_out", "random"}) names.push_back(n);
  return names;
}

bool OnnxAttentionModel::token_measures(const Instance& instance, int ig_steps, int target, Rng& rng,
                                        TokenMeasures* out, std::string* error) const {
  OnnxTextExplainRequest req;
  req.ids = instance.ids;
  req.target = target;
  req.ig_steps = ig_steps;
  req.ig_baseline.token = ig_token_;
  req.ig_baseline.special = instance.special;
  nlohmann::json e;
  ++runs;
  if (!onnx_text_explain(model_, req, &e, error)) return false;
  const int T = static_cast<int>(instance.ids.size());
  *out = TokenMeasures();
  out->predicted = e["target"].get<int>();
  out->p_predicted = e["probability"].get<double>();
  out->fixed.assign(static_cast<size_t>(T), 0);
  for (int t = 0; t < T; ++t)
    if (static_cast<size_t>(t) < instance.special.size() && instance.special[static_cast<size_t>(t)]) out->fixed[static_cast<size_t>(t)] = 1;
  if (model_.causal()) out->fixed[static_cast<size_t>(T - 1)] = 1;
  for (const std::string& name : token_measure_names()) {
    std::vector<double> v(static_cast<size_t>(T), 0.0);
    if (name == "random") {
      v = random_position_scores(T, rng);
    } else {
      const auto it = e.find(name);
      if (it == e.end() || !it->is_array() || static_cast<int>(it->size()) != T) {
        const auto note = e.find(name + "_note");
        *error = name + ": " + (note != e.end() && note->is_string() ? note->get<std::string>() : "not computed");
        return false;
      }
      for (int t = 0; t < T; ++t) {
        const auto& x = (*it)[static_cast<size_t>(t)];
        if (x.is_number()) v[static_cast<size_t>(t)] = x.get<double>();
        else if (!out->fixed[static_cast<size_t>(t)]) {  // null only where the method has no value: a fixed position
          *error = name + " has no value at token " + std::to_string(t);
          return false;
        }
      }
    }
    out->names.push_back(name);
    out->scores.push_back(std::move(v));
  }
  return true;
}

bool OnnxAttentionModel::sequence_probabilities(const std::vector<std::vector<int>>& seqs, int c,
                                                std::vector<double>* out, std::string* error) const {
  out->clear();
  ++runs;
  for (const auto& s : seqs) {
    if (s.empty()) {
      out->push_back(std::nan(""));
      continue;
    }
    // logits only (an instance re-runs its own forward after this: `runs` changed); a causal LM's last position alone
    if (!model_.run(s, error, /*inference=*/true)) return false;
    out->push_back(onnx_text_probability(model_.logits(), c));
  }
  return true;
}

}  // namespace attnlab
