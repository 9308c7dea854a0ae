// The CNN training options of the localization lab as one list of specs (catalogue "cnn.options": names as the
// page writes them, defaults = CnnConfig / CnnTrainOptions defaults, ranges), the recipes `page` / `tiny` / `full`,
// and what both the CLI and the wasm bindings need around a CNN model: options from a JSON object (checked with
// the specs), the test-data defaults a saved model carries in its training section, and the evaluation JSON.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catalogue/param_spec.h"
#include "model/cnn_checkpoint.h"
#include "train/cnn_trainer.h"

namespace attnlab {

const std::vector<ParamSpec>& cnn_option_specs();
// {"page": {label, imageSize, widths, pool, trainSize, valSize, optimizer, lr}, "tiny": ..., "full": ...}; page first.
const nlohmann::json& cnn_recipes();
std::vector<std::string> cnn_class_names(int num_classes);  // shape_kind_name(0 .. n-1)

struct CnnSetup {
  CnnModel model;          // config + class names (parameters not initialised)
  CnnTrainOptions train;   // data config filled from the model config
  int probes = 6, test_size = 500;
};
// Options (page names: head, lseR, cbam, confounder, seed, epochs, imageSize, classes, cbamReduction, widths,
// pool, trainSize, valSize, batchSize, optimizer, lr, momentum, weightDecay, textureContrast, probes, testSize)
// → a checked setup; "" or a message naming the option.
std::string cnn_setup_from_json(const nlohmann::json& options, CnnSetup* out);

// The defaults a model folder's training section gives its test data: seed (1 when absent), texture contrast
// (the generator's default when absent), confounder and epochs (unchanged when absent).
struct CnnTrainingDefaults {
  uint64_t seed = 1;
  double texture_contrast = ShapesConfig().texture_contrast, confounder = 0;
  int epochs = 0;
};
CnnTrainingDefaults cnn_training_defaults(const CnnModel& model);

// Evaluation JSON: n, accuracy, loss, pointing_game, mask_iou, energy_in_mask, mask_fraction, background_energy,
// background_class_rate, confounder, pointing {standard_tolerance_px, hit, hit_standard_tolerance, centre_baseline,
// centre_baseline_standard_tolerance, feature_cell, centre_of_mass, miss_distance_px, by_class {hit,
// hit_standard_tolerance, centre_baseline}} (train/cnn_trainer.h), and cbam_spatial {energy_in_mask, pointing_game} (null where undefined) when
// some stage has CBAM.
nlohmann::json cnn_eval_json(const CnnEvalResult& r, double confounder);

}  // namespace attnlab
