// Cascading model-parameter randomisation (Adebayo et al. 2018, "Sanity Checks for Saliency Maps", §3.1),
// applied to the text model: the layers are re-initialised from the top down — stages "decoder",
// "attention", "encoder", "embedding" — each stage keeping the earlier stages randomised, so the last stage
// is a fully random model. Re-initialisation uses the model's own init distributions (TextParams::init:
// uniform +-1/sqrt(fan) per layer, embedding N(0, 1) with a zero <pad> row): one fresh TextParams is drawn
// from Rng(seed mixed with a constant) and its layers are swapped in stage by stage. An explanation that
// passes the check changes as the model is randomised; one that stays the same does not depend on what the
// model learned.
// prepare builds the four randomised copies once per (model, seed); the prepared state is a
// `const std::vector<TextModel>` of the four copies in stage order (tests rely on this). run falls back to
// building them itself when called without prepare.
// Per instance and stage, each measure — "attention", "gradient" (J&W), "leave_one_out",
// "integrated_gradients" (|IG|; ig_steps from options, default 20 here for speed, not explain's 50) — of
// the randomised model is compared with the original model's, both explaining the class the original model
// predicts: Spearman rho (metrics/spearman.h) and Kendall tau-b (metrics/kendall.h). A correlation is
// undefined (null) when a vector is constant (e.g. uniform attention; attention of a uniform model is
// never defined) or the instance has one token.
// Row: {"stages": [{"stage", "measures": {NAME: {"spearman", "kendall"}}}], "num_tokens", "predicted"};
//      instances with no tokens or out-of-range ids give {"skipped": reason}.
// Summary: {"stages": [{"stage", "measures": {NAME: {"spearman_mean", "kendall_mean", "n_defined"}}}],
//           "n_used", "n_skipped"}; means over the defined values (null when none is).
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "experiments/all.h"
#include "experiments/frozen_encoder.h"
#include "explain/importance.h"
#include "metrics/kendall.h"
#include "metrics/spearman.h"

