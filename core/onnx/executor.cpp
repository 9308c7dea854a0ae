// ONNX graph executor: validation, constant folding, forward, reverse-mode backward (see executor.h).
#include "onnx/executor.h"
#include "onnx/last_row.h"  // last_position
#include "onnx/propagation.h"
#include "parallel/interrupt.h"

#include <algorithm>
#include <set>

#include "onnx/schema.h"

namespace attnlab::onnx {

std::vector<std::string> unsupported_operators(const Model& m) {
  std::vector<std::string> order;
  std::map<std::string, int> count;
  for (const Node& n : m.nodes) {
    const std::string key = n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
    const bool ok = n.domain.empty() && find_op<float>(n.op_type) != nullptr;
    if (ok) continue;
    if (!count.count(key)) order.push_back(key);
    ++count[key];
  }
  std::vector<std::string> out;
  for (const auto& k : order) out.push_back(k + " (" + std::to_string(count[k]) + ")");
  return out;
}

template <class T>
int Executor<T>::id_of(const std::string& name) const {
  auto it = ids_.find(name);
  return it == ids_.end() ? -1 : it->second;
}

template <class T>
bool Executor<T>::is_constant(const std::string& name) const {
  const int id = id_of(name);
  return id >= 0 && constant_[id];
}

template <class T>
const Tensor<T>* Executor<T>::value(const std::string& name) const {
  const int id = id_of(name);
  return id >= 0 && defined_[id] ? &values_[id] : nullptr;
}

template <class T>
const Tensor<T>* Executor<T>::gradient(const std::string& name) const {
  const int id = id_of(name);
  return id >= 0 && has_grad_[id] ? &grads_[id] : nullptr;
}

template <class T>
bool Executor<T>::load(const Model& model, std::string* error) {
  const ExecLimits keep = limits_;
  *this = Executor<T>();
  limits_ = keep;
  error->clear();
  auto opset_it = model.opsets.find("");
  const int64_t opset = opset_it == model.opsets.end() ? 0 : opset_it->second;
  if (opset < kMinOpset || opset > kMaxOpset) {
    *error = "opset " + std::to_string(opset) + " of the default domain is outside the supported range " +
             std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset);
    return false;
  }
  const auto missing = unsupported_operators(model);
  if (!missing.empty()) {
    *error = "unsupported operators: ";
    for (size_t k = 0; k < missing.size(); ++k) *error += (k ? ", " : "") + missing[k];
    return false;
  }
  for (const Node& n : model.nodes) {
    const OpEntry<T>* op = find_op<T>(n.op_type);
    if (n.opset < op->min_opset) {
      *error = "node '" + n.name + "' (" + n.op_type + "): opset " + std::to_string(n.opset) +
               " is older than the implemented versions (from opset " + std::to_string(op->min_opset) + ")";
      return false;
    }
  }
  auto define = [&](const std::string& name, const char* what) -> bool {
    if (name.empty()) return true;
    if (ids_.count(name)) {
      *error = std::string("value '") + name + "' is defined twice (" + what + ")";
      return false;
    }
    const int id = static_cast<int>(ids_.size());
    ids_[name] = id;
    return true;
  };
  // Initializers and graph inputs must be named (an empty name is an omitted optional node output only);
  // an unnamed one would later index past the value table (found by fuzz_onnx).
  for (const auto& t : model.initializers)
    if (t.name.empty()) {
      *error = "an initializer has no name";
      return false;
    } else if (!define(t.name, "initializer")) {
      return false;
    }
  for (const auto& vi : model.inputs) {
    if (vi.name.empty()) {
      *error = "a graph input has no name";
      return false;
    }
    if (vi.dtype == -1) {
      *error = "input '" + vi.name + "' is not a tensor";
      return false;
    }
    if (!define(vi.name, "graph input")) return false;
  }
  for (const Node& n : model.nodes)
    for (const auto& o : n.outputs)
      if (!define(o, "node output")) return false;
  for (const Node& n : model.nodes)
    if (const std::string e = check_node_schema(n); !e.empty()) {
      *error = "node '" + n.name + "' (" + n.op_type + ") " + e;
      return false;
    }
  const size_t nv = ids_.size();
  values_.assign(nv, Tensor<T>());
  defined_.assign(nv, 0);
  constant_.assign(nv, 0);
  requires_grad_.assign(nv, 0);
  grads_.assign(nv, Tensor<T>());
  has_grad_.assign(nv, 0);
  value_bytes_.assign(nv, 0);
  grad_bytes_.assign(nv, 0);
  for (const auto& t : model.initializers) {
    const int id = ids_[t.name];
    int64_t numel = 0;
    const size_t stored = t.stored();
    if (!shape_fits(t.dims, int64_t(1) << 28, &numel) || static_cast<int64_t>(stored) != numel) {
      *error = "initializer '" + t.name + "' has shape " + shape_str(t.dims) + " and " + std::to_string(stored) + " values";
      return false;
    }
    constant_[id] = 1;  // its value is stored below, when first needed
  }
  // Undefined inputs, then a topological order (Kahn); what is left over lies on a cycle.
  std::vector<char> available(nv, 0);
  for (const auto& t : model.initializers) available[ids_[t.name]] = 1;
  for (const auto& vi : model.inputs) available[ids_[vi.name]] = 1;
  for (const Node& n : model.nodes)
    for (const auto& in : n.inputs)
      if (!in.empty() && !ids_.count(in)) {
        *error = "node '" + n.name + "' (" + n.op_type + ") reads '" + in + "', which nothing defines";
        return false;
      }
  std::vector<int> pending(model.nodes.size(), 0);
  std::vector<std::vector<int>> users(nv);
  std::vector<int> ready;
  for (size_t k = 0; k < model.nodes.size(); ++k) {
    for (const auto& in : model.nodes[k].inputs) {
      if (in.empty()) continue;
      const int id = ids_[in];
      if (!available[id]) {
        ++pending[k];
        users[id].push_back(static_cast<int>(k));
      }
    }
    if (pending[k] == 0) ready.push_back(static_cast<int>(k));
  }
  for (size_t q = 0; q < ready.size(); ++q) {
    const Node& n = model.nodes[ready[q]];
    all_nodes_.push_back(&n);
    for (const auto& o : n.outputs) {
      if (o.empty()) continue;
      for (int u : users[ids_[o]])
        if (--pending[u] == 0) ready.push_back(u);
    }
  }
  if (all_nodes_.size() != model.nodes.size()) {
    for (size_t k = 0; k < model.nodes.size(); ++k)
      if (pending[k] > 0) {
        *error = "the graph has a cycle through node '" + model.nodes[k].name + "' (" + model.nodes[k].op_type + ")";
        return false;
      }
  }
  for (const auto& o : model.outputs)
    if (!ids_.count(o.name)) {
      *error = "graph output '" + o.name + "' is not produced by any node";
      return false;
    }
  model_ = &model;
  refs_.assign(model.nodes.size(), NodeRefs());
  for (size_t k = 0; k < model.nodes.size(); ++k) {
    const Node& n = model.nodes[k];
    refs_[k].op = find_op<T>(n.op_type);
    for (const auto& in : n.inputs) refs_[k].in.push_back(in.empty() ? -1 : ids_[in]);
    for (const auto& o : n.outputs) refs_[k].out.push_back(o.empty() ? -1 : ids_[o]);
  }
  // Which nodes fold (every input constant), and how often folded nodes read each value.
  std::vector<char> folds(model.nodes.size(), 0), kept(nv, 0), released(nv, 0);
  std::vector<int> fold_reads(nv, 0);
  for (const Node* n : all_nodes_) {
    bool all_const = true;
    for (const auto& in : n->inputs)
      if (!in.empty() && !constant_[ids_[in]]) all_const = false;
    folds[n - model.nodes.data()] = all_const;
    for (const auto& in : n->inputs)
      if (!in.empty()) (all_const ? ++fold_reads[ids_[in]] : kept[ids_[in]] = 1);
    if (all_const)
      for (const auto& o : n->outputs)
        if (!o.empty()) constant_[ids_[o]] = 1;
  }
  for (const auto& o : model.outputs) kept[ids_[o.name]] = 1;
  std::vector<const TensorData*> initializer(nv, nullptr);
  for (const auto& t : model.initializers) initializer[ids_[t.name]] = &t;
  auto store_initializer = [&](int id) {
    if (defined_[id] || !initializer[id]) return true;
    defined_[id] = 1;
    return store_value(id, tensor_from_data<T>(*initializer[id]), "initializer '" + initializer[id]->name + "'", error);
  };
  // Constant folding, within max_fold_work for all folded nodes together. An initializer becomes a value when a
  // node first reads it; a constant that only folded nodes read is let go after the last of them (an int8 model's
  // weights are held as 8-byte integers only until their DequantizeLinear ran, one tensor at a time). Those values
  // read as absent (value() is null) but stay constant.
  fold_work_left_ = limits_.max_fold_work;
  for (const Node* n : all_nodes_) {
    if (!folds[n - model.nodes.data()]) {
      run_.push_back(n);
      continue;
    }
    bool ok = true;
    for (const auto& in : n->inputs) ok = ok && (in.empty() || store_initializer(ids_[in]));
    if (!ok || !run_node(*n, error, true)) {
      model_ = nullptr;
      return false;
    }
    for (const auto& in : n->inputs) {
      if (in.empty()) continue;
      const int id = ids_[in];
      if (--fold_reads[id] == 0 && !kept[id]) {
        store_value(id, Tensor<T>(), "", error);  // frees: cannot exceed the budget
        defined_[id] = 0;
        released[id] = 1;
      }
    }
  }
  for (size_t id = 0; id < nv; ++id)  // what runtime nodes read, the graph outputs, and initializers nobody reads
    if (initializer[id] && !released[id] && !store_initializer(static_cast<int>(id))) {
      model_ = nullptr;
      return false;
    }
  last_read_.assign(nv, 0);  // for the inference pass: the runtime node that reads each value last
  for (size_t k = 0; k < run_.size(); ++k)
    for (const auto& in : run_[k]->inputs)
      if (!in.empty()) last_read_[ids_[in]] = k;
  // Values built from the inputs' length alone: a Shape of a graph input or of such a value, and nodes whose every
  // runtime input is one (constants aside).
  graph_input_.assign(nv, 0);
  shape_path_.assign(nv, 0);
  for (const auto& vi : model.inputs) graph_input_[ids_[vi.name]] = 1;
  for (const Node* n : run_) {
    const NodeRefs& r = refs(*n);
    bool shape = false;
    if (n->op_type == "Shape") {
      shape = !r.in.empty() && r.in[0] >= 0 && (graph_input_[r.in[0]] || shape_path_[r.in[0]]);
    } else {
      bool any = false, all = true;
      for (const int id : r.in) {
        if (id < 0 || constant_[id]) continue;
        any = true;
        all = all && shape_path_[id];
      }
      shape = any && all;
    }
    for (const int id : r.out)
      if (id >= 0) shape_path_[id] = shape;
  }
  return true;
}

