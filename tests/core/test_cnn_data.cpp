// The procedural shapes data set: masks are exactly the pixels painted, examples are a function of
// (seed, split, index), classes are balanced, and the confounder ties backgrounds to classes at rate p.
#include <gtest/gtest.h>

#include <cmath>

#include "data/shapes_dataset.h"

namespace attnlab {
namespace {

TEST(CnnData, MaskIsExactlyThePaintedPixels) {
  ShapesConfig cfg;
  for (int i = 0; i < 40; ++i) {
    const ShapeSpec s = sample_shape_spec(cfg, 7, Split::Train, i);
    const int S = cfg.image_size, P = S * S;
    const ShapeExample e = make_shape_example(cfg, 7, Split::Train, i);
    // 1) the object alone on a canvas of sentinel values: changed pixels == mask
    std::vector<float> canvas(3 * P, -1.f);
    render_object(s, S, canvas.data(), nullptr);
    // 2) the background alone
    std::vector<float> bg(3 * P);
    render_background(s, S, bg.data());
    long area = 0;
    for (int q = 0; q < P; ++q) {
      const bool painted = canvas[q] != -1.f;
      ASSERT_EQ(painted, e.mask[q] == 1) << "example " << i << " pixel " << q;
      area += e.mask[q];
      for (int k = 0; k < 3; ++k) {
        const float want = e.mask[q] ? s.color[k] : bg[k * P + q];
        ASSERT_EQ(e.image[k * P + q], want) << "example " << i << " pixel " << q << " channel " << k;
      }
    }
    EXPECT_GT(area, 20) << "example " << i;
    // The object touches no border (it was placed inside the image with a margin).
    for (int t = 0; t < S; ++t) {
      EXPECT_EQ(e.mask[t], 0);
      EXPECT_EQ(e.mask[(S - 1) * S + t], 0);
      EXPECT_EQ(e.mask[t * S], 0);
      EXPECT_EQ(e.mask[t * S + S - 1], 0);
    }
  }
}

TEST(CnnData, MaskAreaAndCentreMatchTheGeometry) {
  // Independent of the renderer: the area of each shape relative to its circumscribed circle, and the
  // centroid at (cx, cy).
  const double pi = 3.141592653589793;
  const double rel_area[kShapeKinds] = {pi, 1.4 * 1.4, 3 * std::sqrt(3.0) / 4, 4 * 0.6 * 0.95 - 0.36,
                                        pi * (1 - 0.55 * 0.55)};
  ShapesConfig cfg;
  cfg.image_size = 128;
  for (int i = 0; i < 25; ++i) {
    const ShapeSpec s = sample_shape_spec(cfg, 3, Split::Test, i);
    const ShapeExample e = make_shape_example(cfg, 3, Split::Test, i);
    double area = 0, mx = 0, my = 0;
    for (int y = 0; y < cfg.image_size; ++y)
      for (int x = 0; x < cfg.image_size; ++x)
        if (e.mask[y * cfg.image_size + x]) {
          area += 1;
          mx += x + 0.5;
          my += y + 0.5;
        }
    const double want = rel_area[s.label] * s.radius * s.radius;
    EXPECT_NEAR(area / want, 1.0, 0.08) << shape_kind_name(s.label) << " example " << i;
    EXPECT_NEAR(mx / area, s.cx, 0.5) << i;  // every shape's centroid is its centre
    EXPECT_NEAR(my / area, s.cy, 0.5) << i;
  }
}

TEST(CnnData, DeterministicPerSeedAndDifferentAcrossSeedsAndSplits) {
  ShapesConfig cfg;
  const ShapeExample a = make_shape_example(cfg, 42, Split::Train, 5);
  const ShapeExample b = make_shape_example(cfg, 42, Split::Train, 5);
  EXPECT_EQ(a.image, b.image);
  EXPECT_EQ(a.mask, b.mask);
  EXPECT_NE(make_shape_example(cfg, 43, Split::Train, 5).image, a.image);
  EXPECT_NE(make_shape_example(cfg, 42, Split::Test, 5).image, a.image);
  // order independence: a batch made in another order gives the same columns
  ShapesDataset ds(cfg, 42, Split::Train, 100);
  Mat<float> x1, x2;
  std::vector<int> l1, l2;
  ds.batch({3, 5, 9}, x1, l1);
  ds.batch({9, 5}, x2, l2);
  EXPECT_EQ(x1.col(1), x2.col(1));
  EXPECT_EQ(x1.col(2), x2.col(0));
  EXPECT_EQ(Eigen::Map<const Vec<float>>(a.image.data(), a.image.size()), x1.col(1));
}

TEST(CnnData, ClassesAreBalancedAndValuesInRange) {
  ShapesConfig cfg;
  cfg.num_classes = 4;
  std::vector<int> count(cfg.num_classes, 0);
  for (int i = 0; i < 200; ++i) {
    const ShapeExample e = make_shape_example(cfg, 1, Split::Train, i);
    ++count[e.label];
    for (float v : e.image) ASSERT_TRUE(v >= 0.f && v <= 1.f);
  }
  for (int c : count) EXPECT_EQ(c, 50);
}

TEST(CnnData, ConfounderTiesBackgroundToClassAtRateP) {
  for (double p : {0.95, 0.6}) {
    ShapesConfig cfg;
    cfg.confounder = p;
    int own = 0;
    const int n = 3000;
    for (int i = 0; i < n; ++i) {
      const ShapeSpec s = sample_shape_spec(cfg, 9, Split::Train, i);
      own += s.background == s.label;
    }
    const double rate = double(own) / n, se = std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(rate, p, 4 * se + 1e-3) << "p " << p;
  }
  // p = 0: background independent of the class, uniform over the kinds.
  ShapesConfig cfg;
  std::vector<std::vector<int>> table(kShapeKinds, std::vector<int>(kBackgroundKinds, 0));
  const int n = 5000;
  for (int i = 0; i < n; ++i) {
    const ShapeSpec s = sample_shape_spec(cfg, 9, Split::Test, i);
    ++table[s.label][s.background];
  }
  double chi2 = 0;
  const double expect = double(n) / (kShapeKinds * kBackgroundKinds);
  for (auto& row : table)
    for (int v : row) chi2 += (v - expect) * (v - expect) / expect;
  EXPECT_LT(chi2, 52.6);  // chi-square, 24 degrees of freedom, p = 0.001
}

TEST(CnnData, ConfigValidation) {
  ShapesConfig cfg;
  EXPECT_EQ(check_shapes_config(cfg), "");
  cfg.num_classes = 6;
  EXPECT_NE(check_shapes_config(cfg), "");
  cfg = {};
  cfg.confounder = 1.5;
  EXPECT_NE(check_shapes_config(cfg).find("confounder"), std::string::npos);
  cfg = {};
  cfg.image_size = 8;
  EXPECT_NE(check_shapes_config(cfg).find("image_size"), std::string::npos);
}

}  // namespace
}  // namespace attnlab
