// The attention methods on an image transformer (vit_maps.h).
#include "explain/onnx/vit_maps.h"

#include "explain/onnx/attention_layers.h"
#include "explain/self_attention_maps.h"

namespace attnlab {

namespace {

struct VitMethod {
  const char* name;
  bool needs_gradient;
  std::vector<double> (*from_maps)(const SelfAttentionMaps&);
};
std::vector<double> last_layer_attention(const SelfAttentionMaps& m) { return raw_attention_from_maps(m, -1); }
std::vector<double> mean_rollout(const SelfAttentionMaps& m) { return rollout_from_maps(m, HeadFusion::Mean); }
const VitMethod kVitMethods[] = {
    {"attention", false, &last_layer_attention},
    {"rollout", false, &mean_rollout},
    {"chefer", true, &relevance_from_maps},
};

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
  if (vm->needs_gradient && !clf.backward_class(class_index, error)) return false;
  std::vector<std::vector<Mat<double>>> A, dA;
  if (!read_attention_layers(clf.executor(), found, vm->needs_gradient, &A, &dA, error)) return false;
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
  const std::vector<double> row = vm->from_maps(maps);  // positions 1 … n − 1
  out->map.clear();
  for (size_t i = static_cast<size_t>(grid.class_tokens - 1); i < row.size(); ++i) out->map.push_back(static_cast<float>(row[i]));
  out->h = grid.grid_h;
  out->w = grid.grid_w;
  out->extra = {{"tokens", maps.n}, {"class_tokens", grid.class_tokens}, {"layers", maps.layers}, {"heads", maps.heads}};
  if (!grid.note.empty()) out->extra["note"] = grid.note;
  return true;
}

}  // namespace attnlab