namespace attnlab {
namespace {

using nlohmann::json;
const char* const kStages[] = {"decoder", "attention", "encoder", "embedding"};
constexpr int kNumStages = 4;
const char* const kMeasures[] = {"attention", "gradient", "leave_one_out", "integrated_gradients"};
constexpr int kNumMeasures = 4;
constexpr uint64_t kSeedMix = 0x52414E444F4D4953ULL;  // "RANDOMIS": keeps the draw apart from training seeds


std::shared_ptr<const std::vector<TextModel>> randomised_copies(const TextModel& model, uint64_t seed) {
  Rng rng(seed ^ kSeedMix);
  TextParams<float> fresh;
  fresh.init(model.config, rng);
  auto copies = std::make_shared<std::vector<TextModel>>();
  TextModel current = model;
  current.params.decoder = fresh.decoder;
  copies->push_back(current);
  current.params.attention = fresh.attention;
  // transformer: "attention" = every block's Q, K, V, output projections; "encoder" = the rest of the encoder
  // ([CLS], positions, LayerNorms, FFNs).
  for (size_t l = 0; l < current.params.transformer.layers.size(); ++l)
    current.params.transformer.layers[l].attn = fresh.transformer.layers[l].attn;
  copies->push_back(current);
  current.params.encoder = fresh.encoder;
  if (!current.params.transformer.layers.empty()) {
    auto attn = current.params.transformer.layers;
    current.params.transformer = fresh.transformer;
    for (size_t l = 0; l < attn.size(); ++l) current.params.transformer.layers[l].attn = attn[l].attn;
  }
  copies->push_back(current);
  current.params.embedding = fresh.embedding;
  copies->push_back(current);
  return copies;
}

std::shared_ptr<const void> prepare_randomization(const TextModel& model, const ExperimentOptions& options) {
  return randomised_copies(model, options.seed);
}

// The four measures for one parameter set, |IG| included.
std::vector<std::vector<double>> measures_for(ExplainInput in, const TextParams<float>& params) {
  in.params = &params;
  std::vector<std::vector<double>> out;
  out.push_back(attention_importance(in));
  out.push_back(gradient_importance(in));
  out.push_back(leave_one_out_importance(in));
  std::vector<double> ig = integrated_gradients_importance(in);
  for (double& v : ig) v = std::fabs(v);
  out.push_back(ig);
  return out;
}

json run_randomization(const TextModel& model, const Instance& inst, const ExperimentOptions& options, Rng&,
                       const void* prepared) {
  json row = json::object();
  if (const char* why = instance_skip_reason(model, inst, 1)) {
    row["skipped"] = why;
    return row;
  }
  std::shared_ptr<const std::vector<TextModel>> own;
  const std::vector<TextModel>* copies = static_cast<const std::vector<TextModel>*>(prepared);
  if (!copies) {
    own = randomised_copies(model, options.seed);
    copies = own.get();
  }
  const FrozenEncoder fe = freeze_encoder(model, inst.ids);
  ExplainInput in;
  in.cfg = &model.config;
  in.ids = inst.ids;
  in.target = fe.predicted;
  in.ig_steps = std::max(1, options.get_int("ig_steps", 20));
  const std::vector<std::vector<double>> original = measures_for(in, model.params);

  json stages = json::array();
  for (int s = 0; s < kNumStages && s < static_cast<int>(copies->size()); ++s) {
    const std::vector<std::vector<double>> randomised = measures_for(in, (*copies)[s].params);
    json measures = json::object();
    for (int m = 0; m < kNumMeasures; ++m)
      measures[kMeasures[m]] = {{"spearman", number_or_null(spearman_rho(original[m], randomised[m]))},
                                {"kendall", number_or_null(kendall_tau(original[m], randomised[m]).tau)}};
    stages.push_back({{"stage", kStages[s]}, {"measures", measures}});
  }
  row["stages"] = stages;
  row["num_tokens"] = inst.ids.size();
  row["predicted"] = fe.predicted;
  return row;
}

// Correlation `key` of measure `name` at stage index s of a row; NaN if absent or null.
double row_value(const json& row, int s, const char* name, const char* key) {
  auto st = row.find("stages");
  if (st == row.end() || !st->is_array() || static_cast<int>(st->size()) <= s) return kNaN;
  const json& stage = (*st)[s];
  if (!stage.is_object()) return kNaN;
  auto ms = stage.find("measures");
  if (ms == stage.end() || !ms->is_object()) return kNaN;
  auto m = ms->find(name);
  if (m == ms->end() || !m->is_object()) return kNaN;
  auto v = m->find(key);
  return v != m->end() && v->is_number() ? v->get<double>() : kNaN;
}

json summarize_randomization(const TextModel&, const std::vector<json>& rows, const ExperimentOptions&) {
  std::vector<const json*> used;
  int skipped = 0;
  for (const json& r : rows) {
    if (r.contains("skipped")) ++skipped;
    else used.push_back(&r);
  }
  json stages = json::array();
  for (int s = 0; s < kNumStages; ++s) {
    json measures = json::object();
    for (const char* name : kMeasures) {
      std::vector<double> sp, kt;
      for (const json* r : used) {
        const double a = row_value(*r, s, name, "spearman"), b = row_value(*r, s, name, "kendall");
        if (std::isfinite(a)) sp.push_back(a);
        if (std::isfinite(b)) kt.push_back(b);
      }
      measures[name] = {{"spearman_mean", number_or_null(mean_of(sp))},
                        {"kendall_mean", number_or_null(mean_of(kt))},
                        {"n_defined", sp.size()}};
    }
    stages.push_back({{"stage", kStages[s]}, {"measures", measures}});
  }
  json out;
  out["stages"] = stages;
  out["n_used"] = used.size();
  out["n_skipped"] = skipped;
  return out;
}

}  // namespace

Experiment randomization_experiment() {
  Experiment e;
  e.name = "randomization";
  e.description =
      "Cascading randomisation sanity check: rank correlation (Spearman, Kendall) of each importance measure "
      "between the model and copies with decoder, attention, encoder, embedding re-initialised in turn "
      "(Adebayo et al. 2018)";
  e.prepare = on_text_model(TextExperimentPrepare(prepare_randomization));
  e.run = on_text_model(TextExperimentRun(run_randomization));
  e.summarize = on_text_model(TextExperimentSummary(summarize_randomization));
  e.needs_text_model = true;
  return e;
}

}  // namespace attnlab