template <class T>
bool Executor<T>::store(std::vector<Tensor<T>>& slots, std::vector<int64_t>& bytes, int id, Tensor<T>&& t,
                        const std::string& where, std::string* error) {
  const int64_t b = bytes_of(t);
  live_bytes_ += b - bytes[id];
  bytes[id] = b;
  slots[id] = std::move(t);
  if (live_bytes_ <= limits_.max_live_bytes) return true;
  *error = where + ": the values and gradients alive would take " + std::to_string(live_bytes_ >> 20) +
           " MB, above the executor's limit of " + std::to_string(limits_.max_live_bytes >> 20) + " MB";
  return false;
}

template <class T>
void Executor<T>::set_last_row_nodes(std::vector<char> nodes) {
  last_row_nodes_ = std::move(nodes);
  last_row_value_.assign(values_.size(), 0);
  if (last_row_nodes_.size() != run_.size()) return;
  for (size_t k = 0; k < run_.size(); ++k)
    if (last_row_nodes_[k])
      for (const int id : refs(*run_[k]).out)
        if (id >= 0) last_row_value_[static_cast<size_t>(id)] = 1;
}

template <class T>
bool Executor<T>::run_node(const Node& n, std::string* error, bool folding, int64_t last_row_of, int axis) {
  const NodeRefs& r = refs(n);
  const OpEntry<T>* op = r.op;
  const auto where = [&n] { return "node '" + n.name + "' (" + n.op_type + ")"; };  // for messages only
  if (!folding && interrupted()) {  // the host stops this call (parallel/interrupt.h)
    *error = kInterruptedMessage;
    return false;
  }
  if (n.outputs.empty()) {  // the schema check refuses this at load; kept for graphs edited afterwards
    *error = where() + " has no outputs";
    return false;
  }
  std::vector<const Tensor<T>*> in;
  in.reserve(n.inputs.size());
  bool rg = false;
  int64_t visits = 0;  // elements read: the least work any operator does
  for (size_t q = 0; q < n.inputs.size(); ++q) {
    const int id = r.in[q];
    if (id < 0) {
      in.push_back(nullptr);
      continue;
    }
    if (!defined_[id]) {
      *error = where() + ": input '" + n.inputs[q] + "' has no value";
      return false;
    }
    in.push_back(&values_[id]);
    rg = rg || requires_grad_[id];
    visits += values_[id].numel();  // each ≤ 2^28 (checked when stored): no overflow
  }
  std::vector<Tensor<T>> suffix_cut;
  if (suffix_ && !folding && !suffix_inputs(n, &in, &suffix_cut, error)) return false;
  // A node of the output's row-wise tail: its inputs from outside the tail with T positions on axis 1 ([B, T, D])
  // are read at the last position alone ([B, 1, D]); the tail's own values hold one position already, and constants
  // (weights, broadcasts) are read as they are.
  std::vector<Tensor<T>> cut;
  if (last_row_of > 1) {
    cut.reserve(in.size());  // no reallocation: in[] points into it
    for (size_t q = 0; q < in.size(); ++q) {
      const int id = r.in[q];
      if (!in[q] || constant_[id] || last_row_value_[id] || in[q]->rank() != 3 || in[q]->shape[1] != last_row_of) continue;
      cut.push_back(last_position(*in[q]));
      in[q] = &cut.back();
    }
  }
  // The work this node may do: its own cap, and what is left of folding's or the forward pass's budget.
  int64_t& pool = folding ? fold_work_left_ : forward_work_left_;
  OpContext& ctx = op_context();
  ctx.limits = limits_;
  ctx.work_left = std::min(pool, limits_.max_node_work);
  const int64_t before = ctx.work_left;
  if (const std::string e = charge_work({visits}); !e.empty()) {
    *error = where() + ": " + e;
    return false;
  }
  std::vector<Tensor<T>> out(n.outputs.size());
  const std::string e = op->forward(n, in, out);
  if (!e.empty()) {
    *error = where() + ": " + e;
    return false;
  }
  if (suffix_ && !folding && !suffix_outputs(n, &out, error)) return false;
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    if (n.outputs[k].empty()) continue;
    Tensor<T>& t = out[k];
    int64_t numel = 0;
    const size_t stored = t.is_float() ? t.f.size() : t.i.size();
    if (!shape_fits(t.shape, limits_.max_tensor_elements, &numel) ||
        static_cast<int64_t>(t.shape.size()) > limits_.max_rank) {
      *error = where() + ": output '" + n.outputs[k] + "' of shape " + shape_str(t.shape) +
               " is above the executor's limit of " + std::to_string(limits_.max_tensor_elements) + " elements per tensor";
      return false;
    }
    if (static_cast<int64_t>(stored) != numel) {
      *error = where() + ": output '" + n.outputs[k] + "' was not computed (" + std::to_string(stored) +
               " values for shape " + shape_str(t.shape) + ")";
      return false;
    }
    if (const std::string e2 = charge_work({numel}); !e2.empty()) {
      *error = where() + ": " + e2;
      return false;
    }
  }
  pool -= before - ctx.work_left;
  if (last_row_of > 1)
    for (size_t k = 0; k < n.outputs.size(); ++k)
      if (!n.outputs[k].empty() && (out[k].rank() != 3 || axis < 0 || axis > 2 || out[k].shape[axis] != 1)) {
        *error = where() + ": the last-row pass gave output '" + n.outputs[k] + "' of shape " + shape_str(out[k].shape) +
                 ", not one position on axis " + std::to_string(axis);
        return false;
      }
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    if (n.outputs[k].empty()) continue;
    const int id = r.out[k];
    if (!store_value(id, std::move(out[k]), "", error)) {
      *error = where() + *error;
      return false;
    }
    defined_[id] = 1;
    const bool root = std::find(gradient_roots_.begin(), gradient_roots_.end(), n.outputs[k]) != gradient_roots_.end();
    requires_grad_[id] = !folding && values_[id].is_float() && (root || (rg && op->backward != nullptr));
  }
  return true;
}

