// Explanations of an ONNX text transformer (see onnx_text_explain.h).
#include "explain/onnx_text/onnx_text_explain.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "explain/importance.h"
#include "explain/integrated_gradients_path.h"
#include "explain/onnx_text/onnx_context_mixing.h"
#include "explain/onnx_text/onnx_text_lanes.h"
#include "onnx/propagation.h"
#include "parallel/parallel_for.h"

namespace attnlab {
namespace {

using nlohmann::json;

json onnx_text_row(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) a.push_back(std::isfinite(x) ? json(x) : json(nullptr));
  return a;
}

}  // namespace

// p_target from the explained position's logits (one logit: the sigmoid, target 0 = 1 − σ).
double onnx_text_probability(const std::vector<float>& logits, int target) {
  if (logits.size() == 1) {
    const double p1 = 1.0 / (1.0 + std::exp(-static_cast<double>(logits[0])));
    return target == 1 ? p1 : 1.0 - p1;
  }
  double mx = -1e300, z = 0;
  for (float v : logits) mx = std::max(mx, static_cast<double>(v));
  for (float v : logits) z += std::exp(v - mx);
  return std::exp(logits[static_cast<size_t>(target)] - mx) / z;
}

std::vector<double> onnx_text_probabilities(const std::vector<float>& logits) {
  if (logits.size() == 1) return {onnx_text_probability(logits, 0), onnx_text_probability(logits, 1)};
  double mx = -1e300, z = 0;
  for (float v : logits) mx = std::max(mx, static_cast<double>(v));
  for (float v : logits) z += std::exp(v - mx);
  std::vector<double> p;
  p.reserve(logits.size());
  for (float v : logits) p.push_back(std::exp(v - mx) / z);
  return p;
}

std::vector<float> onnx_text_d_probability(const std::vector<float>& logits, int target) {
  std::vector<float> d(logits.size(), 0.f);
  if (logits.size() == 1) {
    const double p1 = onnx_text_probability(logits, 1);
    d[0] = static_cast<float>((target == 1 ? 1.0 : -1.0) * p1 * (1 - p1));
    return d;
  }
  const std::vector<double> p = onnx_text_probabilities(logits);
  const double pc = p[static_cast<size_t>(target)];
  for (size_t k = 0; k < logits.size(); ++k) d[k] = static_cast<float>(pc * ((static_cast<int>(k) == target ? 1.0 : 0.0) - p[k]));
  return d;
}

namespace {

// The token embeddings of the last run (the output of the Gather that reads the ids); null with a message when none.
const onnx::Tensor<float>* token_embeddings(OnnxTextModel& model, std::string* error) {
  const std::string& emb = model.embedding_value();
  const onnx::Tensor<float>* v = emb.empty() ? nullptr : model.executor().value(emb);
  if (v && v->is_float()) return v;
  *error = "integrated gradients need the token embeddings (the output of a Gather that reads the ids); none was found";
  return nullptr;
}

// The IG path from baseline embeddings x0 (empty: all zero) to the explained input's x: p and
// g_t = d p / d x_t (x0 + a (x − x0)) · (x_t − x0_t) at each a, one forward_from + one backward each.
bool onnx_text_ig_path(OnnxTextModel& model, const std::vector<int>& ids, int target, int steps, const std::vector<float>& x0,
                       std::vector<double>* out, std::pair<double, double>* p_ends, std::string* error) {
  if (!model.run(ids, error)) return false;
  const std::string& emb = model.embedding_value();
  const onnx::Tensor<float>* xt = token_embeddings(model, error);
  const int T = static_cast<int>(ids.size());
  if (!xt) return false;
  if (xt->numel() % T != 0) {
    *error = "integrated gradients need one token embedding per id; the Gather that reads the ids gives " +
             std::to_string(xt->numel()) + " values for " + std::to_string(T) + " ids";
    return false;
  }
  const onnx::Tensor<float> x = *xt;  // the explained input's embeddings
  const int64_t d = x.numel() / T;
  std::vector<float> delta(x.f.begin(), x.f.end());
  if (!x0.empty())
    for (size_t q = 0; q < delta.size(); ++q) delta[q] -= x0[q];
  auto eval = [&](const std::vector<double>& alphas, std::vector<IgPathPoint>* pts, std::string* err) {
    for (double a : alphas) {
      onnx::Tensor<float> xs = x;
      for (size_t q = 0; q < xs.f.size(); ++q)
        xs.f[q] = x0.empty() ? static_cast<float>(x.f[q] * a) : static_cast<float>(x0[q] + a * delta[q]);
      if (!model.executor().forward_from(emb, xs, err)) return false;
      const std::vector<float> logits = model.current_logits();
      IgPathPoint pt;
      pt.p = onnx_text_probability(logits, target);
      pt.g.assign(static_cast<size_t>(T), 0.0);
      if (!model.backward_seeded(onnx_text_d_probability(logits, target), emb, err)) return false;
      if (const onnx::Tensor<float>* g = model.executor().gradient(emb)) {  // null: p does not depend on x
        for (int t = 0; t < T; ++t)
          for (int64_t k = 0; k < d; ++k) {
            const size_t q = static_cast<size_t>(t * d + k);
            pt.g[static_cast<size_t>(t)] += static_cast<double>(g->f[q]) * delta[q];
          }
      }
      pts->push_back(std::move(pt));
    }
    return true;
  };
  const bool ok = integrated_gradients_path(T, steps, eval, out, error, p_ends);
  std::string rerr;
  if (!model.run(ids, ok ? error : &rerr)) return false;  // leave the model on the explained input
  return ok;
}

// The token baseline's embeddings: ids with every position that is not special replaced by `token`, run once.
bool onnx_text_token_baseline(OnnxTextModel& model, const std::vector<int>& ids, const std::vector<int>& special, int token,
                              std::vector<float>* x0, std::string* error) {
  std::vector<int> base = ids;
  for (size_t t = 0; t < base.size(); ++t)
    if (t >= special.size() || !special[t]) base[t] = token;
  if (!model.run(base, error)) return false;
  const onnx::Tensor<float>* v = token_embeddings(model, error);
  if (!v) return false;
  x0->assign(v->f.begin(), v->f.end());
  return true;
}

}  // namespace

