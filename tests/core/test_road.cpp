// ROAD (core/metrics/road): the noisy linear imputation in closed form — with noise 0, an interior hole in a linear
// ramp is filled exactly (the weighted mean of the 8 neighbours of a linear function is its centre value), while a
// quadratic bump is not (the negative control); the noise has the asked σ; the plan removes the asked share of
// pixels in MoRF / LeRF order and reports its curve; bad arguments give messages.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "metrics/road.h"

namespace attnlab {
namespace {

std::vector<float> ramp(int h, int w, bool quadratic) {
  std::vector<float> img(3 * h * w);
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        img[c * h * w + y * w + x] = quadratic ? 0.4f * (x - 10) * (x - 10) + 10.f * c : 20.f + 3.f * x + 2.f * y + 10.f * c;
  return img;
}

double hole_error(bool quadratic, double noise, double* noise_sd = nullptr) {
  const int h = 24, w = 24;
  const auto img = ramp(h, w, quadratic);
  std::vector<char> removed(h * w, 0);
  for (int y = 6; y < 16; ++y)
    for (int x = 5; x < 17; ++x) removed[y * w + x] = 1;
  const auto out = road_impute(img, h, w, removed, noise, 7);
  double worst = 0, s2 = 0;
  int n = 0;
  for (int c = 0; c < 3; ++c)
    for (int p = 0; p < h * w; ++p) {
      const double d = out[c * h * w + p] - img[c * h * w + p];
      if (!removed[p]) EXPECT_EQ(d, 0.0);  // kept pixels untouched
      else {
        worst = std::max(worst, std::abs(d));
        s2 += d * d;
        ++n;
      }
    }
  if (noise_sd) *noise_sd = std::sqrt(s2 / n);
  return worst;
}

TEST(Road, LinearRampIsImputedExactly) {
  EXPECT_LT(hole_error(false, 0), 1e-3);
  EXPECT_GT(hole_error(true, 0), 1.0);  // negative control: x² is not harmonic
  double sd = 0;
  hole_error(false, 5.0, &sd);
  EXPECT_NEAR(sd, 5.0, 0.5);  // 360 noisy values
}

TEST(Road, PlanRemovesTheAskedShareInOrder) {
  const int h = 16, w = 16;
  std::vector<float> img(3 * h * w, 200.f), sal(h * w);
  for (int p = 0; p < h * w; ++p) sal[p] = static_cast<float>(p);  // the last pixels are the most relevant
  std::string err;
  const std::vector<double> pct = {25, 50};
  auto morf = make_road_plan(RoadOrder::MostRelevantFirst, img, h, w, sal, 1, pct, 0, 1, &err);
  auto lerf = make_road_plan(RoadOrder::LeastRelevantFirst, img, h, w, sal, 1, pct, 0, 1, &err);
  ASSERT_TRUE(morf && lerf) << err;
  EXPECT_EQ(morf->count(), 2);
  // a constant image is imputed to the same constant: inputs equal the image whatever is removed
  std::vector<float> in(2 * 3 * h * w);
  morf->inputs(0, 2, in.data());
  for (float v : in) EXPECT_NEAR(v, 200.f, 1e-3);
  // the imputation uses the neighbours: on a ramp in y, MoRF (bottom rows removed) and LeRF (top rows) differ
  std::vector<float> ry(3 * h * w);
  for (int c = 0; c < 3; ++c)
    for (int p = 0; p < h * w; ++p) ry[c * h * w + p] = static_cast<float>(10 * (p / w));
  auto m2 = make_road_plan(RoadOrder::MostRelevantFirst, ry, h, w, sal, 1, {25}, 0, 1, &err);
  std::vector<float> a(3 * h * w);
  m2->inputs(0, 1, a.data());
  EXPECT_EQ(a[0], ry[0]);                                  // top-left kept
  EXPECT_NEAR(a[(h - 1) * w], ry[(h - 3) * w], 40.f);      // bottom rows filled from the rows above, not grey
  const float logits[2 * 2] = {0.f, 0.f, 0.f, 1.f};
  ASSERT_EQ(morf->accept(0, 2, logits, 2), "");
  const std::string j = morf->result_json();
  EXPECT_NE(j.find("\"road-morf\""), std::string::npos);
  EXPECT_NE(j.find("\"mean\""), std::string::npos);
  EXPECT_EQ(road_percentages().size(), 9u);
}

TEST(Road, BadArguments) {
  std::vector<float> img(3 * 4 * 4, 1.f), sal(16, 0.f);
  std::string err;
  EXPECT_FALSE(make_road_plan(RoadOrder::MostRelevantFirst, img, 4, 4, sal, 0, {}, 0, 1, &err));
  EXPECT_NE(err.find("1 to 99"), std::string::npos);
  EXPECT_FALSE(make_road_plan(RoadOrder::MostRelevantFirst, img, 4, 4, sal, 0, {100}, 0, 1, &err));
  EXPECT_NE(err.find("strictly between"), std::string::npos);
  EXPECT_FALSE(make_road_plan(RoadOrder::MostRelevantFirst, img, 4, 4, std::vector<float>(3), 0, {10}, 0, 1, &err));
  EXPECT_NE(err.find("saliency"), std::string::npos);
  EXPECT_FALSE(make_road_plan(RoadOrder::MostRelevantFirst, img, 4, 4, sal, 0, {10}, -1, 1, &err));
}

}  // namespace
}  // namespace attnlab
