// Tests for core/metrics/localization (pointing game, energy in mask, IoU, map rank correlation) and
// core/image/erase on hand-made maps, masks and images.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "image/erase.h"
#include "image/map_ops.h"
#include "metrics/localization.h"
#include "nn/rng.h"

namespace attnlab {
namespace {

TEST(ImageMetrics, PointingGameWithAndWithoutTolerance) {
  // 5×5 map with its maximum at (y=2, x=2); the object (label 1) is the single pixel (2, 4).
  std::vector<float> map(25, 0.f);
  map[2 * 5 + 2] = 1.f;
  map[0] = 0.5f;
  std::vector<uint8_t> mask(25, 0);
  mask[2 * 5 + 4] = 1;
  EXPECT_FALSE(pointing_game(map, mask, 5, 5, 1, 0));
  EXPECT_FALSE(pointing_game(map, mask, 5, 5, 1, 1.9));
  EXPECT_TRUE(pointing_game(map, mask, 5, 5, 1, 2));
  EXPECT_FALSE(pointing_game(map, mask, 5, 5, 2, 2));  // another label
  mask[2 * 5 + 2] = 1;
  EXPECT_TRUE(pointing_game(map, mask, 5, 5, 1, 0));
  // diagonal distance: object at (4, 4) is √8 ≈ 2.83 from (2, 2)
  std::vector<uint8_t> diag(25, 0);
  diag[24] = 1;
  EXPECT_FALSE(pointing_game(map, diag, 5, 5, 1, 2.8));
  EXPECT_TRUE(pointing_game(map, diag, 5, 5, 1, 2.9));
}

TEST(ImageMetrics, EnergyInMask) {
  // positive energy 1 + 2 + 3 = 6, inside the mask 1 + 3 (−4 counts as 0)
  EXPECT_NEAR(energy_in_mask({1, 2, 3, -4}, {1, 0, 1, 1}, 1), 4.0 / 6, 1e-12);
  EXPECT_EQ(energy_in_mask({0, -1}, {1, 1}, 1), 0.0);
}

TEST(ImageMetrics, IouOfThresholdedMap) {
  // map [0, .2, .6, 1] (already min–max) >= .5 -> {2, 3}; mask {1, 2} -> 1 / 3
  EXPECT_NEAR(mask_iou({0, 0.2f, 0.6f, 1}, {0, 1, 1, 0}, 1, 0.5), 1.0 / 3, 1e-12);
  // normalisation first: [10, 12, 16, 20] -> [0, .2, .6, 1]
  EXPECT_NEAR(mask_iou({10, 12, 16, 20}, {0, 1, 1, 0}, 1, 0.5), 1.0 / 3, 1e-12);
  EXPECT_NEAR(mask_iou({0, 0, 1, 1}, {0, 0, 1, 1}, 1, 0.5), 1.0, 1e-12);
  EXPECT_EQ(mask_iou({3, 3}, {0, 0}, 1, 0.5), 0.0);  // both empty
}

TEST(ImageMetrics, SpearmanOfMaps) {
  EXPECT_NEAR(spearman_maps({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0, 1e-12);
  EXPECT_NEAR(spearman_maps({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0, 1e-12);
  EXPECT_TRUE(std::isnan(spearman_maps({1, 1, 1}, {1, 2, 3})));
}

TEST(ImageErase, OnlyPixelsAboveThresholdChange) {
  const int h = 12, w = 9;
  const size_t hw = h * w;
  Rng rng(5);
  std::vector<float> image(3 * hw), map(hw);
  for (float& v : image) v = static_cast<float>(rng.uniform(0, 255));
  for (float& v : map) v = static_cast<float>(rng.uniform());
  map[3] = 0.7f;  // exactly at the threshold: kept
  double mean[3] = {0, 0, 0};
  for (int c = 0; c < 3; ++c) {
    for (size_t i = 0; i < hw; ++i) mean[c] += image[c * hw + i];
    mean[c] /= hw;
  }
  const std::vector<float> blurred = gaussian_blur(image.data(), 3, h, w, 5.0, 11);
  for (EraseFill fill : {EraseFill::Mean, EraseFill::Blur, EraseFill::Grey}) {
    const std::vector<float> out = erase_region(image, map, h, w, 0.7, fill);
    int erased = 0;
    for (size_t i = 0; i < hw; ++i) {
      erased += map[i] > 0.7f;
      for (int c = 0; c < 3; ++c) {
        const float got = out[c * hw + i];
        if (!(map[i] > 0.7f)) {
          EXPECT_EQ(got, image[c * hw + i]);
        } else if (fill == EraseFill::Mean) {
          EXPECT_NEAR(got, mean[c], 1e-3);
        } else if (fill == EraseFill::Blur) {
          EXPECT_EQ(got, blurred[c * hw + i]);
        } else {
          EXPECT_EQ(got, 128.f);
        }
      }
    }
    EXPECT_GT(erased, 10);
    EXPECT_LT(erased, static_cast<int>(hw) - 10);
  }
  EraseFill f;
  EXPECT_TRUE(parse_erase_fill("gray", &f));
  EXPECT_EQ(f, EraseFill::Grey);
  EXPECT_FALSE(parse_erase_fill("zero", &f));
}

}  // namespace
}  // namespace attnlab
