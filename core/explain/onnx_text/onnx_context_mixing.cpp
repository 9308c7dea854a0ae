// Value zeroing and ALTI on an ONNX text transformer (see onnx_context_mixing.h).
#include "explain/onnx_text/onnx_context_mixing.h"

#include <algorithm>
#include <cmath>

namespace attnlab {
namespace {

// The rows of t along its second-last axis as [outer, rows, width] strides; false unless that axis has `rows`.
bool mixing_rows(const onnx::Tensor<float>& t, int rows, int64_t* outer, int64_t* width) {
  if (!t.is_float() || t.rank() < 2 || t.shape[static_cast<size_t>(t.rank() - 2)] != rows) return false;
  *width = t.shape.back();
  *outer = rows > 0 && *width > 0 ? t.numel() / (rows * *width) : 0;
  return true;
}

// The values of t as columns, one per position [width × rows] (t: [.., rows, width], outer 1).
Mat<double> mixing_columns(const onnx::Tensor<float>& t, int rows) {
  int64_t outer = 0, d = 0;
  mixing_rows(t, rows, &outer, &d);
  Mat<double> m(d, rows);
  for (int i = 0; i < rows; ++i)
    for (int64_t k = 0; k < d; ++k) m(k, i) = t.f[static_cast<size_t>(i * d + k)];
  return m;
}

}  // namespace

bool mixing_method_from_name(const std::string& name, MixingMethod* out) {
  if (name == "value_zeroing") *out = MixingMethod::ValueZeroing;
  else if (name == "alti") *out = MixingMethod::Alti;
  else return false;
  return true;
}

bool plan_onnx_mixing(OnnxTextModel& model, OnnxMixingPlan* plan, std::string* error) {
  *plan = OnnxMixingPlan();
  const auto& found = model.attention();
  if (found.empty()) {
    *error = "context mixing needs the model's attention, and none was found";
    return false;
  }
  onnx::Executor<float>& ex = model.executor();
  if (!find_residual_stream(ex, found, model.output_name(), &plan->stream, error)) {
    *error = "context mixing: " + *error;
    return false;
  }
  for (size_t l = 0; l < found.size(); ++l) {
    onnx::AttentionShape s;
    if (!onnx::attention_shape(ex, found[l], &s) || s.queries != s.keys || (l > 0 && s.keys != plan->positions)) {
      *error = "context mixing: layer " + std::to_string(l) + "'s attention is not a square map over the positions of the others";
      return false;
    }
    plan->positions = static_cast<int>(s.keys);
    int64_t outer = 0, width = 0;
    const onnx::Tensor<float>* v = ex.value(found[l].values);
    if (!v || !mixing_rows(*v, plan->positions, &outer, &width)) {
      *error = "context mixing: layer " + std::to_string(l) + "'s values ('" + found[l].values + "') do not hold one row per position";
      return false;
    }
    const onnx::Tensor<float>* o = ex.value(plan->stream.layer_outputs[l]);
    if (!o || !mixing_rows(*o, plan->positions, &outer, &width) || outer != 1) {
      *error = "context mixing: layer " + std::to_string(l) + "'s output ('" + plan->stream.layer_outputs[l] +
               "') is not [positions, width] (batch 1)";
      return false;
    }
  }
  plan->explained = model.causal() ? plan->positions - 1 : 0;
  return true;
}

namespace {

void normalise_mixing_rows(Mat<double>* C) {
  for (Eigen::Index i = 0; i < C->rows(); ++i) {
    const double s = C->row(i).sum();
    if (s > 0) C->row(i) /= s;
  }
}

bool value_zeroing_layer(OnnxTextModel& model, const OnnxMixingPlan& plan, int layer, Mat<double>* C,
                         std::string* error) {
  onnx::Executor<float>& ex = model.executor();
  const std::string& values = model.attention().at(static_cast<size_t>(layer)).values;
  const std::string& output = plan.stream.layer_outputs.at(static_cast<size_t>(layer));
  const int n = plan.positions;
  const onnx::Tensor<float> V = *ex.value(values);
  int64_t outer = 0, dv = 0;
  mixing_rows(V, n, &outer, &dv);
  Mat<double> b = mixing_columns(*ex.value(output), n);  // the original output, columns of unit length (0 stays 0)
  for (int i = 0; i < n; ++i)
    if (b.col(i).norm() > 0) b.col(i).normalize();
  C->setZero(n, n);
  bool ok = true;
  for (int j = 0; j < n && ok; ++j) {
    onnx::Tensor<float> z = V;
    for (int64_t h = 0; h < outer; ++h)
      for (int64_t k = 0; k < dv; ++k) z.f[static_cast<size_t>((h * n + j) * dv + k)] = 0.f;
    ok = ex.forward_from(values, z, error, output);  // only as far as the layer's output
    if (!ok) break;
    const Mat<double> changed = mixing_columns(*ex.value(output), n);
    for (int i = 0; i < n; ++i) {
      const Vec<double> a = changed.col(i);
      const double na = a.norm();
      (*C)(i, j) = na > 0 && b.col(i).norm() > 0 ? 0.5 * (a / na - b.col(i)).squaredNorm() : 0.0;
    }
  }
  std::string rerr;
  if (!ex.forward_from(values, V, ok ? error : &rerr)) return false;  // the whole graph as it was
  if (!ok) return false;
  normalise_mixing_rows(C);
  return true;
}

bool alti_layer(OnnxTextModel& model, const OnnxMixingPlan& plan, int layer, Mat<double>* C, std::string* error) {
  onnx::Executor<float>& ex = model.executor();
  const std::string& prob = model.attention().at(static_cast<size_t>(layer)).probabilities;
  const ResidualAdd& add = plan.stream.attention.at(static_cast<size_t>(layer));
  const std::string where = "ALTI: layer " + std::to_string(layer) + ": ";
  const int n = plan.positions;
  int64_t outer = 0, d = 0;
  for (const std::string* v : {&add.skip, &add.branch, &add.sum}) {
    const onnx::Tensor<float>* t = ex.value(*v);
    if (!t || !mixing_rows(*t, n, &outer, &d) || outer != 1) {
      *error = where + "'" + *v + "' is not [positions, width] (batch 1)";
      return false;
    }
  }
  const Mat<double> X = mixing_columns(*ex.value(add.skip), n), F = mixing_columns(*ex.value(add.branch), n);
  Mat<double> ybar = mixing_columns(*ex.value(add.sum), n);
  d = ybar.rows();
  // Post-LN: the LayerNormalization that reads the sum, linearised with its own scale on each position.
  Mat<double> scale = Mat<double>::Ones(d, n);
  bool centre = false;
  if (plan.stream.post_norm) {
    const onnx::Node* ln = nullptr;
    for (const onnx::Node* node : ex.runtime_nodes())
      if (node->op_type == "LayerNormalization" && !node->inputs.empty() && node->inputs[0] == add.sum) ln = node;
    const int64_t axis = ln ? ln->attr_int("axis", -1) : 0;
    const onnx::Tensor<float>* gamma = ln && ln->inputs.size() > 1 ? ex.value(ln->inputs[1]) : nullptr;
    if (!ln || (axis != -1 && axis != ex.value(add.sum)->rank() - 1) || !gamma || gamma->numel() != d) {
      *error = where + "a post-LN graph needs the LayerNorm after the attention as one LayerNormalization node over the "
               "last axis, reading '" + add.sum + "' (a LayerNorm written out in elementary operators is not decomposed)";
      return false;
    }
    const double eps = ln->attr_float("epsilon", 1e-5f);
    for (int i = 0; i < n; ++i) {
      const double mu = ybar.col(i).mean();
      const double sigma = std::sqrt((ybar.col(i).array() - mu).square().mean() + eps);
      for (int64_t k = 0; k < d; ++k) scale(k, i) = gamma->f[static_cast<size_t>(k)] / sigma;
    }
    ybar = mixing_columns(*ex.value(ln->outputs.at(0)), n);
    centre = true;
  }
  const onnx::Tensor<float> A = *ex.value(prob);
  const int64_t heads = n > 0 ? A.numel() / (static_cast<int64_t>(n) * n) : 0;
  onnx::Tensor<float> masked = A;
  std::fill(masked.f.begin(), masked.f.end(), 0.f);
  bool ok = ex.forward_from(prob, masked, error, add.branch);  // only as far as the sublayer's output
  const Mat<double> F0 = ok ? mixing_columns(*ex.value(add.branch), n) : Mat<double>();
  Mat<double> shares = Mat<double>::Zero(d, n);
  C->setZero(n, n);
  for (int j = 0; j < n && ok; ++j) {
    masked = A;
    for (int64_t r = 0; r < heads * n; ++r)
      for (int k = 0; k < n; ++k)
        if (k != j) masked.f[static_cast<size_t>(r * n + k)] = 0.f;
    if (!(ok = ex.forward_from(prob, masked, error, add.branch))) break;
    Mat<double> T = mixing_columns(*ex.value(add.branch), n) - F0;
    shares += T;
    T.col(j) += X.col(j);
    for (int i = 0; i < n; ++i) {
      Vec<double> t = T.col(i);
      if (centre) t = scale.col(i).cwiseProduct((t.array() - t.mean()).matrix());
      (*C)(i, j) = std::max(0.0, ybar.col(i).lpNorm<1>() - (ybar.col(i) - t).lpNorm<1>());
    }
  }
  std::string rerr;
  if (!ex.forward_from(prob, A, ok ? error : &rerr)) return false;  // the whole graph as it was
  if (!ok) return false;
  const double gap = (shares - (F - F0)).cwiseAbs().maxCoeff(), size = std::max(1.0, (F - F0).cwiseAbs().maxCoeff());
  if (!(gap <= 1e-3 * size)) {
    *error = where + "the attention's output is not linear in its distribution (the shares of the positions miss it by " +
             std::to_string(gap) + "): something other than products and sums lies between A·V and the residual Add";
    return false;
  }
  normalise_mixing_rows(C);
  return true;
}

}  // namespace

bool onnx_mixing_layer(OnnxTextModel& model, const OnnxMixingPlan& plan, MixingMethod method, int layer, Mat<double>* C,
                       std::string* error) {
  if (layer < 0 || layer >= static_cast<int>(model.attention().size())) {
    *error = "layer " + std::to_string(layer) + " is not one of the " + std::to_string(model.attention().size()) + " found";
    return false;
  }
  return method == MixingMethod::Alti ? alti_layer(model, plan, layer, C, error)
                                      : value_zeroing_layer(model, plan, layer, C, error);
}

std::vector<double> onnx_mixing_rollout(const OnnxTextModel& model, const OnnxMixingPlan& plan,
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

bool onnx_context_mixing(OnnxTextModel& model, const std::vector<int>& ids, MixingMethod method,
                         std::vector<double>* tokens, std::string* error) {
  OnnxMixingPlan plan;
  if (!model.run(ids, error) || !plan_onnx_mixing(model, &plan, error)) return false;
  std::vector<Mat<double>> layers(model.attention().size());
  for (size_t l = 0; l < layers.size(); ++l)
    if (!onnx_mixing_layer(model, plan, method, static_cast<int>(l), &layers[l], error)) return false;
  *tokens = onnx_mixing_rollout(model, plan, layers);
  return true;
}

}  // namespace attnlab
