// The erasing pictures (experiments/cnn_erasing_trace.h) follow run_cnn_erasing step for step: on a small random
// CNN, the recall / precision / union area of the traced unions, averaged over the traced images, equal
// run_cnn_erasing's numbers on the same images; each step's image is the previous one with exactly the newly
// unioned pixels set to the fill; unions only grow; the maps are in [0, 1].
#include <gtest/gtest.h>

#include "experiments/cnn_erasing_trace.h"

namespace attnlab {
namespace {

TEST(CnnErasingTrace, MatchesRunCnnErasing) {
  CnnConfig cfg;
  cfg.image_size = 24;
  cfg.widths = {4, 8};
  cfg.pool = {true, false};
  cfg.cbam = {false, false};
  Rng rng(5);
  CnnParams<float> params;
  params.init(cfg, rng);
  ShapesConfig d;
  d.image_size = 24;
  const int n = 6;
  const ShapesDataset data(d, 9, Split::Test, n);
  CnnErasingOptions o;
  o.steps = 3;
  o.threshold = 0.6;
  o.batch_size = 4;  // the aggregate runs in batches of 4 + 2; the trace in one batch of 6
  const CnnErasingResult r = run_cnn_erasing(cfg, params, data, o);
  const CnnErasingTrace t = trace_cnn_erasing(cfg, params, data, n, o);
  ASSERT_EQ(t.n, n);
  ASSERT_EQ(t.steps, 3);
  const size_t P = 24 * 24;
  for (int k = 0; k < 3; ++k) {
    double recall = 0, precision = 0, area = 0;
    for (int i = 0; i < n; ++i) {
      const std::vector<uint8_t>& u = t.unions[i][k];
      recall += mask_recall(u, t.masks[i]);
      precision += mask_precision(u, t.masks[i]);
      long a = 0;
      for (uint8_t v : u) a += v;
      area += double(a) / P;
      for (float v : t.maps[i][k]) ASSERT_TRUE(v >= 0 && v <= 1);
      if (k > 0) {
        const std::vector<uint8_t>& prev = t.unions[i][k - 1];
        for (size_t q = 0; q < P; ++q) ASSERT_LE(prev[q], u[q]) << "the union shrank";
        // image k = image k-1 with the pixels new to the union at step k-1... set to the fill
        const std::vector<uint8_t>& before = k >= 2 ? t.unions[i][k - 2] : std::vector<uint8_t>(P, 0);
        for (int c = 0; c < 3; ++c)
          for (size_t q = 0; q < P; ++q) {
            const float was = t.images[i][k - 1][c * P + q], now = t.images[i][k][c * P + q];
            if (prev[q] && !before[q]) ASSERT_EQ(now, o.fill);
            else ASSERT_EQ(now, was);
          }
      }
    }
    EXPECT_NEAR(recall / n, r.recall[k], 1e-12) << "step " << k + 1;
    EXPECT_NEAR(precision / n, r.precision[k], 1e-12) << "step " << k + 1;
    EXPECT_NEAR(area / n, r.union_area[k], 1e-12) << "step " << k + 1;
  }
  EXPECT_GT(r.recall[2], 0.0);
}

TEST(CnnErasingTrace, EmptyCases) {
  CnnConfig cfg;
  cfg.image_size = 16;
  cfg.widths = {4};
  cfg.pool = {false};
  cfg.cbam = {false};
  Rng rng(1);
  CnnParams<float> params;
  params.init(cfg, rng);
  ShapesConfig d;
  d.image_size = 16;
  const ShapesDataset data(d, 1, Split::Test, 3);
  CnnErasingOptions o;
  EXPECT_EQ(trace_cnn_erasing(cfg, params, data, 0, o).images.size(), 0u);
  o.steps = 0;
  EXPECT_EQ(trace_cnn_erasing(cfg, params, data, 3, o).images.size(), 0u);
  o.steps = 2;
  EXPECT_EQ(trace_cnn_erasing(cfg, params, data, 10, o).n, 3);  // clamped to the data
}

}  // namespace
}  // namespace attnlab
