// How attention forms (localisation lab, issue 5, experiment 5): the maps of fixed probe images, taken at
// any point of training (the CLI calls this after every epoch, once the epoch's BN statistics are
// recomputed). For each probe (a column of x [3*S*S x N] with its true label): the eval-mode prediction, the
// class map (model/cnn_model.h, cnn_cam) of the TRUE class at feature resolution h x w (row-major), and the
// CBAM spatial attention map of every stage that has one (empty vector for stages without); and the true class's
// logit and classifier bias, so a caller can show logit = mean(cam) + bias for a GAP head (the CAM identity).
#pragma once
#include <vector>

#include "model/cnn_model.h"

namespace attnlab {

struct CnnProbeMap {
  int label = 0, predicted = 0;
  float logit = 0, bias = 0;               // the true class's logit (eval mode) and fc bias
  std::vector<float> cam;                  // [h*w]
  std::vector<std::vector<float>> cbam;    // per stage, [stage h*w] or empty
};

struct CnnProbeMaps {
  int h = 0, w = 0;
  std::vector<CnnProbeMap> probes;
};

CnnProbeMaps cnn_probe_maps(const CnnConfig& cfg, const CnnParams<float>& params, const Mat<float>& x,
                            const std::vector<int>& labels);

}  // namespace attnlab
