// ONNX graph executor with reverse-mode backward, for T = float (the product) and T = double (gradient
// checks). Usage (no exceptions; every failure is a message):
//
//   Model m; read_model(bytes, n, &m, &err);
//   Executor<float> ex; ex.load(m, &err);            // validates the graph, folds constant subgraphs
//   ex.forward({{"image", x}}, &err);                  // keeps every value
//   ex.value("logits");                                // any tensor of the graph, by name
//   ex.backward("logits", seed, &err);                 // dL/dlogits = seed (same shape)
//   ex.gradient("image"); ex.gradient("layer3_out");   // gradient of every value that depends on an input
//
// load() checks: the default-domain opset in [kMinOpset, kMaxOpset] and not below an operator's oldest
// implemented version (OpEntry::min_opset), every operator supported (else a
// message listing the missing ones and their counts), every node input defined (by an initializer, a graph
// input or an earlier node), no value defined twice, no cycle, every node against its operator's schema
// (onnx/schema.h: arity, attributes), every initializer's shape and size. Every operator output is checked
// after its node ran (shape within the budget, as many values as the shape needs), and the executor holds to
// the budget of ExecLimits (op.h) with a message naming the node: bytes alive, work of folding and of a
// forward pass. Nodes whose inputs are all constant
// (initializers, Constant, DequantizeLinear of weights, shape arithmetic on constants) are evaluated once at
// load and their outputs kept as constants; a constant that only folded nodes read (an int8 weight before its
// DequantizeLinear) is let go once they ran: value() is null for it, is_constant() true. Shape-only chains that start from a runtime tensor (Shape →
// Gather → Concat → Reshape) run in forward on int64 tensors; they cost microseconds.
// Gradients flow through float values only: a value requires a gradient when it depends on a graph input
// through operators that have a backward; integer outputs (Shape, Equal, …) stop the gradient.
#pragma once
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "onnx/model.h"
#include "onnx/op.h"
#include "onnx/suffix_pass.h"
#include "onnx/tensor.h"

namespace attnlab::onnx {

constexpr int kMinOpset = 1;
constexpr int kMaxOpset = 21;

// Operators of the model (default domain) that the executor does not implement, with their node counts,
// as "Name (count)" in order of first appearance; other domains are listed as "domain.Name (count)".
std::vector<std::string> unsupported_operators(const Model& m);

struct PropagationPlan;  // onnx/propagation.h

template <class T>
class Executor {
 public:
  // The propagation rules (onnx/propagation.h) for the next backward passes; null: the gradient. The plan must
  // outlive its use.
  void set_propagation(const PropagationPlan* plan) { plan_ = plan; }
  // The budget (op.h ExecLimits); set before load. Defaults: the numbers the CLI and the page share.
  void set_limits(const ExecLimits& limits) { limits_ = limits; }
  const ExecLimits& limits() const { return limits_; }
  // Values that start a gradient path as graph inputs do (a text model's token embeddings: its only graph input
  // holds integer ids, through which no gradient flows). Set after load; kept by later forward passes.
  void set_gradient_roots(const std::vector<std::string>& names) { gradient_roots_ = names; }
  // Values held constant by backward: their gradient is computed but not passed on to the node that produced them
  // (Jain & Wallace's gradient importance with the attention distributions detached). Empty: none.
  void set_detached(const std::vector<std::string>& names) { detached_ = names; }
  // Bytes of every value and gradient held now (what max_live_bytes bounds).
  int64_t live_bytes() const { return live_bytes_; }

  // The model must outlive the executor (nodes are referenced, not copied). To change weights (negative
  // controls, weight randomisation), edit a copy of the Model and load that.
  bool load(const Model& model, std::string* error);
  bool loaded() const { return model_ != nullptr; }
  const Model& model() const { return *model_; }

  // keep: null keeps every value (what backward and forward_from need). Otherwise an inference pass: only the graph
  // outputs and the values named in *keep are kept (value() is null for the others), and backward / forward_from
  // refuse until a full forward ran.
  // last_row_of: in an inference pass, with T > 1 positions (axis 1 of the [B, T, …] values) and a plan set by
  // set_last_row_nodes, the planned nodes run on the last position alone (their [B, T, …] inputs cut to [B, 1, …]),
  // so the output holds [B, 1, …]: what a reader of the last position needs (onnx/last_row.h). A planned node whose
  // output is not [B, 1, …] fails the pass (the caller runs it whole instead).
  // suffix: in an inference pass, the inputs hold the last positions of a longer sequence whose first
  // suffix->prefix positions ran before; the graph runs on these alone, its extended values (the keys and values of
  // the attention) prefixed with theirs (onnx/suffix_pass.h). Must outlive the call.
  bool forward(const std::map<std::string, Tensor<T>>& inputs, std::string* error,
               const std::vector<std::string>* keep = nullptr, int64_t last_row_of = 0,
               const SuffixPass<T>* suffix = nullptr);
  // Whether a runtime value is built from the length of the inputs alone (a Shape of a graph input and what follows
  // from it and constants: rotary and position tables, a causal mask), not from their values (onnx/suffix_pass.h).
  bool shape_path(const std::string& name) const {
    const int id = id_of(name);
    return id >= 0 && static_cast<size_t>(id) < shape_path_.size() && shape_path_[id];
  }
  // Per runtime node (runtime_nodes() order): 1 + the axis its outputs carry the positions on where it may run on the
  // last position alone, 0 where not (onnx/last_row.h). Empty: none. Set after load.
  void set_last_row_nodes(std::vector<char> nodes);
  bool has_last_row_nodes() const {
    return std::any_of(last_row_nodes_.begin(), last_row_nodes_.end(), [](char c) { return c != 0; });
  }
  // After a forward: value `name` (a runtime value: a graph input or a node output) replaced by `replacement`
  // (same shape), then every runtime node after the one that produced it runs again (AblationCAM: one channel
  // zeroed at a layer, the rest of the network re-run). Gradients are cleared. stop_after (a value name): stop once the
  // node that produces it ran — the values after it keep those of the run before (value zeroing and ALTI read one
  // layer's output per replacement; a later full forward_from puts every value right again).
  bool forward_from(const std::string& name, const Tensor<T>& replacement, std::string* error,
                    const std::string& stop_after = "");
  // null for a name that is not a value, not computed yet, or a constant let go after folding (see above).
  const Tensor<T>* value(const std::string& name) const;
  bool has_value(const std::string& name) const { return value(name) != nullptr; }

