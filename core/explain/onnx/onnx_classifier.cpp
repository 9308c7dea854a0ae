// ONNX image classifier wrapper (see onnx_classifier.h).
#include "explain/onnx/onnx_classifier.h"

#include <algorithm>
#include <map>
#include <set>

#include "explain/onnx/patch_grid.h"
#include "nn/rng.h"

#include "onnx/attention_finder.h"
#include "onnx/reader.h"

namespace attnlab {

using namespace attnlab::onnx;

nlohmann::json OnnxClassifier::summarize(const Model& m) {
  using nlohmann::json;
  auto vi_json = [](const ValueInfo& v) {
    json dims = json::array();
    for (size_t k = 0; k < v.dims.size(); ++k) {
      if (v.dims[k] >= 0) dims.push_back(v.dims[k]);
      else dims.push_back(v.dim_names[k].empty() ? json("?") : json(v.dim_names[k]));
    }
    return json{{"name", v.name}, {"type", v.dtype < 0 ? "non-tensor" : data_type_name(v.dtype)}, {"shape", dims}};
  };
  json inputs = json::array(), outputs = json::array();
  for (const auto& v : m.inputs) inputs.push_back(vi_json(v));
  for (const auto& v : m.outputs) outputs.push_back(vi_json(v));
  std::map<std::string, int> counts;
  for (const auto& n : m.nodes) ++counts[n.domain.empty() ? n.op_type : n.domain + "." + n.op_type];
  int64_t params = 0;
  for (const auto& t : m.initializers) params += t.numel();
  json attention = json::array();  // found, not declared (onnx/attention_finder.h)
  for (const auto& a : find_attention(m))
    attention.push_back({{"layer", a.layer}, {"softmax", a.softmax_node}, {"probabilities", a.probabilities},
                         {"values_matmul", a.values_matmul}});
  json opsets = json::object();
  for (const auto& kv : m.opsets) opsets[kv.first.empty() ? "ai.onnx" : kv.first] = kv.second;
  return json{{"ir_version", m.ir_version}, {"opsets", opsets}, {"producer", m.producer_name + " " + m.producer_version},
              {"inputs", inputs}, {"outputs", outputs}, {"nodes", m.nodes.size()}, {"operators", counts},
              {"parameters", params}, {"initializers", m.initializers.size()}, {"unsupported", unsupported_operators(m)},
              {"attention", attention}};
}

bool OnnxClassifier::load(const uint8_t* bytes, size_t size, std::string* error) {
  loaded_ = false;
  auto m = std::make_unique<Model>();
  if (!read_model(bytes, size, m.get(), error)) return false;
  return load_model(std::move(m), error);
}

bool OnnxClassifier::load_model(std::unique_ptr<Model> m, std::string* error) {
  loaded_ = false;
  c_ = 3;
  h_ = w_ = 224;
  if (m->inputs.size() != 1) {
    *error = "an image classifier needs exactly one graph input, this model has " + std::to_string(m->inputs.size());
    return false;
  }
  const ValueInfo& in = m->inputs[0];
  if (in.dtype != kFloat) {
    *error = "input '" + in.name + "' has type " + std::string(data_type_name(in.dtype)) + ", an image input must be FLOAT";
    return false;
  }
  if (in.has_shape && in.dims.size() != 4) {
    *error = "input '" + in.name + "' has rank " + std::to_string(in.dims.size()) + ", an image input is [N, C, H, W]";
    return false;
  }
  if (in.has_shape) {
    if (in.dims[0] > 1) {
      *error = "input batch " + std::to_string(in.dims[0]) + ": only batch 1 or a symbolic batch is supported";
      return false;
    }
    if (in.dims[1] > 0) c_ = in.dims[1];
    if (c_ != 1 && c_ != 3) {
      *error = "input has " + std::to_string(c_) + " channels; image inputs have 1 or 3";
      return false;
    }
    if (in.dims[2] > 0) h_ = in.dims[2];
    if (in.dims[3] > 0) w_ = in.dims[3];
  }
  // A declared input the executor could not hold is refused before anything is allocated.
  if (!shape_fits({1, c_, h_, w_}, ex_.limits().max_tensor_elements) || h_ > 16384 || w_ > 16384) {
    *error = "input '" + in.name + "' declares " + std::to_string(h_) + "×" + std::to_string(w_) +
             " pixels, larger than the executor's limit (" + std::to_string(ex_.limits().max_tensor_elements) +
             " values, each side ≤ 16384)";
    return false;
  }
  for (const auto& o : m->outputs) {  // a declared class count is bounded before anyone builds labels
    int64_t declared = 0;
    if (o.has_shape && (!shape_fits(o.dims, kMaxClasses, &declared))) {
      bool symbolic = false;
      for (int64_t d : o.dims) symbolic = symbolic || d < 0;
      if (!symbolic) {
        *error = "output '" + o.name + "' declares shape " + shape_str(o.dims) + ": more than " +
                 std::to_string(kMaxClasses) + " classes";
        return false;
      }
    }
  }
  if (m->outputs.empty()) {
    *error = "the model has no outputs";
    return false;
  }
  if (!ex_.load(*m, error)) return false;
  input_name_ = in.name;
  logits_name_ = m->outputs.back().name;
  for (const auto& o : m->outputs)  // prefer an output called like logits; else the last one
    if (o.name.find("logit") != std::string::npos || o.name == "output") logits_name_ = o.name;
  if (m->outputs.size() == 1) logits_name_ = m->outputs[0].name;
  attention_ = find_attention(*m);
  tokens_ = 0;
  model_ = std::move(m);
  loaded_ = true;
  return true;
}

void OnnxClassifier::set_input_size(int size) {
  size = std::max(1, std::min(size, 4096));  // the page and CLI offer 32–1024; never above the executor's budget
  const ValueInfo& in = model_->inputs[0];
  if (!in.has_shape || in.dims[2] < 0) h_ = size;
  if (!in.has_shape || in.dims[3] < 0) w_ = size;
}

std::vector<int64_t> OnnxClassifier::input_shape() const { return {1, c_, h_, w_}; }

bool OnnxClassifier::forward(const float* input, size_t count, std::string* error, const std::vector<std::string>* keep) {
  if (!loaded_) {
    *error = "no model loaded";
    return false;
  }
  const size_t want = static_cast<size_t>(c_ * h_ * w_);  // bounded at load and in set_input_size
  if (!input || count != want) {
    *error = "the input must have C·H·W = " + std::to_string(c_) + "·" + std::to_string(h_) + "·" + std::to_string(w_) +
             " = " + std::to_string(want) + " values, got " + std::to_string(count);
    return false;
  }
  Tensor<float> x = Tensor<float>::floats(input_shape());
  std::copy(input, input + count, x.f.begin());
  if (!ex_.forward({{input_name_, std::move(x)}}, error, keep)) return false;
  const Tensor<float>* y = ex_.value(logits_name_);
  if (!y || !y->is_float() || y->numel() < 1 || (y->rank() >= 1 && y->shape[0] != 1 && y->rank() > 1)) {
    *error = "output '" + logits_name_ + "' is not a [1, classes] float tensor";
    return false;
  }
  if (y->numel() > kMaxClasses) {
    *error = "output '" + logits_name_ + "' has " + std::to_string(y->numel()) + " classes, more than " + std::to_string(kMaxClasses);
    return false;
  }
  logits_ = to_std(y->f);
  tokens_ = 0;
  AttentionShape s;
  if (!attention_.empty() && attention_shape(ex_, attention_.back(), &s) && s.queries == s.keys &&
      patch_grid(static_cast<int>(s.keys)).square())
    tokens_ = static_cast<int>(s.keys);
  return true;
}

bool OnnxClassifier::randomized_after(const std::string& layer, uint64_t seed, OnnxClassifier* out, int* shuffled,
                                      std::string* error) const {
  if (!loaded_) {
    *error = "no model loaded";
    return false;
  }
  const auto& run = ex_.runtime_nodes();
  size_t start = 0;
  if (!layer.empty()) {
    bool found = false;
    for (size_t k = 0; k < run.size(); ++k)
      for (const auto& o : run[k]->outputs)
        if (o == layer) {
          start = k + 1;
          found = true;
        }
    if (!found) {
      *error = "no runtime tensor named '" + layer + "' (see the layer list)";
      return false;
    }
  }
  // The names read after the layer, and back through constant-folded nodes to their initializers.
  std::map<std::string, const Node*> producer;
  for (const Node& n : model_->nodes)
    for (const auto& o : n.outputs) producer[o] = &n;
  std::set<std::string> read, seen;
  std::vector<std::string> pending;
  for (size_t k = start; k < run.size(); ++k)
    for (const auto& i : run[k]->inputs) pending.push_back(i);
  while (!pending.empty()) {
    const std::string name = pending.back();
    pending.pop_back();
    if (name.empty() || !seen.insert(name).second) continue;
    read.insert(name);
    auto it = producer.find(name);
    if (it != producer.end() && ex_.is_constant(name))
      for (const auto& i : it->second->inputs) pending.push_back(i);
  }
  auto copy = std::make_unique<Model>(*model_);
  Rng rng(seed);
  int count = 0;
  for (TensorData& t : copy->initializers) {
    if (!read.count(t.name) || t.numel() < 2) continue;  // scalars (Clip bounds, Pad values) stay
    const bool weight_type = t.dtype == kFloat || t.dtype == kFloat16 || t.dtype == kBFloat16 || t.dtype == kInt8 || t.dtype == kUInt8;
    if (!weight_type) continue;  // shapes, indices and other integer tensors stay
    auto shuffle = [&](auto& v) {
      for (size_t k = v.size(); k > 1; --k) std::swap(v[k - 1], v[rng.next_u64() % k]);
    };
    if (!t.f.empty()) shuffle(t.f);
    else if (!t.bytes.empty()) shuffle(t.bytes);
    else shuffle(t.i);
    ++count;
  }
  const int64_t side = h_;
  if (!out->load_model(std::move(copy), error)) return false;
  if (side != out->h_) out->set_input_size(static_cast<int>(side));
  *shuffled = count;
  return true;
}

int OnnxClassifier::lanes(int wanted) const {
  const int64_t each = std::max<int64_t>(1, ex_.live_bytes());
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(wanted, kCopiesBytes / each)));
}