template <class T>
bool Executor<T>::suffix_inputs(const Node& n, std::vector<const Tensor<T>*>* in, std::vector<Tensor<T>>* cut,
                                std::string* error) {
  const NodeRefs& r = refs(n);
  if (r.out.empty() || r.out[0] < 0 || shape_path_[r.out[0]]) return true;  // the shape path runs at full length
  std::vector<char> is_shape(in->size(), 0);
  bool any = false;
  for (size_t q = 0; q < in->size(); ++q)
    if (r.in[q] >= 0 && shape_path_[r.in[q]]) is_shape[q] = any = true;
  if (!any) return true;
  cut->reserve(2 * in->size());  // a shape-path input may be cut on two axes; in[] points into *cut
  const std::string e = suffix_cut_inputs(n.op_type, is_shape, in, suffix_rows_, suffix_->prefix + suffix_rows_, cut);
  if (e.empty()) return true;
  *error = "node '" + n.name + "' (" + n.op_type + "): " + e;
  return false;
}

template <class T>
bool Executor<T>::suffix_outputs(const Node& n, std::vector<Tensor<T>>* out, std::string* error) {
  const NodeRefs& r = refs(n);
  if (n.op_type == "Shape" && !r.in.empty() && r.in[0] >= 0 && graph_input_[r.in[0]] && !(*out)[0].is_float() &&
      values_[r.in[0]].rank() >= 2 && values_[r.in[0]].shape[1] == suffix_rows_) {
    // the length of the whole sequence on axis 1: out holds the input's axes [start, end)
    const int64_t rank = values_[r.in[0]].rank();
    int64_t start = n.attr_int("start", 0);
    start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
    const int64_t k = 1 - start;
    if (k >= 0 && k < static_cast<int64_t>((*out)[0].i.size())) (*out)[0].i[static_cast<size_t>(k)] += suffix_->prefix;
  }
  for (size_t k = 0; k < r.out.size(); ++k) {
    if (r.out[k] < 0 || !extend_of_[r.out[k]]) continue;
    const auto& x = *extend_of_[r.out[k]];
    Tensor<T> whole;
    if (const std::string e = suffix_extend(*x.head, (*out)[k], x.axis, &whole); !e.empty()) {
      *error = "node '" + n.name + "' (" + n.op_type + "), value '" + x.value + "': " + e;
      return false;
    }
    (*out)[k] = std::move(whole);
  }
  return true;
}

