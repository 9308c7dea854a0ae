// The path integral of integrated gradients, written once for every model kind (the core's text models:
// integrated_gradients_importance.cpp; a user's ONNX transformer: onnx_text/onnx_text_explain.cpp).
//   A model supplies eval(alphas, points): for each alpha in [0, 1], the explained probability p(alpha) at the
//   input alpha * x (x: the token embeddings; the baseline is alpha = 0) and the path gradient
//   g_t(alpha) = d p / d x_t (alpha x) . x_t, one per token.
//   integrated_gradients_path(T, steps, eval, out): the trapezoid rule over `steps` uniform segments to start;
//   along the path d p(alpha x) / d alpha = sum_t g_t(alpha), so each segment's trapezoid sum over tokens must equal
//   p(b) - p(a), and its miss is that segment's exact completeness error, known from passes already made.
//   Trained attention models can switch sharply along the path (p jumps within a 1e-3 stretch of alpha), where a
//   uniform grid breaks completeness (sum of attributions = p(x) - p(baseline)); so the segments missing by more
//   than kMaxSegmentError are bisected, worst first, round by round, until none is left, a segment is narrower
//   than kMinWidth, or 4 * steps segments are in use. kMinWidth is below float's spacing of alpha (the scaled
//   input is float): a BiLSTM's state can switch within ~1e-6 of alpha (tests/core/test_explain.cpp, SST-2 test
//   line 34), which a 1e-6 floor left 89 % incomplete. Smooth segments, however steep, cost no extra pass.
//   *out = one signed value per token; *p_ends = {p(0), p(1)} when given (completeness: sum(out) ≈ p1 − p0).
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace attnlab {

struct IgPathPoint {
  double alpha = 0, p = 0, slope = 0;  // slope = sum_t g[t]
  std::vector<double> g;
};

// Fills points (one per alpha, in order; slope may be left 0: it is recomputed); false with a message on failure.
using IgPathEvaluator = std::function<bool(const std::vector<double>& alphas, std::vector<IgPathPoint>* points, std::string* error)>;

bool integrated_gradients_path(int T, int steps, const IgPathEvaluator& eval, std::vector<double>* out, std::string* error,
                               std::pair<double, double>* p_ends = nullptr);

}  // namespace attnlab