int OnnxClassifier::nodes_after(const std::string& name) const {
  const auto& run = ex_.runtime_nodes();
  for (size_t i = 0; i < run.size(); ++i)
    for (const auto& o : run[i]->outputs)
      if (o == name) return static_cast<int>(run.size() - 1 - i);
  return 0;
}

bool OnnxClassifier::forward_from_layer(const std::string& name, const std::vector<float>& activation, std::string* error) {
  const Tensor<float>* a = ex_.value(name);
  int cls = 0;
  if (const int side = a ? token_grid(*a, &cls) : 0; side > 0) {  // [D, g, g] back into the tokens, class tokens kept
    const int d = static_cast<int>(a->shape[2]), hw = side * side;
    if (activation.size() != static_cast<size_t>(d) * hw) {
      *error = "layer '" + name + "': the replacement has " + std::to_string(activation.size()) + " values, the layer's grid " +
               std::to_string(d * hw);
      return false;
    }
    Tensor<float> t = *a;
    for (int p = 0; p < hw; ++p)
      for (int k = 0; k < d; ++k) t.f[static_cast<size_t>(cls + p) * d + k] = activation[static_cast<size_t>(k) * hw + p];
    if (!ex_.forward_from(name, t, error)) return false;
    logits_ = to_std(ex_.value(logits_name_)->f);
    return true;
  }
  if (!a || !a->is_float() || a->f.size() != activation.size()) {
    *error = "layer '" + name + "': the replacement has " + std::to_string(activation.size()) + " values" +
             (a ? ", the layer " + std::to_string(a->f.size()) : ", and there is no such tensor");
    return false;
  }
  Tensor<float> t = *a;
  t.f = to_values(activation);
  if (!ex_.forward_from(name, t, error)) return false;
  logits_ = to_std(ex_.value(logits_name_)->f);
  return true;
}