template <class T>
bool Executor<T>::forward(const std::map<std::string, Tensor<T>>& inputs, std::string* error,
                          const std::vector<std::string>* keep, int64_t last_row_of, const SuffixPass<T>* suffix) {
  suffix_ = nullptr;
  if (suffix && model_) {
    error->clear();
    if (!keep || suffix->prefix < 1) {
      *error = "a pass on the last positions is an inference pass after at least one position";
      return false;
    }
    suffix_rows_ = 0;
    for (const auto& vi : model_->inputs) {
      auto it = inputs.find(vi.name);
      if (it != inputs.end() && it->second.rank() >= 2 && (suffix_rows_ == 0 || it->second.shape[1] < suffix_rows_))
        suffix_rows_ = it->second.shape[1];  // the token inputs' positions (a key mask may hold all of them)
    }
    extend_of_.assign(values_.size(), nullptr);
    for (const auto& x : suffix->extend) {
      const int id = id_of(x.value);
      if (id < 0 || constant_[id] || !x.head) {
        *error = "a pass on the last positions extends '" + x.value + "', which is no runtime value";
        return false;
      }
      extend_of_[id] = &x;
    }
    suffix_ = suffix;
  }
  const bool ok = forward_pass(inputs, error, keep, last_row_of);
  suffix_ = nullptr;
  return ok;
}