OnnxIgBaseline onnx_ig_baseline_of(const SubwordTokenizer* tok) {
  OnnxIgBaseline b;
  if (tok) b.token = neutral_token(*tok);
  if (b.token >= 0) b.piece = tok->id_to_token(b.token);
  return b;
}

bool onnx_text_ig_complete(double sum, double target) {
  return std::abs(sum - target) <= kIgCompletenessTolerance * std::max(std::abs(target), 0.01);
}

bool onnx_text_integrated_gradients(OnnxTextModel& model, const std::vector<int>& ids, int target, int steps,
                                    const OnnxIgBaseline& baseline, OnnxIgResult* r, std::string* error) {
  if (baseline.mode != "auto" && baseline.mode != "zero" && baseline.mode != "token") {
    *error = "the integrated-gradients baseline must be auto, zero or token, not '" + baseline.mode + "'";
    return false;
  }
  if (baseline.mode == "token" && baseline.token < 0) {
    *error = "a token baseline needs a padding or unknown token, and this tokenizer has neither (or no tokenizer was given)";
    return false;
  }
  *r = OnnxIgResult();
  auto run = [&](const std::vector<float>& x0) {
    std::pair<double, double> ends;
    if (!onnx_text_ig_path(model, ids, target, steps, x0, &r->values, &ends, error)) return false;
    r->sum = std::accumulate(r->values.begin(), r->values.end(), 0.0);
    r->target = ends.second - ends.first;
    return true;
  };
  if (baseline.mode != "token") {
    if (!run({})) return false;
    if (baseline.mode == "zero" || baseline.token < 0 || onnx_text_ig_complete(r->sum, r->target)) return true;
    r->zero_sum = r->sum;  // auto: the zero baseline's path could not be integrated; try the token baseline
    r->zero_target = r->target;
    r->switched = true;
  }
  std::vector<float> x0;
  if (!onnx_text_token_baseline(model, ids, baseline.special, baseline.token, &x0, error) || !run(x0)) return false;
  r->token = baseline.token;
  return true;
}

nlohmann::json onnx_ig_baseline_json(const OnnxIgResult& r, const OnnxIgBaseline& baseline) {
  nlohmann::json b = {{"kind", r.token >= 0 ? "token" : "zero"}};
  if (r.token >= 0) b["token"] = r.token;
  if (r.token >= 0 && !baseline.piece.empty()) b["piece"] = baseline.piece;
  if (r.switched) b["zero_completeness"] = {{"sum", r.zero_sum}, {"target", r.zero_target}};
  return b;
}

