// Wiegreffe & Pinter 2019 §3.2: how far apart are the attention distributions of the same recipe trained
// with different seeds, compared with how far the Jain & Wallace adversary moves attention? Per instance:
// JSD(alpha_base, alpha_seed) and TVD of the outputs for every other model in options.other_models (same
// vocabulary), and the adversary's max JSD on the base model (K = 5, 500 steps, eps = 0.01; param
// "adversarial": 0 skips it). W&P's reading: natural seed variance is much smaller than the adversary's JSD,
// so adversarial distributions are not ones a trained model would produce.
#include <algorithm>
#include <cmath>

#include "experiments/adversarial.h"
#include "experiments/all.h"
#include "experiments/text_attention_model.h"

namespace attnlab {

Experiment seeds_experiment() {
  Experiment e;
  e.name = "seeds";
  e.description = "Wiegreffe & Pinter: attention JSD between seeds of one recipe vs the adversary's JSD";
  e.run = on_text_model(TextExperimentRun([](const TextModel& model, const Instance& in, const ExperimentOptions& opt, Rng& rng, const void*) {
    nlohmann::json row;
    row["num_tokens"] = in.ids.size();
    if (in.ids.empty()) {
      row["skipped"] = "no tokens";
      return row;
    }
    if (opt.other_models.empty()) {
      row["skipped"] = "no other seeds' models given";
      return row;
    }
    const std::unique_ptr<AttentionInstance> base = TextAttentionModel(model).freeze(in, nullptr);
    std::vector<double> jsd, tvd;
    for (const TextModel* other : opt.other_models) {
      if (other->vocab.size() != model.vocab.size() || other->config.num_classes != model.config.num_classes) {
        row["skipped"] = "models do not share the vocabulary and classes";
        return row;
      }
      const FrozenEncoder fe = freeze_encoder(*other, in.ids);
      jsd.push_back(jensen_shannon(base->attention(), fe.alpha));
      tvd.push_back(total_variation(base->probs(), fe.probs));
    }
    row["predicted"] = base->predicted();
    row["seed_jsd"] = jsd;
    row["seed_tvd"] = tvd;
    row["mean_seed_jsd"] = mean_of(jsd);
    row["max_seed_jsd"] = *std::max_element(jsd.begin(), jsd.end());
    row["mean_seed_tvd"] = mean_of(tvd);
    if (opt.get_int("adversarial", 1) && in.ids.size() >= 2) {
      AdversarialOptions o;
      o.steps = opt.get_int("steps", o.steps);
      const AdversarialResult r = adversarial_search(*base, o, rng);
      row["adversarial_jsd"] = r.max_jsd;
    }
    return row;
  }));
  e.summarize = on_text_model(TextExperimentSummary([](const TextModel&, const std::vector<nlohmann::json>& rows, const ExperimentOptions& opt) {
    std::vector<double> mean_jsd, max_jsd, mean_tvd, adv;
    int adv_beyond = 0;
    for (const auto& row : rows) {
      const double mean = row_number(row, "mean_seed_jsd");
      if (row.contains("skipped") || !std::isfinite(mean)) continue;
      mean_jsd.push_back(mean);
      max_jsd.push_back(row_number(row, "max_seed_jsd"));
      mean_tvd.push_back(row_number(row, "mean_seed_tvd"));
      const double a = row_number(row, "adversarial_jsd");
      if (std::isfinite(a)) {
        adv.push_back(a);
        adv_beyond += a > max_jsd.back();
      }
    }
    nlohmann::json s;
    s["other_models"] = opt.other_models.size();
    s["n_used"] = mean_jsd.size();
    s["seed_jsd_mean"] = mean_of(mean_jsd);
    s["seed_jsd_median"] = median_of(mean_jsd);
    s["seed_max_jsd_mean"] = mean_of(max_jsd);
    s["seed_tvd_mean"] = mean_of(mean_tvd);
    s["adversarial_jsd_mean"] = mean_of(adv);
    s["fraction_adversary_beyond_every_seed"] = adv.empty() ? std::nan("") : double(adv_beyond) / adv.size();
    return s;
  }));
  e.needs_text_model = true;
  return e;
}

}  // namespace attnlab