template <class T>
bool Executor<T>::forward_pass(const std::map<std::string, Tensor<T>>& inputs, std::string* error,
                               const std::vector<std::string>* keep, int64_t last_row_of) {
  error->clear();
  kept_all_ = false;  // until this pass has run
  if (!model_) {
    *error = "no model loaded";
    return false;
  }
  std::fill(has_grad_.begin(), has_grad_.end(), 0);
  for (size_t id = 0; id < defined_.size(); ++id)
    if (!constant_[id]) {
      defined_[id] = 0;
      requires_grad_[id] = 0;
    }
  forward_work_left_ = limits_.max_forward_work;
  for (const auto& vi : model_->inputs) {
    auto it = inputs.find(vi.name);
    if (it == inputs.end()) {
      *error = "graph input '" + vi.name + "' was not given";
      return false;
    }
    const Tensor<T>& t = it->second;
    if (vi.has_shape) {
      bool ok = t.shape.size() == vi.dims.size();
      for (size_t k = 0; ok && k < vi.dims.size(); ++k) ok = vi.dims[k] < 0 || vi.dims[k] == t.shape[k];
      if (!ok) {
        std::string want = "[";
        for (size_t k = 0; k < vi.dims.size(); ++k)
          want += (k ? "," : "") + (vi.dims[k] < 0 ? (vi.dim_names[k].empty() ? std::string("?") : vi.dim_names[k]) : std::to_string(vi.dims[k]));
        *error = "input '" + vi.name + "' has shape " + shape_str(t.shape) + ", the model expects " + want + "]";
        return false;
      }
    }
    int64_t numel = 0;
    if (!shape_fits(t.shape, limits_.max_tensor_elements, &numel)) {
      *error = "input '" + vi.name + "' of shape " + shape_str(t.shape) + " is above the executor's limit of " +
               std::to_string(limits_.max_tensor_elements) + " elements per tensor";
      return false;
    }
    if (static_cast<int64_t>(t.is_float() ? t.f.size() : t.i.size()) != numel) {
      *error = "input '" + vi.name + "': " + std::to_string(t.is_float() ? t.f.size() : t.i.size()) +
               " values for shape " + shape_str(t.shape);
      return false;
    }
    const int id = ids_[vi.name];
    if (!store_value(id, Tensor<T>(t), "input '" + vi.name + "'", error)) return false;
    defined_[id] = 1;
    requires_grad_[id] = t.is_float();
  }
  kept_all_ = keep == nullptr;
  const bool rows = last_row_of > 1 && !kept_all_ && last_row_nodes_.size() == run_.size() &&
                    last_row_value_.size() == values_.size();
  if (kept_all_) {
    for (const Node* n : run_)
      if (!run_node(*n, error, false)) return false;
    return true;
  }
  // Inference only: a value goes once the last node that reads it ran, unless it is a graph output or kept, so
  // the pass touches a few activations' worth of memory instead of every one (a first pass in fresh memory was
  // mostly page faults).
  for (size_t id = 0; id < values_.size(); ++id) {  // the last pass's values and gradients go first
    if (!constant_[id] && !defined_[id]) store_value(static_cast<int>(id), Tensor<T>(), "", error);
    store_grad(static_cast<int>(id), Tensor<T>(), "", error);
  }
  std::vector<char> stays(values_.size(), 0);
  for (const auto& o : model_->outputs) stays[ids_[o.name]] = 1;
  for (const auto& name : *keep)
    if (const int id = id_of(name); id >= 0) stays[id] = 1;
  for (size_t k = 0; k < run_.size(); ++k) {
    const int plan = rows ? last_row_nodes_[k] : 0;
    if (!run_node(*run_[k], error, false, plan ? last_row_of : 0, plan - 1)) return false;
    for (const int id : refs(*run_[k]).in) {
      if (id < 0) continue;
      if (last_read_[id] == k && !stays[id] && !constant_[id] && defined_[id]) {
        store_value(id, Tensor<T>(), "", error);  // frees: cannot exceed the budget
        defined_[id] = 0;
      }
    }
  }
  return true;
}