bool OnnxClassifier::backward_class(int c, std::string* error, const std::string& stop_at) {
  if (c < 0 || c >= num_classes()) {
    *error = "class " + std::to_string(c) + " is out of range (the model has " + std::to_string(num_classes()) + " classes)";
    return false;
  }
  Tensor<float> seed = Tensor<float>::floats(ex_.value(logits_name_)->shape);
  seed.f[c] = 1.f;
  return ex_.backward(logits_name_, seed, error, stop_at);
}

bool OnnxClassifier::input_gradient(std::vector<float>* out, std::string* error) const {
  const Tensor<float>* g = ex_.gradient(input_name_);
  if (!g) {
    *error = "no gradient reached the input (run backward_class first)";
    return false;
  }
  *out = to_std(g->f);
  return true;
}

int OnnxClassifier::token_grid(const Tensor<float>& v, int* class_tokens) const {
  if (tokens_ == 0 || !v.is_float() || v.rank() != 3 || v.shape[0] != 1 || v.shape[1] != tokens_ || v.shape[2] < 2) return 0;
  const PatchGrid g = patch_grid(tokens_);
  *class_tokens = g.class_tokens;
  return g.grid_h;
}

std::vector<SpatialLayer> OnnxClassifier::spatial_layers() const {
  std::vector<SpatialLayer> out;
  for (const Node* n : ex_.runtime_nodes())
    for (const auto& o : n->outputs) {
      const Tensor<float>* v = o.empty() ? nullptr : ex_.value(o);
      if (!v || !v->is_float()) continue;
      int cls = 0;
      if (const int g = token_grid(*v, &cls); g > 0) {
        out.push_back({o, n->op_type, static_cast<int>(v->shape[2]), g, g, cls});
        continue;
      }
      if (v->rank() != 4 || v->shape[0] != 1 || v->shape[2] * v->shape[3] <= 1) continue;
      out.push_back({o, n->op_type, static_cast<int>(v->shape[1]), static_cast<int>(v->shape[2]), static_cast<int>(v->shape[3])});
    }
  return out;
}