std::vector<int> onnx_text_top_k(const std::vector<float>& logits, int k) {
  std::vector<int> idx(logits.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int>(i);
  const size_t n = std::min(idx.size(), static_cast<size_t>(std::max(k, 0)));
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(n), idx.end(), [&](int a, int b) {
    return logits[static_cast<size_t>(a)] > logits[static_cast<size_t>(b)] ||
           (logits[static_cast<size_t>(a)] == logits[static_cast<size_t>(b)] && a < b);
  });
  idx.resize(n);
  return idx;
}

bool onnx_text_relevance(OnnxTextModel& model, int target, onnx::RelevanceRule rule, std::vector<double>* tokens,
                         std::vector<std::string>* notes, std::string* error) {
  onnx::PropagationPlan plan = onnx::plan_propagation(model.executor(), rule, model.output_name());
  model.executor().set_propagation(&plan);
  std::vector<double> gn;
  const bool ok = model.backward(target, error) && model.embedding_gradients(tokens, &gn, error);
  model.executor().set_propagation(nullptr);
  if (!ok) return false;
  *notes = plan.notes;
  return true;
}

namespace {

// The rows from the explained pass (after model.run(request.ids)): the gradient's backward, the attention rows, the
// embedding gradients and the propagation rules' rows, into *out. onnx_text_explain runs them before leave-one-out's
// passes or beside them.
// A from_maps row covers permuted positions 1..n-1: back to token order (NaN where no token).
std::vector<double> rows_to_tokens(const std::vector<double>& r, const std::vector<int>& token_of, int T) {
  std::vector<double> v(static_cast<size_t>(T), std::nan(""));
  for (size_t k = 0; k < r.size(); ++k) {
    const int t = token_of[k + 1];
    if (t >= 0 && t < T) v[t] = r[k];
  }
  return v;
}

// The per-layer flow curves (request.flow_layers): through the first 1, 2, …, L layers, from the attention alone.
// Beside the rows as items of the lanes (onnx_text_explain: plan, run, write), or all at once in the rows (start,
// write).
struct FlowCurves {
  FlowCurves() = default;
  FlowCurves(const FlowCurves&) = delete;  // maps may point at own
  FlowCurves& operator=(const FlowCurves&) = delete;
  SelfAttentionMaps own;  // plan's maps, without gradients
  const SelfAttentionMaps* maps = nullptr;
  std::vector<int> token_of;
  std::vector<std::vector<double>> curves;  // [L]: curves[l − 1] through l layers
  std::vector<char> done;
  // Whether the curves are affordable on these maps (read, not copied: they must outlive the curves' work).
  bool start(const SelfAttentionMaps* m, const std::vector<int>& tokens) {
    if (!flow_affordable(m->n, m->layers * (m->layers + 1) / 2)) return false;
    maps = m;
    token_of = tokens;
    curves.assign(static_cast<size_t>(m->layers), {});
    done.assign(curves.size(), 0);
    return true;
  }
  // The same from the model's attention (read after the model's run on the explained ids).
  bool plan(const OnnxTextModel& model) {
    int explained = -1;
    std::string ignored;
    std::vector<int> tokens;
    return !model.attention().empty() && model.maps(false, &own, &tokens, &explained, &ignored) && start(&own, tokens);
  }
  // Item k: the curve through L − k layers (the largest first).
  void run(size_t k) {
    const size_t l = curves.size() - k;
    curves[l - 1] = flow_from_maps(*maps, HeadFusion::Mean, static_cast<int>(l));
    done[l - 1] = 1;
  }
  // The curves not run yet, then flow_layers and the flow row (through all L layers).
  void write(json* o, int T) {
    for (size_t k = 0; k < curves.size(); ++k)
      if (!done[curves.size() - 1 - k]) run(k);
    (*o)["flow_layers"] = curves;
    (*o)["flow"] = onnx_text_row(rows_to_tokens(curves.back(), token_of, T));
  }
};

// flow_outside: the flow curves (and so the flow row) are computed and written by the caller (FlowCurves).
bool explain_rows(OnnxTextModel& model, const OnnxTextExplainRequest& request, int target, const std::vector<float>& logits,
                  json* out, std::string* error, bool flow_outside = false) {
  json& o = *out;
  const int T = static_cast<int>(request.ids.size());
  const double nan = std::nan("");
  if (!model.backward(target, error)) return false;
  // Attention rows through the shared self-attention methods.
  json found = json::array();
  if (!model.attention().empty()) {
    SelfAttentionMaps maps;
    std::vector<int> token_of;
    int explained = -1;
    if (!model.maps(true, &maps, &token_of, &explained, error)) return false;
    for (const auto& a : model.attention())
      found.push_back({{"layer", a.layer}, {"softmax", a.softmax_node}, {"heads", maps.heads}, {"positions", maps.n}});
    std::vector<std::vector<Mat<double>>> A;
    if (request.attention_layers && !model.attention_layers(&A, nullptr, error)) return false;
    json layers = json::array();
    for (const auto& heads : A) {
      json hl = json::array();
      for (const auto& m : heads) {
        json rows = json::array();
        for (Eigen::Index i = 0; i < m.rows(); ++i) {
          std::vector<double> r(static_cast<size_t>(m.cols()));
          for (Eigen::Index j = 0; j < m.cols(); ++j) r[j] = m(i, j);
          rows.push_back(r);
        }
        hl.push_back(rows);
      }
      layers.push_back(hl);
    }
    if (request.attention_layers) o["attention_layers"] = layers;
    auto to_tokens = [&](const std::vector<double>& r) { return rows_to_tokens(r, token_of, T); };
    o["attention"] = onnx_text_row(to_tokens(raw_attention_from_maps(maps)));
    o["rollout"] = onnx_text_row(to_tokens(rollout_from_maps(maps, HeadFusion::Mean)));
    FlowCurves flow;
    if (flow_outside) {
      // written by the caller
    } else if (request.flow_layers && flow.start(&maps, token_of)) {
      flow.write(&o, T);
    } else if (flow_affordable(maps.n, maps.layers)) {
      o["flow"] = onnx_text_row(to_tokens(flow_from_maps(maps, HeadFusion::Mean)));
    } else {
      o["flow"] = onnx_text_row(std::vector<double>(static_cast<size_t>(T), nan));
      o["flow_note"] = flow_limit_note(maps.n, maps.layers);
    }
    o["relevance"] = onnx_text_row(to_tokens(relevance_from_maps(maps)));
    o["grad_attention"] = onnx_text_row(to_tokens(grad_attention_from_maps(maps)));
    o["explained_token"] = explained;
  } else {
    o["attention_note"] = "no attention was found in this model (a Softmax over the keys whose output multiplies the values)";
  }
  o["attention_found"] = found;
  std::vector<double> gx, gn;
  if (model.embedding_gradients(&gx, &gn, error)) {
    o["gradient"] = onnx_text_row(gn);
    o["gradient_x_input"] = onnx_text_row(gx);
  } else {
    o["gradient_note"] = *error;
    error->clear();
  }
  // The propagation rules (onnx/propagation.h), found from the graph: one backward each, from the explained logit.
  for (const auto& [key, rule] : {std::pair<const char*, onnx::RelevanceRule>{"attnlrp", onnx::RelevanceRule::AttnLrp},
                                  std::pair<const char*, onnx::RelevanceRule>{"cp_lrp", onnx::RelevanceRule::CpLrp}}) {
    std::vector<double> tokens;
    std::vector<std::string> notes;
    if (onnx_text_relevance(model, target, rule, &tokens, &notes, error)) {
      double sum = 0;
      for (double v : tokens)
        if (std::isfinite(v)) sum += v;
      const double logit = logits.size() == 1 ? (target == 1 ? logits[0] : -logits[0]) : logits[static_cast<size_t>(target)];
      o[key] = onnx_text_row(tokens);
      o[std::string(key) + "_conservation"] = {{"logit", logit}, {"tokens", sum}, {"unexplained", logit - sum}};
      o[std::string(key) + "_rules"] = notes;
    } else {
      o[std::string(key) + "_note"] = *error;
      error->clear();
    }
  }
  return true;
}

}  // namespace

