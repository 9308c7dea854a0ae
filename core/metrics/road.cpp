// ROAD plans and the noisy linear imputation; see road.h.
#include "metrics/road.h"

#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>

#include "nn/rng.h"

namespace attnlab {

const std::vector<double>& road_percentages() {
  static const std::vector<double> p = {10, 20, 30, 40, 50, 60, 70, 80, 90};
  return p;
}

std::vector<float> road_impute(const std::vector<float>& image, int h, int w, const std::vector<char>& removed,
                               double noise, uint64_t seed) {
  const int hw = h * w;
  std::vector<int> index(hw, -1);  // pixel → unknown
  int n = 0;
  for (int p = 0; p < hw; ++p)
    if (removed[p]) index[p] = n++;
  std::vector<float> out = image;
  if (n == 0) return out;
  static const int du[8] = {-1, 1, 0, 0, -1, -1, 1, 1}, dv[8] = {0, 0, -1, 1, -1, 1, -1, 1};
  static const double wt[8] = {1 / 6., 1 / 6., 1 / 6., 1 / 6., 1 / 12., 1 / 12., 1 / 12., 1 / 12.};
  std::vector<Eigen::Triplet<double>> trip;
  trip.reserve(static_cast<size_t>(n) * 9);
  Eigen::MatrixXd rhs = Eigen::MatrixXd::Zero(n, 3);
  Eigen::MatrixXd guess(n, 3);
  double kept_mean[3] = {0, 0, 0};
  int kept = 0;
  for (int p = 0; p < hw; ++p)
    if (!removed[p]) {
      ++kept;
      for (int c = 0; c < 3; ++c) kept_mean[c] += image[c * hw + p];
    }
  for (int c = 0; c < 3; ++c) kept_mean[c] = kept ? kept_mean[c] / kept : 128.0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int p = y * w + x, i = index[p];
      if (i < 0) continue;
      double diag = 0;
      for (int k = 0; k < 8; ++k) {
        const int yy = y + du[k], xx = x + dv[k];
        if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
        const int q = yy * w + xx;
        diag += wt[k];
        if (index[q] >= 0) trip.emplace_back(i, index[q], -wt[k]);
        else
          for (int c = 0; c < 3; ++c) rhs(i, c) += wt[k] * image[c * hw + q];
      }
      trip.emplace_back(i, i, diag);
      for (int c = 0; c < 3; ++c) guess(i, c) = kept_mean[c];
    }
  Eigen::SparseMatrix<double> A(n, n);
  A.setFromTriplets(trip.begin(), trip.end());
  Eigen::ConjugateGradient<Eigen::SparseMatrix<double>, Eigen::Lower | Eigen::Upper> cg;
  cg.setTolerance(1e-6);
  cg.setMaxIterations(2000);
  cg.compute(A);
  Rng rng(seed);
  for (int c = 0; c < 3; ++c) {
    const Eigen::VectorXd v = cg.solveWithGuess(rhs.col(c), guess.col(c));
    for (int p = 0; p < hw; ++p)
      if (index[p] >= 0) {
        const double val = v(index[p]) + (noise > 0 ? noise * rng.normal() : 0.0);
        out[c * hw + p] = static_cast<float>(std::min(255.0, std::max(0.0, val)));
      }
  }
  return out;
}

namespace {

class RoadPlan : public ImagePlan {
 public:
  RoadPlan(RoadOrder order, const std::vector<float>& image, int h, int w, const std::vector<float>& saliency,
           int class_index, const std::vector<double>& percentages, double noise, uint64_t seed)
      : ImagePlan(static_cast<int>(percentages.size()), class_index, h, w), order_(order), image_(image),
        percentages_(percentages), noise_(noise), seed_(seed) {
    const size_t hw = static_cast<size_t>(h) * w;
    rank_.resize(hw);
    std::iota(rank_.begin(), rank_.end(), 0);
    auto key = [&](int i) { return std::isnan(saliency[i]) ? -INFINITY : saliency[i]; };
    std::stable_sort(rank_.begin(), rank_.end(), [&](int a, int b) { return key(a) > key(b); });
    if (order == RoadOrder::LeastRelevantFirst) std::reverse(rank_.begin(), rank_.end());
  }

  std::string result_json() const override {
    if (!done()) return nlohmann::json{{"error", "not done"}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::vector<double> y(count());
    double sum = 0;
    for (int i = 0; i < count(); ++i) sum += (y[i] = probability(i));
    return nlohmann::json{{"kind", order_ == RoadOrder::MostRelevantFirst ? "road-morf" : "road-lerf"},
                          {"percentages", percentages_}, {"y", y}, {"mean", count() ? sum / count() : 0.0}}
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

 protected:
  void input(int i, float* out) const override {
    const size_t hw = rank_.size();
    const size_t n = static_cast<size_t>(std::llround(percentages_[i] / 100.0 * hw));
    std::vector<char> removed(hw, 0);
    for (size_t r = 0; r < n; ++r) removed[rank_[r]] = 1;
    const std::vector<float> v = road_impute(image_, height(), width(), removed, noise_, seed_ + i);
    std::copy(v.begin(), v.end(), out);
  }

 private:
  RoadOrder order_;
  std::vector<float> image_;
  std::vector<double> percentages_;
  std::vector<int> rank_;
  double noise_;
  uint64_t seed_;
};

}  // namespace

std::unique_ptr<ImagePlan> make_road_plan(RoadOrder order, const std::vector<float>& image, int h, int w,
                                          const std::vector<float>& saliency, int class_index,
                                          const std::vector<double>& percentages, double noise, uint64_t seed,
                                          std::string* error) {
  if (h < 1 || w < 1 || image.size() != static_cast<size_t>(3) * h * w) {
    *error = "image must have 3·h·w values";
    return nullptr;
  }
  if (saliency.size() != static_cast<size_t>(h) * w) {
    *error = "saliency must have h·w = " + std::to_string(static_cast<size_t>(h) * w) + " values, got " +
             std::to_string(saliency.size());
    return nullptr;
  }
  if (percentages.empty() || percentages.size() > 99) {
    *error = "ROAD needs 1 to 99 percentages";
    return nullptr;
  }
  for (double q : percentages)
    if (!(q > 0 && q < 100)) {
      *error = "ROAD percentages must lie strictly between 0 and 100";
      return nullptr;
    }
  if (!(noise >= 0 && noise <= 255)) {
    *error = "ROAD noise must be in [0, 255]";
    return nullptr;
  }
  return std::make_unique<RoadPlan>(order, image, h, w, saliency, class_index, percentages, noise, seed);
}

}  // namespace attnlab
