// The pictures of adversarial erasing for a few images (the page's erasing strip): the same steps as
// run_cnn_erasing (experiments/cnn_erasing.h, whose numbers the page's table shows) — for step k = 1..K the
// true-class map upsampled to the image, min–max normalised over the not-yet-erased pixels, the region >=
// threshold (cam_top_region), erased with o.fill (erase_region) and added to the union — recording for each
// example the image before each step, the step's map (normalised to [0, 1] over the whole image, for display)
// and the union after each step. Images are the first n examples of data.
#pragma once
#include <vector>

#include "experiments/cnn_erasing.h"

namespace attnlab {

struct CnnErasingTrace {
  int n = 0, steps = 0, size = 0;
  std::vector<std::vector<std::vector<float>>> images;   // [n][K][3*S*S], before step k
  std::vector<std::vector<std::vector<float>>> maps;     // [n][K][S*S]
  std::vector<std::vector<std::vector<uint8_t>>> unions; // [n][K][S*S], after step k
  std::vector<std::vector<uint8_t>> masks;               // [n][S*S]
};

CnnErasingTrace trace_cnn_erasing(const CnnConfig& cfg, const CnnParams<float>& params, const ShapesDataset& data,
                                  int n, const CnnErasingOptions& o);

}  // namespace attnlab