std::string OnnxClassifier::auto_layer() const {
  if (tokens_ > 0) {
    // The last attention block's normalised input: from its values back through single data inputs (the first input
    // that is not a constant) past the value projection, to the first token layer.
    std::map<std::string, const Node*> producer;
    for (const Node* n : ex_.runtime_nodes())
      for (const auto& o : n->outputs) producer[o] = n;
    std::string at = attention_.back().values;
    bool projected = false;
    for (int step = 0; step < 64 && !at.empty(); ++step) {
      const Tensor<float>* v = ex_.value(at);
      int cls = 0;
      if (projected && v && token_grid(*v, &cls) > 0) return at;
      const auto p = producer.find(at);
      if (p == producer.end()) break;
      projected = projected || p->second->op_type == "MatMul" || p->second->op_type == "Gemm";
      std::string next;
      for (const auto& in : p->second->inputs)
        if (!in.empty() && !ex_.is_constant(in)) {
          next = in;
          break;
        }
      at = next;
    }
  }
  const auto layers = spatial_layers();
  for (auto it = layers.rbegin(); it != layers.rend(); ++it)
    if (it->class_tokens == 0) return it->name;
  return "";
}

bool OnnxClassifier::layer(const std::string& name, LayerTensors* out, std::string* error) const {
  const Tensor<float>* a = ex_.value(name);
  if (!a) {
    *error = "no tensor named '" + name + "' (see onnx-info / the layer list)";
    return false;
  }
  const Tensor<float>* g = ex_.gradient(name);
  int cls = 0;
  if (const int side = token_grid(*a, &cls); side > 0) {  // [1, N, D] → [D, g, g], the class tokens left out
    const int d = static_cast<int>(a->shape[2]), hw = side * side;
    out->k = d;
    out->h = out->w = side;
    out->activation.assign(static_cast<size_t>(d) * hw, 0.f);
    out->gradient.assign(static_cast<size_t>(d) * hw, 0.f);
    for (int p = 0; p < hw; ++p)
      for (int k = 0; k < d; ++k) {
        const size_t from = static_cast<size_t>(cls + p) * d + k, to = static_cast<size_t>(k) * hw + p;
        out->activation[to] = a->f[from];
        if (g) out->gradient[to] = g->f[from];
      }
    return true;
  }
  if (!a->is_float() || a->rank() != 4 || a->shape[0] != 1) {
    *error = "layer '" + name + "' has shape " + shape_str(a->shape) + "; a CAM layer is [1, K, h, w] (or a vision "
             "transformer's tokens [1, N, D], N a class token + a square grid)";
    return false;
  }
  out->k = static_cast<int>(a->shape[1]);
  out->h = static_cast<int>(a->shape[2]);
  out->w = static_cast<int>(a->shape[3]);
  out->activation = to_std(a->f);
  out->gradient = g ? to_std(g->f) : std::vector<float>(a->f.size(), 0.f);  // no gradient: the logits do not depend on it
  return true;
}

}  // namespace attnlab