template <class T>
bool Executor<T>::forward_from(const std::string& name, const Tensor<T>& replacement, std::string* error,
                               const std::string& stop_after) {
  error->clear();
  if (!kept_all_) {
    *error = "forward_from needs a forward pass that kept every value";
    return false;
  }
  const int id = id_of(name);
  if (id < 0 || !defined_[id] || constant_[id]) {
    *error = "'" + name + "' is not a runtime value of the last forward pass";
    return false;
  }
  if (values_[id].shape != replacement.shape || values_[id].is_float() != replacement.is_float()) {
    *error = "the replacement of '" + name + "' has shape " + shape_str(replacement.shape) + ", the value " +
             shape_str(values_[id].shape);
    return false;
  }
  size_t start = 0;  // the node after the one that produced `name` (0 for a graph input)
  for (size_t k = 0; k < run_.size(); ++k)
    for (const auto& o : run_[k]->outputs)
      if (o == name) start = k + 1;
  if (static_cast<int64_t>(replacement.is_float() ? replacement.f.size() : replacement.i.size()) != values_[id].numel()) {
    *error = "the replacement of '" + name + "' does not hold " + std::to_string(values_[id].numel()) + " values";
    return false;
  }
  const char rg = requires_grad_[id];
  if (!store_value(id, Tensor<T>(replacement), "the replacement of '" + name + "'", error)) return false;
  requires_grad_[id] = rg;
  forward_work_left_ = limits_.max_forward_work;
  std::fill(has_grad_.begin(), has_grad_.end(), 0);
  for (size_t k = start; k < run_.size(); ++k) {
    if (!run_node(*run_[k], error, false)) return false;
    if (!stop_after.empty() && std::find(run_[k]->outputs.begin(), run_[k]->outputs.end(), stop_after) != run_[k]->outputs.end())
      break;
  }
  return true;
}

