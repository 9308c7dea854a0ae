// Value zeroing on an ONNX text transformer (see onnx_value_zeroing.h).
#include "explain/onnx_text/onnx_value_zeroing.h"

#include <cmath>

namespace attnlab {
namespace {

// The rows of t along its second-last axis as [outer, rows, width] strides; false unless that axis has `rows`.
bool vz_rows(const onnx::Tensor<float>& t, int rows, int64_t* outer, int64_t* width) {
  if (!t.is_float() || t.rank() < 2 || t.shape[static_cast<size_t>(t.rank() - 2)] != rows) return false;
  *width = t.shape.back();
  *outer = rows > 0 && *width > 0 ? t.numel() / (rows * *width) : 0;
  return true;
}

}  // namespace

bool plan_onnx_value_zeroing(OnnxTextModel& model, OnnxValueZeroingPlan* plan, std::string* error) {
  *plan = OnnxValueZeroingPlan();
  const auto& found = model.attention();
  if (found.empty()) {
    *error = "value zeroing needs the model's attention, and none was found";
    return false;
  }
  onnx::Executor<float>& ex = model.executor();
  if (!find_residual_stream(ex, found, model.output_name(), &plan->stream, error)) {
    *error = "value zeroing: " + *error;
    return false;
  }
  for (size_t l = 0; l < found.size(); ++l) {
    onnx::AttentionShape s;
    if (!onnx::attention_shape(ex, found[l], &s) || s.queries != s.keys || (l > 0 && s.keys != plan->positions)) {
      *error = "value zeroing: layer " + std::to_string(l) + "'s attention is not a square map over the positions of the others";
      return false;
    }
    plan->positions = static_cast<int>(s.keys);
    int64_t outer = 0, width = 0;
    const onnx::Tensor<float>* v = ex.value(found[l].values);
    if (!v || !vz_rows(*v, plan->positions, &outer, &width)) {
      *error = "value zeroing: layer " + std::to_string(l) + "'s values ('" + found[l].values + "') do not hold one row per position";
      return false;
    }
    const onnx::Tensor<float>* o = ex.value(plan->stream.layer_outputs[l]);
    if (!o || !vz_rows(*o, plan->positions, &outer, &width) || outer != 1) {
      *error = "value zeroing: layer " + std::to_string(l) + "'s output ('" + plan->stream.layer_outputs[l] +
               "') is not [positions, width] (batch 1)";
      return false;
    }
  }
  plan->explained = model.causal() ? plan->positions - 1 : 0;
  return true;
}

bool onnx_value_zeroing_layer(OnnxTextModel& model, const OnnxValueZeroingPlan& plan, int layer, Mat<double>* C,
                              std::string* error) {
  onnx::Executor<float>& ex = model.executor();
  const std::string& values = model.attention().at(static_cast<size_t>(layer)).values;
  const std::string& output = plan.stream.layer_outputs.at(static_cast<size_t>(layer));
  const int n = plan.positions;
  const onnx::Tensor<float> V = *ex.value(values);
  const onnx::Tensor<float> O = *ex.value(output);
  int64_t outer = 0, dv = 0, one = 0, d = 0;
  vz_rows(V, n, &outer, &dv);
  vz_rows(O, n, &one, &d);
  Mat<double> b(d, n);  // the original output, one column per position, unit length (0 stays 0)
  for (int i = 0; i < n; ++i) {
    for (int64_t k = 0; k < d; ++k) b(k, i) = O.f[static_cast<size_t>(i * d + k)];
    const double nb = b.col(i).norm();
    if (nb > 0) b.col(i) /= nb;
  }
  C->setZero(n, n);
  bool ok = true;
  for (int j = 0; j < n && ok; ++j) {
    onnx::Tensor<float> z = V;
    for (int64_t h = 0; h < outer; ++h)
      for (int64_t k = 0; k < dv; ++k) z.f[static_cast<size_t>((h * n + j) * dv + k)] = 0.f;
    ok = ex.forward_from(values, z, error);
    if (!ok) break;
    const onnx::Tensor<float>& out = *ex.value(output);
    for (int i = 0; i < n; ++i) {
      Vec<double> a(d);
      for (int64_t k = 0; k < d; ++k) a(k) = out.f[static_cast<size_t>(i * d + k)];
      const double na = a.norm();
      (*C)(i, j) = na > 0 && b.col(i).norm() > 0 ? 0.5 * (a / na - b.col(i)).squaredNorm() : 0.0;
    }
  }
  std::string rerr;
  if (!ex.forward_from(values, V, ok ? error : &rerr)) return false;  // the executor as it was
  if (!ok) return false;
  for (Eigen::Index i = 0; i < C->rows(); ++i) {
    const double s = C->row(i).sum();
    if (s > 0) C->row(i) /= s;
  }
  return true;
}

std::vector<double> onnx_value_zeroing_rollout(const OnnxTextModel& model, const OnnxValueZeroingPlan& plan,
                                               const std::vector<Mat<double>>& layers) {
  const int T = model.tokens(), n = plan.positions, offset = n - T;
  std::vector<double> tokens(static_cast<size_t>(T), std::nan(""));
  if (layers.empty()) return tokens;
  Mat<double> r = layers.back().row(plan.explained);
  for (int l = static_cast<int>(layers.size()) - 2; l >= 0; --l) r = r * layers[static_cast<size_t>(l)];
  for (int p = 0; p < n; ++p) {
    const int t = p - offset;
    if (p != plan.explained && t >= 0 && t < T) tokens[static_cast<size_t>(t)] = r(0, p);
  }
  return tokens;
}

bool onnx_value_zeroing(OnnxTextModel& model, const std::vector<int>& ids, std::vector<double>* tokens,
                        std::string* error) {
  OnnxValueZeroingPlan plan;
  if (!model.run(ids, error) || !plan_onnx_value_zeroing(model, &plan, error)) return false;
  std::vector<Mat<double>> layers(model.attention().size());
  for (size_t l = 0; l < layers.size(); ++l)
    if (!onnx_value_zeroing_layer(model, plan, static_cast<int>(l), &layers[l], error)) return false;
  *tokens = onnx_value_zeroing_rollout(model, plan, layers);
  return true;
}

}  // namespace attnlab
