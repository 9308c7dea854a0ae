// See measure_scores.h.
#include "experiments/measure_scores.h"

#include <algorithm>
#include <numeric>

#include "experiments/frozen_encoder.h"  // argmax
#include "explain/context_mixing.h"
#include "explain/importance.h"
#include "explain/lrp_relevance.h"
#include "explain/self_attention_maps.h"

namespace attnlab {

std::vector<std::string> importance_measures(const TextModel& model) {
  std::vector<std::string> out = {"attention", "gradient", "leave_one_out", "integrated_gradients"};
  if (model.config.encoder == EncoderKind::Transformer)
    out.insert(out.end(), {"rollout", "flow", "relevance", "grad_attention", "attention_norm", "attnlrp", "cp_lrp",
                           "value_zeroing", "alti"});
  out.push_back("random");
  return out;
}

MeasureScores measure_scores(const TextModel& model, const Instance& inst, const ExperimentOptions& options, Rng& rng,
                             int target) {
  const TextConfig& cfg = model.config;
  const int T = static_cast<int>(inst.ids.size());
  TextCache<float> full;
  text_forward_ids(cfg, model.params, TextBatch::from_sequences({inst.ids}), full);
  const Mat<float> probs = class_probabilities(cfg, full.logits);
  MeasureScores out;
  out.predicted = target >= 0 ? target : argmax(std::vector<double>(probs.data(), probs.data() + probs.size()));
  out.p_predicted = class_probability(cfg, full.logits, 0, out.predicted);

  ExplainInput in;
  in.cfg = &cfg;
  in.params = &model.params;
  in.ids = inst.ids;
  in.target = out.predicted;
  in.ig_steps = std::max(1, options.get_int("ig_steps", 50));
  out.scores = {attention_importance(in), gradient_importance(in), leave_one_out_importance(in),
                integrated_gradients_importance(in)};
  if (cfg.encoder == EncoderKind::Transformer) {
    const SelfAttentionMaps maps = self_attention_maps(in, true);
    out.scores.push_back(rollout_from_maps(maps, HeadFusion::Mean));
    out.scores.push_back(flow_from_maps(maps, HeadFusion::Mean));
    out.scores.push_back(relevance_from_maps(maps));
    out.scores.push_back(grad_attention_from_maps(maps));
    out.scores.push_back(attention_norm_from_maps(maps));
    out.scores.push_back(attnlrp_importance(in));
    out.scores.push_back(cp_lrp_importance(in));
    out.scores.push_back(value_zeroing_importance(in));
    out.scores.push_back(alti_importance(in));
    for (auto& s : out.scores) s.resize(static_cast<size_t>(T), 0.0);  // tokens past max_len: 0
  }
  out.scores.push_back(random_position_scores(T, rng));
  return out;
}

}  // namespace attnlab
