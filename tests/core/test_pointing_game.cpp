// The pointing game's standard tolerance, the centre-point baseline and the two alternative readings of a map
// (its argmax at feature resolution, its centre of mass) of core/metrics/localization, on closed cases; and
// evaluate_cnn's centre baseline against a count made here from the test masks directly.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "data/shapes_dataset.h"
#include "metrics/localization.h"
#include "model/cnn_model.h"
#include "train/cnn_trainer.h"

namespace attnlab {
namespace {

TEST(PointingGame, StandardToleranceScalesFifteenPixelsAt224) {
  EXPECT_DOUBLE_EQ(standard_pointing_tolerance(224), 15.0);
  EXPECT_NEAR(standard_pointing_tolerance(64), 4.2857142857, 1e-9);  // 15 · 64 / 224 = 30 / 7
  EXPECT_DOUBLE_EQ(standard_pointing_tolerance(448), 30.0);
}

TEST(PointingGame, HitAtPointUsesEuclideanDistance) {
  // 9×9, object = the single pixel (4, 8); point (4, 4) is 4 px away, (0, 4) is √32 ≈ 5.66 px away.
  std::vector<uint8_t> mask(81, 0);
  mask[4 * 9 + 8] = 1;
  const double tol = standard_pointing_tolerance(64);  // 4.29
  EXPECT_FALSE(pointing_hit_at(mask, 9, 9, 4, 4, 1, 0));
  EXPECT_FALSE(pointing_hit_at(mask, 9, 9, 4, 4, 1, 3.99));
  EXPECT_TRUE(pointing_hit_at(mask, 9, 9, 4, 4, 1, 4));
  EXPECT_TRUE(pointing_hit_at(mask, 9, 9, 4, 4, 1, tol));
  EXPECT_FALSE(pointing_hit_at(mask, 9, 9, 0, 4, 1, tol));
  EXPECT_TRUE(pointing_hit_at(mask, 9, 9, 0, 4, 1, 5.7));
  EXPECT_TRUE(pointing_hit_at(mask, 9, 9, 4, 8, 1, 0));
  // bad input: a point outside, a mask of the wrong size
  EXPECT_FALSE(pointing_hit_at(mask, 9, 9, -1, 4, 1, 100));
  EXPECT_FALSE(pointing_hit_at(mask, 9, 9, 4, 9, 1, 100));
  EXPECT_FALSE(pointing_hit_at(std::vector<uint8_t>(80, 1), 9, 9, 4, 4, 1, 0));
}

TEST(PointingGame, CentrePointBaseline) {
  EXPECT_EQ(centre_point(64, 64).y, 31);
  EXPECT_EQ(centre_point(64, 64).x, 31);
  EXPECT_EQ(centre_point(5, 4).y, 2);
  EXPECT_EQ(centre_point(5, 4).x, 1);
  EXPECT_EQ(centre_point(0, 4).y, -1);
  // an object in the top-left corner of a 64×64 image: the centre misses it at 0 px and at 4.29 px, and hits
  // it once the object reaches within 4 px of (31, 31)
  std::vector<uint8_t> mask(64 * 64, 0);
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 10; ++x) mask[y * 64 + x] = 1;
  const MapPoint c = centre_point(64, 64);
  EXPECT_FALSE(pointing_hit_at(mask, 64, 64, c.y, c.x, 1, 0));
  EXPECT_FALSE(pointing_hit_at(mask, 64, 64, c.y, c.x, 1, standard_pointing_tolerance(64)));
  mask[27 * 64 + 31] = 1;  // 4 px above the centre
  EXPECT_FALSE(pointing_hit_at(mask, 64, 64, c.y, c.x, 1, 0));
  EXPECT_TRUE(pointing_hit_at(mask, 64, 64, c.y, c.x, 1, standard_pointing_tolerance(64)));
}

TEST(PointingGame, ArgmaxAndCentreOfMass) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // 3×4 map; maximum 5 at (1, 2) (the first of two 5s in row-major order); NaN ignored
  const std::vector<float> m = {nan, 0, 1, 0, 0, 2, 5, 0, 0, 0, 5, 0};
  EXPECT_EQ(map_argmax(m, 3, 4).y, 1);
  EXPECT_EQ(map_argmax(m, 3, 4).x, 2);
  EXPECT_EQ(map_argmax(std::vector<float>(4, nan), 2, 2).y, -1);
  // positive mass 1 @ (0,2), 2 @ (1,1), 5 @ (1,2), 5 @ (2,2): ȳ = (0 + 2 + 5 + 10) / 13 = 1.31 -> 1,
  // x̄ = (2 + 2 + 10 + 10) / 13 = 1.85 -> 2; negative values are ignored
  std::vector<float> w = m;
  w[3] = -100;
  EXPECT_EQ(map_centre_of_mass(w, 3, 4).y, 1);
  EXPECT_EQ(map_centre_of_mass(w, 3, 4).x, 2);
  // a ring: its centre of mass is its centre, where the ring is not
  std::vector<float> ring(25, 0);
  for (int q : {6, 7, 8, 11, 13, 16, 17, 18}) ring[q] = 1;
  EXPECT_EQ(map_centre_of_mass(ring, 5, 5).y, 2);
  EXPECT_EQ(map_centre_of_mass(ring, 5, 5).x, 2);
  EXPECT_EQ(map_centre_of_mass(std::vector<float>(4, -1), 2, 2).y, -1);  // no positive part
}