bool onnx_text_explain(OnnxTextModel& model, const OnnxTextExplainRequest& request, json* out, std::string* error) {
  const std::vector<int>& ids = request.ids;
  const int T = static_cast<int>(ids.size());
  if (!model.run(ids, error)) return false;
  const std::vector<float> logits = model.logits();
  int target = request.target;
  if (target < 0) target = logits.size() == 1 ? (logits[0] >= 0 ? 1 : 0) : onnx_text_top_k(logits, 1).at(0);
  const double p = onnx_text_probability(logits, target);
  json o = {{"causal", model.causal()}, {"target", target}, {"probability", p}, {"output", model.output_name()}};
  o["logits"] = logits;
  auto rows = [&](std::string* e, bool flow_outside) { return explain_rows(model, request, target, logits, &o, e, flow_outside); };
  // Leave-one-out's passes on copies of the model while lane 0 computes the rows on the model itself and then takes
  // passes too (on_model_lanes' first): the same values as rows then leave-one-out (each pass's value is its own; a
  // row's nested loops run serially, which leaves their values unchanged), in about the time of the longer. Where the
  // batched passes are still unchecked (the model's first call) or one thread runs, the rows come first as before.
  std::vector<double> loo;
  bool loo_done = false, rows_done = false;
  if (request.leave_one_out && request.ig_steps == 0 && thread_count() > 1 && !in_parallel_loop()) {
    LooPasses passes = loo_passes(model, ids, target, p, 0, T, &loo);
    // the prefix's check runs passes of its own: not beside the rows (whose values they would overwrite)
    if (model.suffix_check() != OnnxTextModel::BatchCheck::kAgree) {
      passes.prefix.reset();
      passes.before.reset();
      passes.after.reset();
    }
    if (passes.n > 0 && (!passes.batched || model.batch_check() == OnnxTextModel::BatchCheck::kAgree)) {
      std::string passes_error, rows_error;
      bool rows_ok = false;
      // the flow curves are items too: they read the attention alone, not the backward passes the rows run
      FlowCurves flow;
      const bool flow_items = request.flow_layers && flow.plan(model);
      const size_t loo_items = passes.items(), flows = flow_items ? flow.curves.size() : 0;
      // a pass that failed (a batch over the executor's budget at this length, where the check was made on a shorter
      // text) leaves loo_done false: leave-one-out again below, with onnx_text_leave_one_out's fallback to one
      // deletion a pass
      loo_done = on_model_lanes(
          model, loo_items + flows, &passes_error,
          [&](OnnxTextModel& m, size_t c, std::string* e) {
            if (c < loo_items) return passes.run(m, c, e);
            flow.run(c - loo_items);
            return true;
          },
          [&] { rows_ok = rows(&rows_error, flow_items); });
      if (!rows_ok) {
        *error = rows_error;
        return false;
      }
      if (flow_items) flow.write(&o, T);  // the curves a failed pass left undone, here
      if (loo_done) passes.finish(model);
      rows_done = true;
    }
  }
  if (!rows_done && !rows(error, false)) return false;
  if (request.ig_steps > 0) {
    OnnxIgResult ig;
    if (onnx_text_integrated_gradients(model, ids, target, request.ig_steps, request.ig_baseline, &ig, error)) {
      o["integrated_gradients"] = onnx_text_row(ig.values);
      o["integrated_gradients_completeness"] = {{"sum", ig.sum}, {"target", ig.target}};
      o["integrated_gradients_baseline"] = onnx_ig_baseline_json(ig, request.ig_baseline);
    } else {
      o["integrated_gradients_note"] = *error;
      error->clear();
      if (!model.run(ids, error)) return false;
    }
  }
  if (request.leave_one_out) {
    if (!loo_done && !onnx_text_leave_one_out(model, ids, target, p, 0, T, &loo, error)) return false;
    o["leave_one_out"] = onnx_text_row(loo);
    o["leave_one_out_note"] = "each token deleted in turn, the rest re-run";
    if (!model.run(ids, error)) return false;  // leave the model on the explained input
  }
  // Context mixing: value zeroing and ALTI (onnx_context_mixing.h) on one plan, one matrix per layer, rolled out. Each
  // layer leaves the executor's values as it found them, so one run on ids serves both.
  if (request.context_mixing && !model.attention().empty()) {
    OnnxMixingPlan plan;
    if (!model.run(ids, error)) return false;
    const bool planned = plan_onnx_mixing(model, &plan, error);
    const std::string plan_error = planned ? "" : *error;
    error->clear();
    if (planned) o["context_mixing_found"] = {{"post_norm", plan.stream.post_norm}, {"layer_outputs", plan.stream.layer_outputs}};
    for (const auto& [key, method] : {std::pair<const char*, MixingMethod>{"value_zeroing", MixingMethod::ValueZeroing},
                                      std::pair<const char*, MixingMethod>{"alti", MixingMethod::Alti}}) {
      std::vector<Mat<double>> layers(model.attention().size());
      bool ok = planned;
      for (size_t l = 0; ok && l < layers.size(); ++l) ok = onnx_mixing_layer(model, plan, method, static_cast<int>(l), &layers[l], error);
      if (ok) {
        o[key] = onnx_text_row(onnx_mixing_rollout(model, plan, layers));
      } else {
        o[std::string(key) + "_note"] = planned ? *error : plan_error;
        error->clear();
        if (!model.run(ids, error)) return false;  // a layer that failed may have left the executor elsewhere
      }
    }
  }
  *out = o;
  return true;
}

}  // namespace attnlab