template <class T>
bool Executor<T>::backward(const std::string& output, const Tensor<T>& seed, std::string* error, const std::string& stop_at) {
  error->clear();
  if (!kept_all_) {
    *error = "backward needs a forward pass that kept every value";
    return false;
  }
  const int oid = id_of(output);
  if (oid < 0 || !defined_[oid]) {
    *error = "backward: '" + output + "' has no value (run forward first)";
    return false;
  }
  if (!values_[oid].is_float() || seed.shape != values_[oid].shape || static_cast<int64_t>(seed.f.size()) != seed.numel()) {
    *error = "backward: the seed must be a float tensor of shape " + shape_str(values_[oid].shape);
    return false;
  }
  std::fill(has_grad_.begin(), has_grad_.end(), 0);
  for (size_t id = 0; id < grads_.size(); ++id) {
    grads_[id] = Tensor<T>();
    live_bytes_ -= grad_bytes_[id];
    grad_bytes_[id] = 0;
  }
  if (!requires_grad_[oid]) return true;  // the output does not depend on any input
  if (!store_grad(oid, Tensor<T>(seed), "backward", error)) return false;
  has_grad_[oid] = 1;
  OpContext& ctx = op_context();
  ctx.limits = limits_;
  for (auto it = run_.rbegin(); it != run_.rend(); ++it) {
    const Node& n = **it;
    if (interrupted()) {  // the host stops this call (parallel/interrupt.h)
      *error = kInterruptedMessage;
      return false;
    }
    if (!stop_at.empty() && std::find(n.outputs.begin(), n.outputs.end(), stop_at) != n.outputs.end()) break;
    if (!detached_.empty() && std::find_first_of(n.outputs.begin(), n.outputs.end(), detached_.begin(), detached_.end()) !=
                                  n.outputs.end())
      continue;
    double factor = 1;  // the propagation rules: the share this node's outputs pass on
    if (plan_)
      for (const auto& o : n.outputs) {
        auto f = plan_->factor.find(o);
        if (f != plan_->factor.end()) factor = f->second;
      }
    if (factor == 0) continue;
    const NodeRefs& r = refs(n);
    std::vector<const Tensor<T>*> dout;
    bool any = false;
    for (const int id : r.out) {
      const bool g = id >= 0 && has_grad_[id];
      dout.push_back(g ? &grads_[id] : nullptr);
      any = any || g;
    }
    if (!any) continue;
    const OpEntry<T>* op = r.op;
    std::vector<const Tensor<T>*> in;
    std::vector<bool> need;
    bool any_need = false;
    for (const int id : r.in) {
      in.push_back(id >= 0 ? &values_[id] : nullptr);
      need.push_back(id >= 0 && requires_grad_[id]);
      any_need = any_need || need.back();
    }
    if (!any_need) continue;
    std::vector<const Tensor<T>*> outs;
    for (const int id : r.out) outs.push_back(id < 0 ? nullptr : &values_[id]);
    std::vector<Tensor<T>> din(n.inputs.size());
    ctx.work_left = limits_.max_node_work;
    BackwardFn<T> bwd = op->backward;
    if (plan_ && plan_->op_rules)
      if (BackwardFn<T> r = rule_backward<T>(n.op_type)) bwd = r;
    const std::string e = bwd(n, in, outs, dout, need, din);
    if (!e.empty()) {
      *error = "backward of node '" + n.name + "' (" + n.op_type + "): " + e;
      return false;
    }
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      if (!need[k]) continue;
      const int id = r.in[k];
      if (din[k].f.size() != values_[id].f.size()) {
        *error = "backward of node '" + n.name + "' (" + n.op_type + "): gradient of input " + std::to_string(k) + " has the wrong size";
        return false;
      }
      if (factor != 1)
        for (T& v : din[k].f) v *= static_cast<T>(factor);
      if (!has_grad_[id]) {
        din[k].shape = values_[id].shape;
        if (!store_grad(id, std::move(din[k]), "backward of node '" + n.name + "' (" + n.op_type + ")", error)) return false;
        has_grad_[id] = 1;
      } else {
        auto& g = grads_[id].f;
        for (size_t q = 0; q < g.size(); ++q) g[q] += din[k].f[q];
      }
    }
  }
  return true;
}

template class Executor<float>;
template class Executor<double>;

}  // namespace attnlab::onnx