TEST(PointingGame, DistanceToTheObject) {
  // 6×6, object pixels (0, 5) and (5, 0); from (2, 2): √(4 + 9) = √13 to both; from (0, 5): 0
  std::vector<uint8_t> mask(36, 0);
  mask[5] = 1;
  mask[30] = 1;
  EXPECT_NEAR(distance_to_label(mask, 6, 6, 2, 2, 1), std::sqrt(13.0), 1e-12);
  EXPECT_EQ(distance_to_label(mask, 6, 6, 0, 5, 1), 0.0);
  EXPECT_NEAR(distance_to_label(mask, 6, 6, 5, 5, 1), 5.0, 1e-12);
  EXPECT_TRUE(std::isinf(distance_to_label(mask, 6, 6, 2, 2, 2)));   // no pixel with that label
  EXPECT_TRUE(std::isinf(distance_to_label(mask, 6, 6, 6, 2, 1)));   // outside
}

TEST(PointingGame, FeatureCellHit) {
  // 2×2 map over an 8×8 image (4×4 blocks); argmax cell (1, 0) = rows 4..7, columns 0..3
  const std::vector<float> m = {0, 1, 3, 2};
  std::vector<uint8_t> mask(64, 0);
  mask[0 * 8 + 7] = 1;  // in cell (0, 1)
  EXPECT_FALSE(block_pointing_hit(m, 2, 2, mask, 8, 1));
  mask[7 * 8 + 3] = 1;  // the far corner of cell (1, 0)
  EXPECT_TRUE(block_pointing_hit(m, 2, 2, mask, 8, 1));
  mask[7 * 8 + 3] = 0;
  mask[4 * 8 + 4] = 1;  // just outside it
  EXPECT_FALSE(block_pointing_hit(m, 2, 2, mask, 8, 1));
  EXPECT_FALSE(block_pointing_hit(m, 3, 2, std::vector<uint8_t>(81, 1), 9, 1));  // 9 is not a multiple of 2
}

TEST(PointingGame, EvaluateCnnReportsTheCentreBaselineOfTheMasks) {
  CnnConfig cfg;
  cfg.image_size = 32;
  Rng rng(3);
  CnnParams<float> p;
  p.init(cfg, rng);
  ShapesConfig sc;
  sc.image_size = 32;
  const ShapesDataset data(sc, 7, Split::Test, 60);
  const CnnEvalResult r = evaluate_cnn(cfg, p, data);
  // the count made here, from the masks: the centre pixel (15, 15) on the object; within 15·32/224 = 2.14 px
  Mat<float> x;
  std::vector<int> labels, idx;
  std::vector<std::vector<uint8_t>> masks;
  for (int i = 0; i < 60; ++i) idx.push_back(i);
  data.batch(idx, x, labels, &masks);
  int at = 0, near = 0;
  for (const auto& m : masks) {
    at += m[15 * 32 + 15] == 1;
    bool any = false;
    for (int y = 13; y <= 17; ++y)
      for (int xx = 13; xx <= 17; ++xx)
        any = any || ((y - 15) * (y - 15) + (xx - 15) * (xx - 15) <= 4 && m[y * 32 + xx] == 1);  // 2.14² = 4.6
    near += any;
  }
  EXPECT_NEAR(r.pointing_standard_tolerance, 15.0 * 32 / 224, 1e-12);
  EXPECT_DOUBLE_EQ(r.pointing_centre_baseline, at / 60.0);
  EXPECT_DOUBLE_EQ(r.pointing_centre_baseline_standard, near / 60.0);
  EXPECT_GE(r.pointing_game_standard, r.pointing_game);  // a tolerance can only add hits
  EXPECT_GT(r.pointing_centre_baseline_standard, 0.0);
  // per class: the 5 classes get 12 images each (label = i mod 5); the per-class rates average to the total
  ASSERT_EQ(r.pointing_centre_by_class.size(), 5u);
  double mean_c = 0, mean_h = 0;
  for (int k = 0; k < 5; ++k) mean_c += r.pointing_centre_by_class[k] / 5, mean_h += r.pointing_by_class[k] / 5;
  EXPECT_NEAR(mean_c, r.pointing_centre_baseline, 1e-12);
  EXPECT_NEAR(mean_h, r.pointing_game, 1e-12);
}

}  // namespace
}  // namespace attnlab
