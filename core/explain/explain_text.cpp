#include "explain/explain_text.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "explain/context_mixing.h"
#include "explain/importance.h"
#include "explain/lrp_relevance.h"
#include "explain/self_attention_maps.h"
#include "nn/conicity.h"
#include "parallel/parallel_for.h"
#include "text/tokenizer.h"

namespace attnlab {

namespace {

PreparedText tokenize_cut(const TextModel& model, const std::string& text, int max_tokens) {
  PreparedText p;
  p.tokens = tokenize(text);
  p.num_tokens_total = static_cast<int>(p.tokens.size());
  if (max_tokens > 0 && static_cast<int>(p.tokens.size()) > max_tokens) {
    p.tokens.resize(max_tokens);
    p.truncated = true;
  }
  p.ids = model.vocab.ids(p.tokens);
  for (int id : p.ids) p.unknown.push_back(id == Vocab::kUnk);
  return p;
}

}  // namespace

std::vector<double> text_probabilities(const TextModel& model, const std::vector<int>& ids) {
  Mat<float> logits;
  if (ids.empty()) {
    logits = empty_input_logits(model.config, model.params);
  } else {
    TextCache<float> cache;
    text_forward_ids(model.config, model.params, TextBatch::from_sequences({ids}), cache);
    logits = cache.logits;
  }
  const Mat<float> p = class_probabilities(model.config, logits);
  return std::vector<double>(p.data(), p.data() + p.rows());
}

PreparedText prepare_text(const TextModel& model, const std::string& text, int max_tokens) {
  if (max_tokens <= 0 || max_tokens > kMaxExplainTokens) max_tokens = kMaxExplainTokens;
  if (model.config.encoder == EncoderKind::Transformer && max_tokens > model.config.max_len)
    max_tokens = model.config.max_len;  // the position table's length
  return tokenize_cut(model, text, max_tokens);
}

std::vector<double> predict_text(const TextModel& model, const std::string& text, int max_tokens) {
  if (model.config.encoder == EncoderKind::Transformer && (max_tokens <= 0 || max_tokens > model.config.max_len))
    max_tokens = model.config.max_len;
  return text_probabilities(model, tokenize_cut(model, text, max_tokens).ids);
}

TokenExplanation explain_text(const TextModel& model, const std::string& text, const ExplainOptions& options) {
  return explain_prepared(model, prepare_text(model, text, options.max_tokens), options);
}

TokenExplanation explain_prepared(const TextModel& model, const PreparedText& text, const ExplainOptions& options) {
  TokenExplanation e;
  e.tokens = text.tokens;
  e.unknown = text.unknown;
  e.ids = text.ids;
  e.truncated = text.truncated;
  e.num_tokens_total = text.num_tokens_total;
  e.probabilities = text_probabilities(model, e.ids);
  e.predicted_class = static_cast<int>(std::max_element(e.probabilities.begin(), e.probabilities.end()) -
                                       e.probabilities.begin());
  e.probability = model.config.num_classes == 2 ? e.probabilities[1] : e.probabilities[e.predicted_class];
  if (e.ids.empty()) return e;
  ExplainInput in;
  in.cfg = &model.config;
  in.params = &model.params;
  in.ids = e.ids;
  in.target = e.predicted_class;
  in.ig_steps = options.ig_steps;
  // The light methods side by side (one task each, each writing its own rows), then value zeroing (a transformer's),
  // leave-one-out and integrated gradients, which split their passes over the threads themselves (context_mixing.cpp,
  // importance.h explain_parts).
  const bool transformer = model.config.encoder == EncoderKind::Transformer;
  // Declared here, not in the block below: the tasks that call it run after that block has closed.
  auto propagate = [&](PropagationRule rule, std::vector<double>& tokens, TokenExplanation::Conservation& c) {
    const LrpRelevance r = transformer_relevance(model.config, model.params, e.ids, in.target, rule);
    tokens = r.tokens;
    c.logit = r.logit;
    for (double v : r.tokens) c.tokens += v;
    c.embeddings = r.cls + r.positions;
    c.unexplained = r.unexplained();
  };
  std::vector<std::function<void()>> tasks = {
      [&] { e.attention = attention_importance(in); },
      [&] { e.gradient = gradient_importance(in); },
  };
  if (options.ig_steps > 0)
    tasks.push_back([&] {
      TextCache<float> baseline;
      const Mat<float> zeros = Mat<float>::Zero(model.config.embedding_dim, static_cast<Eigen::Index>(e.ids.size()));
      text_forward(model.config, model.params, zeros, {static_cast<int>(e.ids.size())}, baseline);
      e.ig_target = e.probabilities[e.predicted_class] -
                    class_probabilities(model.config, baseline.logits)(e.predicted_class, 0);
    });
  if (!transformer)
    tasks.push_back([&] {
      TextCache<float> states;
      text_forward_ids(model.config, model.params, TextBatch::from_sequences({e.ids}), states);
      e.conicity = conicity_forward(states.encoder.out, states.lengths)[0];
    });
  if (transformer) {
    tasks.push_back([&] {
      const SelfAttentionMaps maps = self_attention_maps(in, true);  // one forward + one backward for all of them
      e.self_attention = true;
      e.attention_layers = maps.A;
      e.rollout = rollout_from_maps(maps, HeadFusion::Mean);
      e.flow = flow_from_maps(maps, HeadFusion::Mean);
      e.relevance = relevance_from_maps(maps);
      e.grad_attention = grad_attention_from_maps(maps);
      e.attention_norm = attention_norm_from_maps(maps);
    });
    tasks.push_back([&] { propagate(PropagationRule::AttnLrp, e.attnlrp, e.attnlrp_conservation); });
    tasks.push_back([&] { propagate(PropagationRule::CpLrp, e.cp_lrp, e.cp_lrp_conservation); });
    tasks.push_back([&] { e.alti = alti_importance(in); });
  }
  parallel_for(tasks.size(), [&](size_t k) { tasks[k](); });
  if (transformer) e.value_zeroing = value_zeroing_importance(in);
  e.leave_one_out = leave_one_out_importance(in);
  if (options.ig_steps > 0) {
    e.integrated_gradients = integrated_gradients_importance(in);
    for (double v : e.integrated_gradients) e.ig_sum += v;
  }
  // The signed rows (integrated gradients, and a transformer's AttnLRP / CP-LRP) are ranked by |value|.
  auto magnitudes = [](std::vector<double> v) {
    for (double& x : v) x = std::abs(x);
    return v;
  };
  e.kendall.push_back({"attention_gradient", kendall_tau(e.attention, e.gradient)});
  e.kendall.push_back({"attention_leave_one_out", kendall_tau(e.attention, e.leave_one_out)});
  e.kendall.push_back({"gradient_leave_one_out", kendall_tau(e.gradient, e.leave_one_out)});
  if (!e.integrated_gradients.empty())
    e.kendall.push_back({"attention_integrated_gradients", kendall_tau(e.attention, magnitudes(e.integrated_gradients))});
  if (transformer) {
    // τ between the attention row and each of the transformer's readings ("attention_" + the row's key).
    const std::pair<const char*, std::vector<double>> rows[] = {
        {"attention_rollout", e.rollout},         {"attention_flow", e.flow},
        {"attention_relevance", e.relevance},     {"attention_attention_norm", e.attention_norm},
        {"attention_attnlrp", magnitudes(e.attnlrp)}, {"attention_cp_lrp", magnitudes(e.cp_lrp)},
        {"attention_value_zeroing", e.value_zeroing}, {"attention_alti", e.alti}};
    for (const auto& [name, values] : rows) e.kendall.push_back({name, kendall_tau(e.attention, values)});
  }
  return e;
}

std::string explanation_json(const TokenExplanation& e, bool with_attention_layers) {
  using nlohmann::json;
  auto num = [](double v) { return std::isfinite(v) ? json(v) : json(nullptr); };
  auto arr = [&](const std::vector<double>& v) {
    json a = json::array();
    for (double x : v) a.push_back(num(x));
    return a;
  };
  auto rows_json = [&](const Mat<double>& a) {
    json rows = json::array();
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
      json row = json::array();
      for (Eigen::Index c = 0; c < a.cols(); ++c) row.push_back(num(a(i, c)));
      rows.push_back(row);
    }
    return rows;
  };
  json j;
  j["tokens"] = e.tokens;
  j["ids"] = e.ids;
  j["unknown"] = e.unknown;
  j["truncated"] = e.truncated;
  j["num_tokens_total"] = e.num_tokens_total;
  j["probabilities"] = arr(e.probabilities);
  j["probability"] = num(e.probability);
  j["predicted_class"] = e.predicted_class;
  j["attention"] = arr(e.attention);
  j["gradient"] = arr(e.gradient);
  j["leave_one_out"] = arr(e.leave_one_out);
  j["integrated_gradients"] = arr(e.integrated_gradients);
  j["conicity"] = num(e.conicity);
  if (!e.integrated_gradients.empty())
    j["integrated_gradients_completeness"] = {{"sum", num(e.ig_sum)}, {"target", num(e.ig_target)}};
  if (e.self_attention) {
    if (with_attention_layers) {
      json layers = json::array();  // [layer][head][row][col]
      for (const auto& heads : e.attention_layers) {
        json hl = json::array();
        for (const Mat<double>& a : heads) hl.push_back(rows_json(a));
        layers.push_back(hl);
      }
      j["attention_layers"] = layers;
    } else {
      const size_t heads = e.attention_layers.empty() ? 0 : e.attention_layers[0].size();
      const Eigen::Index n = heads ? e.attention_layers[0][0].rows() : 0;
      j["attention_layers_shape"] = {e.attention_layers.size(), heads, n, n};
    }
    j["rollout"] = arr(e.rollout);
    j["flow"] = arr(e.flow);
    j["relevance"] = arr(e.relevance);
    j["grad_attention"] = arr(e.grad_attention);
    j["attention_norm"] = arr(e.attention_norm);
    j["attnlrp"] = arr(e.attnlrp);
    j["cp_lrp"] = arr(e.cp_lrp);
    j["value_zeroing"] = arr(e.value_zeroing);
    j["alti"] = arr(e.alti);
    auto conservation = [&](const TokenExplanation::Conservation& c) {
      return json{{"logit", num(c.logit)}, {"tokens", num(c.tokens)}, {"embeddings", num(c.embeddings)},
                  {"unexplained", num(c.unexplained)}};
    };
    j["attnlrp_conservation"] = conservation(e.attnlrp_conservation);
    j["cp_lrp_conservation"] = conservation(e.cp_lrp_conservation);
  }
  json k = json::object();
  for (const auto& pair : e.kendall) k[pair.name] = {{"tau", num(pair.result.tau)}, {"p", num(pair.result.p)}};
  j["kendall"] = k;
  j["error"] = "";
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace attnlab
