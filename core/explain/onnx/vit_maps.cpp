// The attention methods on an image transformer (vit_maps.h).
#include "explain/onnx/vit_maps.h"

#include "explain/onnx/attention_layers.h"
#include "explain/self_attention_maps.h"
#include "onnx/propagation.h"

namespace attnlab {

namespace {

struct VitMethod {
  const char* name;
  bool needs_gradient;
  std::vector<double> (*from_maps)(const SelfAttentionMaps&);  // null: a propagation rule
  onnx::RelevanceRule rule = onnx::RelevanceRule::AttnLrp;
};
std::vector<double> last_layer_attention(const SelfAttentionMaps& m) { return raw_attention_from_maps(m, -1); }
std::vector<double> mean_rollout(const SelfAttentionMaps& m) { return rollout_from_maps(m, HeadFusion::Mean); }
const VitMethod kVitMethods[] = {
    {"attention", false, &last_layer_attention},
    {"rollout", false, &mean_rollout},
    {"chefer", true, &relevance_from_maps},
    {"attnlrp", true, nullptr, onnx::RelevanceRule::AttnLrp},
    {"cp-lrp", true, nullptr, onnx::RelevanceRule::CpLrp},
};

// AttnLRP / CP-LRP: one backward of the class's logit under the rule found in the graph; a pixel's relevance is
// Σ_channels x · r, summed over each patch of the grid (or, without a grid, kept per pixel).
bool vit_relevance_map(OnnxClassifier& clf, const std::vector<float>& x, int class_index, const VitMethod& vm,
                       const PatchGrid& grid, InputMapResult* out, std::string* error) {
  onnx::PropagationPlan plan = onnx::plan_propagation(clf.executor(), vm.rule, clf.logits_name());
  clf.set_propagation(&plan);
  std::vector<float> r;
  const bool ok = clf.backward_class(class_index, error) && clf.input_gradient(&r, error);
  clf.set_propagation(nullptr);
  if (!ok) return false;
  const std::vector<int64_t> s = clf.input_shape();
  const int64_t C = s[1], H = s[2], W = s[3];
  std::vector<double> pixels(static_cast<size_t>(H * W), 0.0);
  double total = 0;
  for (int64_t c = 0; c < C; ++c)
    for (int64_t p = 0; p < H * W; ++p) {
      const size_t q = static_cast<size_t>(c * H * W + p);
      const double v = static_cast<double>(x[q]) * r[q];
      pixels[static_cast<size_t>(p)] += v;
      total += v;
    }
  const bool pooled = grid.note.empty() && H % grid.grid_h == 0 && W % grid.grid_w == 0;
  out->map.clear();
  if (pooled) {
    const int64_t ph = H / grid.grid_h, pw = W / grid.grid_w;
    std::vector<double> cells(static_cast<size_t>(grid.grid_h * grid.grid_w), 0.0);
    for (int64_t y = 0; y < H; ++y)
      for (int64_t xx = 0; xx < W; ++xx) cells[static_cast<size_t>((y / ph) * grid.grid_w + xx / pw)] += pixels[static_cast<size_t>(y * W + xx)];
    for (double v : cells) out->map.push_back(static_cast<float>(v));
    out->h = grid.grid_h;
    out->w = grid.grid_w;
  } else {
    for (double v : pixels) out->map.push_back(static_cast<float>(v));
    out->h = static_cast<int>(H);
    out->w = static_cast<int>(W);
  }
  const double logit = clf.logits().at(static_cast<size_t>(class_index));
  out->extra = {{"conservation", {{"logit", logit}, {"pixels", total}, {"unexplained", logit - total}}},
                {"rules", plan.notes}, {"signed", true}};
  if (!pooled) out->extra["map_note"] = "the image does not split into the patch grid: the map is per pixel";
  return true;
}

// A self-attention method's map from the distributions [layer][head] (and their gradients for Chefer), over the
// patch grid.
bool map_from_layers(const VitMethod& vm, std::vector<std::vector<Mat<double>>> A,
                     std::vector<std::vector<Mat<double>>> dA, InputMapResult* out, std::string* error) {
  for (const auto& layer : A)
    if (layer.empty()) {
      *error = "an attention layer has no heads";
      return false;
    }
  SelfAttentionMaps maps;
  maps.layers = static_cast<int>(A.size());
  maps.heads = static_cast<int>(A[0].size());
  maps.n = static_cast<int>(A[0][0].rows());
  for (size_t l = 0; l < A.size(); ++l)
    if (static_cast<int>(A[l].size()) != maps.heads || A[l][0].rows() != maps.n) {
      *error = "the attention layers differ in heads or tokens";
      return false;
    }
  if (maps.n < 2) {
    *error = "the attention has " + std::to_string(maps.n) + " token: nothing to map";
    return false;
  }
  maps.A = std::move(A);
  maps.dA = std::move(dA);
  const PatchGrid grid = patch_grid(maps.n);
  const std::vector<double> row = vm.from_maps(maps);  // positions 1 … n − 1
  out->map.clear();
  for (size_t i = static_cast<size_t>(grid.class_tokens - 1); i < row.size(); ++i) out->map.push_back(static_cast<float>(row[i]));
  out->h = grid.grid_h;
  out->w = grid.grid_w;
  out->extra = {{"tokens", maps.n}, {"class_tokens", grid.class_tokens}, {"layers", maps.layers}, {"heads", maps.heads}};
  if (!grid.note.empty()) out->extra["note"] = grid.note;
  return true;
}

const VitMethod* find_vit_method(const std::string& name) {
  for (const auto& m : kVitMethods)
    if (name == m.name) return &m;
  return nullptr;
}

}  // namespace

std::vector<std::string> vit_method_names() {
  std::vector<std::string> v;
  for (const auto& m : kVitMethods) v.push_back(m.name);
  return v;
}

bool is_vit_method(const std::string& name) { return find_vit_method(name) != nullptr; }

bool onnx_vit_map(OnnxClassifier& clf, const std::vector<float>& x, int class_index, const std::string& method,
                  InputMapResult* out, std::string* error) {
  const VitMethod* vm = find_vit_method(method);
  if (!vm) {
    *error = "unknown attention method '" + method + "'";
    return false;
  }
  const std::vector<onnx::FoundAttention>& found = clf.attention();
  if (found.empty()) {
    *error = "no attention was found in this model (a Softmax over the keys whose result multiplies the values): "
             "the attention methods are for vision transformers";
    return false;
  }
  if (!clf.forward(x.data(), x.size(), error)) return false;
  if (!vm->from_maps) {
    onnx::AttentionShape shape;
    if (!onnx::attention_shape(clf.executor(), found.back(), &shape) || shape.queries != shape.keys || shape.keys < 2) {
      *error = "the last attention is not one square map over the tokens";
      return false;
    }
    const PatchGrid grid = patch_grid(static_cast<int>(shape.keys));
    if (!vit_relevance_map(clf, x, class_index, *vm, grid, out, error)) return false;
    out->extra.update({{"tokens", shape.keys}, {"class_tokens", grid.class_tokens}, {"layers", found.size()}, {"heads", shape.heads}});
    if (!grid.note.empty()) out->extra["note"] = grid.note;
    return true;
  }
  if (vm->needs_gradient && !clf.backward_class(class_index, error)) return false;
  std::vector<std::vector<Mat<double>>> A, dA;
  if (!read_attention_layers(clf.executor(), found, vm->needs_gradient, &A, &dA, error)) return false;
  return map_from_layers(*vm, std::move(A), std::move(dA), out, error);
}

bool vit_method_is_forward_only(const std::string& name) {
  const VitMethod* vm = find_vit_method(name);
  return vm && vm->from_maps && !vm->needs_gradient;
}

bool vit_map_from_layers(const std::string& method, std::vector<std::vector<Mat<double>>> A, InputMapResult* out,
                         std::string* error) {
  if (!vit_method_is_forward_only(method)) {
    *error = "'" + method + "' needs more than the attention of one forward pass";
    return false;
  }
  if (A.empty()) {
    *error = "no attention was found in this model";
    return false;
  }
  return map_from_layers(*find_vit_method(method), std::move(A), {}, out, error);
}

}  // namespace attnlab