  // Reverse mode from one output (any float value of the graph) with dL/d(output) = seed. stop_at (a value name):
  // stop once its gradient is complete — at the node that produced it, since every consumer comes after that
  // node — so nothing upstream is computed (Grad-CAM at a late layer needs only the head's backward).
  bool backward(const std::string& output, const Tensor<T>& seed, std::string* error, const std::string& stop_at = "");
  const Tensor<T>* gradient(const std::string& name) const;  // null if no gradient reached it

  // The nodes that run in forward (constant-folded ones excluded), in execution order.
  const std::vector<const Node*>& runtime_nodes() const { return run_; }
  // Whether a value is a constant (initializer or folded).
  bool is_constant(const std::string& name) const;
  // After a forward: whether a value depends, through operators with a backward, on a graph input or a gradient
  // root (what a backward reaches).
  bool requires_gradient(const std::string& name) const {
    const int id = id_of(name);
    return id >= 0 && static_cast<size_t>(id) < requires_grad_.size() && requires_grad_[id];
  }

 private:
  int id_of(const std::string& name) const;
  bool forward_pass(const std::map<std::string, Tensor<T>>& inputs, std::string* error,
                    const std::vector<std::string>* keep, int64_t last_row_of);
  // A suffix pass (forward's suffix, set for its duration): cuts n's shape-path inputs, adds the prefix to a Shape of
  // a graph input; after the node, extend_outputs prefixes its extended values.
  bool suffix_inputs(const Node& n, std::vector<const Tensor<T>*>* in, std::vector<Tensor<T>>* cut, std::string* error);
  bool suffix_outputs(const Node& n, std::vector<Tensor<T>>* out, std::string* error);
  // last_row_of > 1: run n on the last of that many positions — its inputs from outside the planned tail that are
  // [B, T, …] cut to [B, 1, …]; its outputs must hold one position on axis `axis`.
  bool run_node(const Node& n, std::string* error, bool folding, int64_t last_row_of = 0, int axis = 1);
  // Stores a value / gradient and keeps live_bytes_ current; false (with a message) when over the budget.
  bool store(std::vector<Tensor<T>>& slots, std::vector<int64_t>& bytes, int id, Tensor<T>&& t,
             const std::string& where, std::string* error);
  bool store_value(int id, Tensor<T>&& t, const std::string& where, std::string* error) {
    return store(values_, value_bytes_, id, std::move(t), where, error);
  }
  bool store_grad(int id, Tensor<T>&& t, const std::string& where, std::string* error) {
    return store(grads_, grad_bytes_, id, std::move(t), where, error);
  }
  static int64_t bytes_of(const Tensor<T>& t) {
    return static_cast<int64_t>(t.f.size() * sizeof(T) + t.i.size() * sizeof(int64_t));
  }

  ExecLimits limits_;
  const PropagationPlan* plan_ = nullptr;
  std::vector<std::string> gradient_roots_, detached_;
  int64_t live_bytes_ = 0;
  bool kept_all_ = false;  // the last forward pass kept every value
  int64_t fold_work_left_ = 0, forward_work_left_ = 0;
  std::vector<int64_t> value_bytes_, grad_bytes_;

  const Model* model_ = nullptr;
  std::map<std::string, int> ids_;
  std::vector<Tensor<T>> values_;
  std::vector<char> defined_, constant_, requires_grad_;
  std::vector<Tensor<T>> grads_;
  std::vector<char> has_grad_;
  std::vector<const Node*> run_;
  std::vector<size_t> last_read_;  // per value: the index in run_ of the last runtime node that reads it
  std::vector<const Node*> all_nodes_;  // topological order
  std::vector<char> last_row_nodes_;    // per runtime node: 1 + its positions' axis where it runs on the last alone
  std::vector<char> last_row_value_;    // per value: made by such a node (already one position)
  std::vector<char> graph_input_, shape_path_;  // per value: a graph input; built from the inputs' length alone
  const SuffixPass<T>* suffix_ = nullptr;       // during a suffix pass
  int64_t suffix_rows_ = 0;                     // its positions (axis 1 of the inputs)
  std::vector<const typename SuffixPass<T>::Extend*> extend_of_;  // per value, during a suffix pass
  // Per node of the model (its index in model().nodes): the operator and the value ids of its inputs and outputs
  // (-1 for an omitted one), found once at load instead of by name on every pass.
  struct NodeRefs {
    const OpEntry<T>* op = nullptr;
    std::vector<int> in, out;
  };
  std::vector<NodeRefs> refs_;
  const NodeRefs& refs(const Node& n) const { return refs_[static_cast<size_t>(&n - model_->nodes.data())]; }
};

}  // namespace attnlab::onnx
