// The only Embind code for "Your model" on the Text tab (issue 28): a user's ONNX text transformer (an encoder
// classifier or a causal LM) with its tokenizer, run forward and backward by the core's executor. Owns no
// explanation math: the explanation is core/explain/onnx_text/onnx_text_explain.h's (what `attnlab
// explain-onnx-text` prints), the tokenizers core/text/subword_tokenizer.h's, rollout / flow core/explain/
// self_attention_maps.h's, config.json / the files' check / the cut of a long text onnx_text_session.h's (the CLI's
// too). What lives here is the binding's own work: arguments, info() and the arrays of attentionMaps. Errors as docs/DESIGN.md "Binding convention"; wasm/facade.js exposes:
//   new Module.OnnxTextLab(model Uint8Array, tokenizer Uint8Array, config = '' (config.json text), options = {})
//       options {output: NAME (default: 'logits', else the only output), tokenizerName: the file's name (messages),
//       lastPositionTail: false (default true: a causal LM's inference passes — leave-one-out's batches, top, a greedy
//       step — run the graph's row-wise tail on the last position alone, onnx/last_row.h, and leave-one-out's batches
//       the positions from their first deletion on alone, onnx/suffix_pass.h; false: every pass runs the whole graph,
//       as a benchmark against ONNX Runtime's forward needs)}.
//       Throws with a message for: a file over the reader's 256 MB (checked before it is copied), bytes that are not
//       ONNX, external data, an opset outside 1–21, a graph that is not a text model (an image input…), several
//       outputs and none named logits, a tokenizer that is not JSON / of an unknown type, a config.json that is not a
//       JSON object, a tokenizer whose vocabulary the model cannot read (a forward on its last id fails), a model that
//       does not run on a short text.
//   lab.info() → {summary (the onnx-info summary: inputs, outputs, operators, opsets, parameters, attention…),
//       task 'causal-lm' | 'classifier', causal, output, outputs (classes or vocabulary size), labels (config.json
//       id2label as an array, or null), layers, heads (of the attention found; 0 when none), attention_found [{layer,
//       softmax, heads}], attention_note (when none is found), tokenizer {kind, vocab_size}, max_positions (null when
//       unknown) and max_positions_source ('config.json <key>' | 'tried' | null), stop_ids (ids that end a text: BOS
//       and EOS for llama2.c as `attnlab generate`, config.json eos_token_id otherwise), model_type (config.json's)}
//   lab.tokenize(text, addSpecial = true) → {ids, tokens, offsets [[b, e]…] (UTF-8 bytes), special} (as `attnlab tokenize`)
//   lab.explain(text, target = 'next', options = {}) → exactly the object `attnlab explain-onnx-text --text TEXT
//       [--target K] --ig-steps 0 --no-context-mixing` prints (ids, tokens, offsets, special, then onnx_text_explain's
//       fields); options {leaveOneOut: true, igSteps: 0 (integrated gradients' segments; 0 = none, the page's default),
//       contextMixing: false (value zeroing and ALTI, L × n forwards each: the page runs them as jobs, one layer a
//       step), attentionLayers: true, igBaseline: 'auto' (as --ig-baseline; explainIds also reads special there)} (false leaves the `attention_layers` key out, for the page, which reads
//       attentionMaps). A text longer than the model's positions is cut (a template's closing token kept last) and the
//       object gets `truncated` {kept, total, at_byte (end of the last kept token in the text; null for ids),
//       max_positions, source}.
//   lab.explainIds(ids, target = 'next', options = {}) → the same from token ids (`--ids`): {ids, …}.
//   lab.explainStep(ids, target = 'next', options = {}) → {explain (explainIds'), top (top(ids, options.top = 5)'s),
//       maps (attentionMaps(ids)'s, null without attention)}: the same values from one explanation's passes (the
//       page's step: no pass of their own for top and maps, the flow row taken from the per-layer flows)
//   lab.leaveOneOut(ids, target, p, begin, count) → {values: [|p − p_target(ids without t)|, t in [begin, begin+count)]}
//       (onnx_text_leave_one_out: the page runs leave-one-out in steps with progress; p = the explain's probability)
//   lab.integratedGradients(ids, target, steps, options = {}) → {values (the integrated_gradients row of
//       explain-onnx-text --ig-steps steps), completeness {sum, target = p(x) − p(baseline)}, baseline {kind, token?,
//       zero_completeness?}} (onnx_text_integrated_gradients; options {igBaseline: 'auto' | 'zero' | 'token', special:
//       the explain result's, kept in a token baseline}; one call: the page runs it as a job after the other rows)
//   lab.contextMixingLayer(ids, method ('value_zeroing' | 'alti'), layer) → {layer, n, values [n·n] (C_l row-major,
//       rows normalised), found {post_norm, layer_outputs}} (onnx_mixing_layer after a run on ids: n forwards; the
//       page's job calls it per layer)
//   lab.contextMixingRollout(ids, layers [[n·n] per layer]) → {values: the method's row of explain-onnx-text}
//       (onnx_mixing_rollout)
//   lab.top(ids, k = 5) → {top [{id, token, text, logit, probability}], greedy (the first maximum), stop (greedy ∈
//       stop_ids), ids_used (after a cut)}: the explained position's k most likely outputs (onnx_text_top_k), from
//       an inference pass (the logits alone; a causal LM's tail on the last position)
//   lab.greedyStep(ids) → {id, token, text, stop}: one inference pass, the first maximum of the last position's
//       logits (`attnlab generate`'s step; the caller appends or stops)
//   lab.attentionMaps(ids) → {n, layers, heads, explained (graph position), token_of [n] (token index, −1 = a
//       position the graph adds), data Float32Array [L·H·n·n] (graph order, row = query), mean [L·n·n] (heads
//       averaged), rollout [L·n·n] (through layer l), flow [L·(n−1)] (max flow from each other position to the
//       explained one through layers 1..l, positions in graph order; NaN, with flow_skipped, where
//       flow_affordable(n, 1 + … + L) fails: too slow to run live)}
//   lab.decode(ids) → text;  lab.pieces(ids) → {tokens (vocabulary entries), texts (each id decoded alone)}
//   lab.experiment(name, input, options = {}) → the row of one debate experiment of the registry (core/experiments:
//       kendall, permutation, adversarial, erase-max, erase-until-flip) on one instance, exactly as run_instance gives it
//       (the row of `attnlab experiment NAME --model DIR --data F.tsv [--seed S] [--layer K] [--param k=v]` on a
//       one-line TSV of the text: the same Instance, core/explain/onnx_text/onnx_text_instance.h; index 0, no label).
//       input: a text (tokenised with the template, as the CLI) or {ids, special} (special: 1 where the template added
//       the token — held fixed; default none). options {params: {…} (check_experiment_params), seed = 1, layer = −1
//       (the found attention layer intervened on; −1 = the last)}. Errors (returned, never thrown): an unknown
//       experiment, one that needs a model attnlab trained (check_experiment_model's message), bad params / seed /
//       layer, no attention found, a text the model cannot read (the CLI does not cut either).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <emscripten/bind.h>
#include <nlohmann/json.hpp>

#include "boundary.h"
#include "experiments/experiment.h"
#include "explain/onnx/onnx_classifier.h"
#include "explain/onnx_text/onnx_attention_model.h"
#include "explain/onnx_text/onnx_text_instance.h"
#include "explain/onnx_text/onnx_text_explain.h"
#include "explain/onnx_text/onnx_text_session.h"
#include "explain/onnx_text/onnx_context_mixing.h"
#include "explain/self_attention_maps.h"
#include "onnx/model.h"
#include "text/subword_tokenizer.h"

namespace {

using nlohmann::json;
using namespace attnlab;
using namespace attnlab::wasm;

constexpr int kMaxIds = 1 << 16;          // ids of one call

std::string mb(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return buf;
}

// A Uint8Array argument of at most `max` bytes, refused before it is copied into the heap.
bool bytes_arg(const val& v, const char* name, size_t max, std::vector<uint8_t>* out, Err& e) {
  if (!e.ok()) return false;
  if (!v.instanceof(val::global("Uint8Array"))) return e.fail(std::string(name) + " must be a Uint8Array (the file's bytes)");
  const size_t n = v["length"].as<size_t>();
  if (n == 0) return e.fail(std::string(name) + " is empty");
  if (n > max) return e.fail(std::string(name) + " is " + mb(n) + "; at most " + mb(max) + " can be read in the browser");
  return u8(v, name, out, e);
}

// Token ids from a JS array or Int32Array.
bool ids_arg(const val& v, std::vector<int>* out, Err& e) {
  if (!e.ok()) return false;
  if (!v.isArray() && !v.instanceof(val::global("Int32Array"))) return e.fail("ids must be an array of token ids");
  const size_t n = v["length"].as<size_t>();
  if (n == 0) return e.fail("ids is empty: no tokens to run");
  if (n > static_cast<size_t>(kMaxIds)) return e.fail("ids has " + num(n) + " tokens; at most " + num(kMaxIds));
  out->resize(n);
  for (size_t i = 0; i < n; ++i) {
    const val x = v[i];
    const double d = x.isNumber() ? x.as<double>() : -1;
    if (!(d >= 0) || d != std::floor(d) || d > 2147483647.0) return e.fail("ids[" + num(i) + "] is not a token id (a whole number ≥ 0)");
    (*out)[i] = static_cast<int>(d);
  }
  return true;
}

// 'next' / undefined / null / −1 → −1 (the arg-max); else a whole number ≥ 0.
bool target_arg(const val& v, int* out, Err& e) {
  if (!e.ok()) return false;
  *out = -1;
  if (v.isUndefined() || v.isNull()) return true;
  if (v.isString()) {
    const std::string s = v.as<std::string>();
    if (s == "next" || s.empty()) return true;
    return e.fail("target must be a class / token index or 'next', got '" + s + "'");
  }
  const double d = v.isNumber() ? v.as<double>() : NAN;
  if (d == -1) return true;
  if (!(d >= 0) || d != std::floor(d) || d > 2147483647.0) return e.fail("target must be a class / token index or 'next'");
  *out = static_cast<int>(d);
  return true;
}

// explainIds' and explainStep's arguments: ids, target ('next' or an index), options (an object).
bool explain_ids_args(const val& ids, const val& target, const val& options, std::vector<int>* v, int* tgt, json* opt,
                      Err& e) {
  ids_arg(ids, v, e);
  target_arg(target, tgt, e);
  object_arg(options, "options", opt, e);
  return e.ok();
}

// ids and the explained target of a method that re-runs the explained input (leaveOneOut, integratedGradients).
bool explained_args(const val& ids, const val& target, const char* method, std::vector<int>* v, int* tgt, Err& e) {
  ids_arg(ids, v, e);
  target_arg(target, tgt, e);
  if (e.ok() && *tgt < 0) e.fail(std::string(method) + " needs the explained target (the explain result's `target`)");
  return e.ok();
}

json nullable_row(const std::vector<double>& values) {  // NaN → null
  json a = json::array();
  for (double x : values) a.push_back(std::isfinite(x) ? json(x) : json(nullptr));
  return a;
}

json offsets_json(const Tokenization& t) {
  json offsets = json::array();
  for (const auto& [b, e] : t.offsets) offsets.push_back({b, e});
  return offsets;
}

class OnnxTextLab {
 public:
  OnnxTextLab(const val& model, const val& tokenizer, const val& config, const val& options) {
    Err e;
    std::vector<uint8_t> mbytes, tbytes;
    json opt;
    std::string err, output, tok_name = "tokenizer";
    object_arg(options, "options", &opt, e);
    if (e.ok()) {
      output = opt.value("output", std::string());
      const std::string n = opt.value("tokenizerName", std::string());
      if (!n.empty()) tok_name = n;
      const json tail = opt.value("lastPositionTail", json(true));
      if (!tail.is_boolean()) e.fail("options.lastPositionTail must be true or false");
      else if (!tail.get<bool>()) model_.set_last_row_batches(false);
    }
    bytes_arg(model, "the model file", onnx::ReaderLimits().max_bytes, &mbytes, e);
    if (e.ok() && tokenizer.isUndefined()) e.fail("a tokenizer is needed: tokenizer.json (Hugging Face) or tokenizer.bin (llama2.c)");
    bytes_arg(tokenizer, tok_name.c_str(), kMaxTokenizerFileBytes, &tbytes, e);
    std::string config_text;
    if (e.ok() && !config.isUndefined() && !config.isNull()) {
      if (!config.isString()) e.fail("config must be the text of config.json (a string)");
      else config_text = config.as<std::string>();
    }
    if (e.ok() && !model_.load(mbytes.data(), mbytes.size(), output, &err)) e.fail("the model: " + err);
    mbytes = {};
    if (e.ok()) {
      tok_ = load_tokenizer(std::string(tbytes.begin(), tbytes.end()), &err);
      if (!tok_) e.fail(tok_name + ": " + err);
    }
    tbytes = {};
    if (e.ok() && !read_onnx_text_config(config_text, *tok_, &cfg_, &err)) e.fail(err);
    if (e.ok() && !check_onnx_text_pair(model_, *tok_, &err)) e.fail(err);
    if (e.ok()) describe();
    error_ = e.message;
  }

  std::string error() const { return error_; }
  val info() const { return out_json(info_); }

  val tokenize(const val& text, bool add_special) const {
    Err e;
    std::string s, err;
    Tokenization t;
    if (string_arg(text, "text", &s, e) && !tok_->encode(s, add_special, &t, &err)) e.fail(err);
    if (!e.ok()) return error_val(e.message);
    return out_json({{"ids", t.ids}, {"tokens", t.tokens}, {"offsets", offsets_json(t)}, {"special", t.special},
                     {"kind", tok_->kind()}, {"vocab_size", tok_->vocab_size()}});
  }

  val explain(const val& text, const val& target, const val& options) {
    Err e;
    std::string s, err;
    Tokenization t;
    int tgt = -1;
    json opt;
    if (string_arg(text, "text", &s, e) && !tok_->encode(s, true, &t, &err)) e.fail(err);
    target_arg(target, &tgt, e);
    object_arg(options, "options", &opt, e);
    if (e.ok() && t.ids.empty()) e.fail("no tokens to explain");
    if (!e.ok()) return error_val(e.message);
    json out = json::object();
    out["tokens"] = t.tokens;
    out["offsets"] = offsets_json(t);
    out["special"] = t.special;
    return run_explain(t.ids, &t, tgt, opt, std::move(out));
  }

  val explain_ids(const val& ids, const val& target, const val& options) {
    Err e;
    std::vector<int> v;
    int tgt = -1;
    json opt;
    if (!explain_ids_args(ids, target, options, &v, &tgt, &opt, e)) return error_val(e.message);
    return run_explain(v, nullptr, tgt, opt, json::object());
  }

  // explainIds, top and attentionMaps of the same ids from one explanation (the page's step, labs/own-text.js): the
  // top-k read from the explanation's logits (the same bits as top()'s pass: its tail on the last position computes
  // them so) and the maps from the model's pass left on the explained ids, so neither runs a pass of its own; and the
  // per-layer flows computed once, by the explanation with its rows (OnnxTextExplainRequest::flow_layers, beside
  // leave-one-out's passes), its flow row their last layer (the same maps and flow_from_maps as attentionMaps', so
  // the same numbers). Without attention, maps is null. Options: explainIds' plus top (k, 1..1000, default 5).
  val explain_step(const val& ids, const val& target, const val& options) {
    Err e;
    std::vector<int> v;
    int tgt = -1;
    json opt;
    explain_ids_args(ids, target, options, &v, &tgt, &opt, e);
    const json kj = opt.value("top", json(5));
    const int k = kj.is_number_integer() ? kj.get<int>() : 0;
    if (e.ok() && (k < 1 || k > 1000)) e.fail("options.top must be an integer in 1..1000");
    if (!e.ok()) return error_val(e.message);
    const size_t L = model_.attention().size();
    // the model's pass stays on the explained ids unless integrated gradients or context mixing run inside
    const bool own_pass = L > 0 && opt.value("igSteps", 0) == 0 && !opt.value("contextMixing", false);
    json out = json::object();
    if (!explain_json(v, nullptr, tgt, opt, &out, e, /*flow_layers=*/own_pass)) return error_val(e.message);
    std::vector<std::vector<double>> curves;
    if (out.contains("flow_layers")) {
      curves = out["flow_layers"].get<std::vector<std::vector<double>>>();
      out.erase("flow_layers");
    }
    const size_t used = out["ids"].size();
    val maps = val::null();
    if (L > 0) {
      if (!own_pass) fit(&v, nullptr, nullptr, e);
      if (e.ok()) maps_now(used, &maps, curves.empty() ? nullptr : &curves, e);
      if (!e.ok()) return error_val(e.message);
    }
    val r = val::object();
    r.set("top", out_json(top_json(out["logits"].get<std::vector<float>>(), k, used)));
    r.set("explain", out_json(out));
    r.set("maps", maps);
    return r;
  }

  val leave_one_out(const val& ids, const val& target, double p, int begin, int count) {
    Err e;
    std::vector<int> v;
    int tgt = -1;
    std::string err;
    explained_args(ids, target, "leaveOneOut", &v, &tgt, e);
    if (e.ok() && (!(p >= 0 && p <= 1))) e.fail("p must be the explained probability, in [0, 1]");
    if (e.ok() && (begin < 0 || count < 0)) e.fail("begin and count must be ≥ 0");
    std::vector<double> values;
    if (e.ok() && !onnx_text_leave_one_out(model_, v, tgt, p, begin, begin + count, &values, &err)) e.fail(err);
    if (!e.ok()) return error_val(e.message);
    return out_json({{"values", nullable_row(values)}, {"begin", begin}});
  }

  val integrated_gradients(const val& ids, const val& target, int steps, const val& options) {
    Err e;
    std::vector<int> v;
    int tgt = -1;
    std::string err;
    json opt;
    explained_args(ids, target, "integratedGradients", &v, &tgt, e);
    object_arg(options, "options", &opt, e);
    if (e.ok() && (steps < 1 || steps > 10000)) e.fail("steps must be in 1..10000");
    OnnxIgBaseline baseline;
    if (e.ok()) baseline_arg(opt, v.size(), nullptr, &baseline, e);
    OnnxIgResult r;
    if (e.ok() && !onnx_text_integrated_gradients(model_, v, tgt, steps, baseline, &r, &err)) e.fail(err);
    if (!e.ok()) return error_val(e.message);
    return out_json({{"values", nullable_row(r.values)}, {"completeness", {{"sum", r.sum}, {"target", r.target}}},
                     {"baseline", onnx_ig_baseline_json(r, baseline)}});
  }

  // Integrated gradients' baseline from options {igBaseline: 'auto' | 'zero' | 'token', special: [0 / 1 per id]} and the
  // tokenizer's neutral token; `special` (the tokenization's) when given, else the options'.
  void baseline_arg(const json& opt, size_t n, const std::vector<int>* special, OnnxIgBaseline* b, Err& e) const {
    *b = onnx_ig_baseline_of(tok_.get());
    b->mode = opt.value("igBaseline", std::string("auto"));
    if (special) {
      b->special = *special;
      return;
    }
    if (!opt.contains("special")) return;
    const json& sp = opt["special"];
    if (!sp.is_array() || sp.size() != n) {
      e.fail("special must be an array with one 0 / 1 per id (" + std::to_string(n) + ")");
      return;
    }
    for (const json& x : sp) b->special.push_back(x.is_boolean() ? x.get<bool>() : (x.is_number() && x.get<double>() != 0));
  }

  // Value zeroing / ALTI one layer at a time (the page's job shows progress and can stop between layers); the model
  // runs ids again first, so calls may interleave with others.
  bool mixing_plan(const val& ids, std::vector<int>* v, OnnxMixingPlan* plan, Err& e) {
    std::string err;
    if (ids_arg(ids, v, e) && (!model_.run(*v, &err) || !plan_onnx_mixing(model_, plan, &err))) e.fail(err);
    return e.ok();
  }

  val context_mixing_layer(const val& ids, const val& method, int layer) {
    Err e;
    std::vector<int> v;
    std::string name, err;
    MixingMethod m = MixingMethod::ValueZeroing;
    OnnxMixingPlan plan;
    Mat<double> C;
    if (string_arg(method, "method", &name, e) && !mixing_method_from_name(name, &m)) e.fail("method must be 'value_zeroing' or 'alti'");
    if (mixing_plan(ids, &v, &plan, e) && !onnx_mixing_layer(model_, plan, m, layer, &C, &err)) e.fail(err);
    if (!e.ok()) return error_val(e.message);
    std::vector<double> flat(static_cast<size_t>(C.size()));
    for (Eigen::Index i = 0; i < C.rows(); ++i)
      for (Eigen::Index j = 0; j < C.cols(); ++j) flat[static_cast<size_t>(i * C.cols() + j)] = C(i, j);
    return out_json({{"layer", layer}, {"n", C.rows()}, {"values", flat},
                     {"found", {{"post_norm", plan.stream.post_norm}, {"layer_outputs", plan.stream.layer_outputs}}}});
  }

  val context_mixing_rollout(const val& ids, const val& layers) {
    Err e;
    std::vector<int> v;
    OnnxMixingPlan plan;
    mixing_plan(ids, &v, &plan, e);
    const size_t L = model_.attention().size(), n = static_cast<size_t>(plan.positions);
    if (e.ok() && (!layers.isArray() || layers["length"].as<size_t>() != L)) e.fail("layers must hold one matrix per layer (" + num(L) + ")");
    std::vector<Mat<double>> mats;
    for (size_t l = 0; e.ok() && l < L; ++l) {
      const val m = layers[l];
      if (!m.isArray() || m["length"].as<size_t>() != n * n) {
        e.fail("layers[" + num(l) + "] must hold " + num(n * n) + " values");
        break;
      }
      const std::vector<double> flat = emscripten::convertJSArrayToNumberVector<double>(m);
      mats.push_back(Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(flat.data(), n, n));
    }
    if (!e.ok()) return error_val(e.message);
    return out_json({{"values", nullable_row(onnx_mixing_rollout(model_, plan, mats))}});
  }

  val top(const val& ids, int k) {
    Err e;
    std::vector<int> v;
    std::string err;
    ids_arg(ids, &v, e);
    if (e.ok() && (k < 1 || k > 1000)) e.fail("k must be in 1..1000, got " + std::to_string(k));
    if (e.ok()) fit(&v, nullptr, nullptr, e, /*inference=*/true);  // the logits alone (a causal LM's last position)
    if (!e.ok()) return error_val(e.message);
    return out_json(top_json(model_.logits(), k, v.size()));
  }

  // top()'s answer for the explained position's logits.
  json top_json(const std::vector<float>& logits, int k, size_t ids_used) const {
    json list = json::array();
    for (int id : onnx_text_top_k(logits, k))
      list.push_back({{"id", id}, {"token", model_.causal() ? tok_->id_to_token(id) : label(id)},
                      {"text", model_.causal() ? tok_->decode({id}) : label(id)},
                      {"logit", logits[static_cast<size_t>(id)]}, {"probability", onnx_text_probability(logits, id)}});
    const int greedy = list.empty() ? -1 : list[0]["id"].get<int>();
    return {{"top", list}, {"greedy", greedy}, {"stop", is_stop(greedy)}, {"ids_used", ids_used}};
  }

  val greedy_step(const val& ids) {
    Err e;
    std::vector<int> v;
    std::string err;
    if (ids_arg(ids, &v, e) && !model_.run(v, &err, /*inference=*/true)) e.fail(err);
    if (e.ok() && !model_.causal()) e.fail("a greedy step needs a causal language model; this one is a classifier");
    if (!e.ok()) return error_val(e.message);
    const int id = onnx_text_top_k(model_.logits(), 1).at(0);
    return out_json({{"id", id}, {"token", tok_->id_to_token(id)}, {"text", tok_->decode({id})}, {"stop", is_stop(id)}});
  }

  val attention_maps(const val& ids) {
    Err e;
    std::vector<int> v;
    std::string err;
    ids_arg(ids, &v, e);
    if (e.ok() && model_.attention().empty()) e.fail("no attention was found in this model");
    if (e.ok()) fit(&v, nullptr, nullptr, e);
    val out = val::null();
    if (e.ok()) maps_now(v.size(), &out, nullptr, e);
    return e.ok() ? out : error_val(e.message);
  }

  // attentionMaps' answer from the model's last pass (on `tokens` ids, every value kept). curves (optional): the
  // per-layer flows of that pass already computed (onnx_text_explain's flow_layers: the same maps and flow_from_maps),
  // used instead of computing them again.
  bool maps_now(size_t tokens, val* result, const std::vector<std::vector<double>>* curves, Err& e) const {
    std::string err;
    SelfAttentionMaps maps;
    std::vector<int> token_of;
    int explained = -1;
    std::vector<std::vector<Mat<double>>> A;
    if (!model_.attention_layers(&A, nullptr, &err) || !model_.maps(false, &maps, &token_of, &explained, &err)) return e.fail(err);
    const size_t L = A.size(), H = A[0].size(), n = static_cast<size_t>(A[0][0].rows());
    const size_t off = n - tokens;  // 1: the graph prepends a position
    const size_t e_pos = static_cast<size_t>(explained) + off;
    std::vector<float> data(L * H * n * n), mean(L * n * n), rollout(L * n * n), flow(L * (n - 1), NAN);
    std::vector<Mat<double>> fused;
    // per-layer flow builds graphs of 1, 2, …, L layers
    const bool curves_flow = flow_affordable(static_cast<int>(n), static_cast<int>(L * (L + 1) / 2));
    for (size_t l = 0; l < L; ++l) {
      for (size_t h = 0; h < H; ++h)
        for (size_t i = 0; i < n; ++i)
          for (size_t j = 0; j < n; ++j) data[((l * H + h) * n + i) * n + j] = static_cast<float>(A[l][h](i, j));
      fused.push_back(fuse_heads(A[l], HeadFusion::Mean));
      const Mat<double> r = attention_rollout(fused);
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) {
          mean[(l * n + i) * n + j] = static_cast<float>(fused[l](i, j));
          rollout[(l * n + i) * n + j] = static_cast<float>(r(i, j));
        }
      if (n > 1 && curves_flow) {
        // flow_from_maps reads the maps with the explained position first, the others after it in graph order
        const std::vector<double> f = curves && curves->size() == L ? (*curves)[l]
                                                                    : flow_from_maps(maps, HeadFusion::Mean, static_cast<int>(l) + 1);
        for (size_t k = 0; k < f.size() && k < n - 1; ++k) flow[l * (n - 1) + k] = static_cast<float>(f[k]);
      }
    }
    std::vector<int> graph_token(n, -1);
    for (size_t p = 0; p < n; ++p) graph_token[p] = static_cast<int>(p) - static_cast<int>(off);
    val out = out_json({{"n", n}, {"layers", L}, {"heads", H}, {"explained", e_pos}, {"token_of", graph_token},
                        {"shape", {L, H, n, n}}, {"flow_skipped", !curves_flow}});
    out.set("data", out_array(data));
    out.set("mean", out_array(mean));
    out.set("rollout", out_array(rollout));
    out.set("flow", out_array(flow));
    *result = out;
    return true;
  }

  val decode(const val& ids) const {
    Err e;
    std::vector<int> v;
    if (!ids_arg(ids, &v, e)) return error_val(e.message);
    return val(tok_->decode(v));
  }

  val experiment(const std::string& name, const val& input, const val& options) {
    Err e;
    json opt;
    std::string err;
    const Experiment* ex = find_experiment(name);
    if (!ex) {
      std::string list;
      for (const Experiment& x : experiment_registry())
        if (!x.needs_text_model && !x.needs_other_models && !x.needs_human_rationales) list += (list.empty() ? "" : ", ") + x.name;
      e.fail("unknown experiment '" + name + "'; on this model: " + list);
    }
    object_arg(options, "options", &opt, e);
    json params = json::object();
    uint64_t seed = 1;
    int layer = -1;
    if (e.ok()) {
      params = opt.value("params", json::object());
      if (!params.is_object()) e.fail("options.params must be an object of experiment parameters");
      else e.fail(check_experiment_params(*ex, params));
      const json s = opt.value("seed", json(1));
      if (e.ok() && !s.is_number()) e.fail("seed must be a non-negative integer");
      if (e.ok()) seed_arg(s.get<double>(), &seed, e);
      const json l = opt.value("layer", json(-1));
      const int L = static_cast<int>(model_.attention().size());
      if (e.ok() && (!l.is_number_integer() || l.get<int64_t>() < -1 || l.get<int64_t>() >= std::max(L, 1)))
        e.fail("layer must be −1 (the last) or a found attention layer, 0.." + std::to_string(std::max(L, 1) - 1));
      if (e.ok()) layer = static_cast<int>(l.get<int64_t>());
    }
    Instance in;
    if (e.ok()) {
      Tokenization t;
      if (input.isString()) {
        if (!tok_->encode(input.as<std::string>(), true, &t, &err)) e.fail(err);
      } else if (input.isUndefined() || input.isNull() || input.typeOf().as<std::string>() != "object" || input.isArray()) {
        e.fail("input must be a text or {ids, special}");
      } else {
        ids_arg(input["ids"], &t.ids, e);
        const val sp = input["special"];
        if (e.ok() && !sp.isUndefined() && !sp.isNull()) {
          if (!sp.isArray() || sp["length"].as<size_t>() != t.ids.size())
            e.fail("special must be an array with one 0 / 1 per id (" + num(t.ids.size()) + ")");
          else
            for (size_t i = 0; i < t.ids.size(); ++i) t.special.push_back(sp[i].isTrue() || (sp[i].isNumber() && sp[i].as<double>() != 0) ? 1 : 0);
        }
        if (t.special.empty()) t.special.assign(t.ids.size(), 0);
        for (int id : t.ids) t.tokens.push_back(tok_->id_to_token(id));
      }
      if (e.ok() && t.ids.empty()) e.fail("no tokens to run the experiment on");
      if (e.ok()) in = onnx_text_instance(std::move(t), 0, -1);
    }
    if (!e.ok()) return error_val(e.message);
    OnnxAttentionModel model(model_, layer);
    model.set_ig_baseline_token(tok_ ? neutral_token(*tok_) : -1);
    if (!model.prepare(in.ids, &err)) return error_val(err);
    if (const std::string why = check_experiment_model(*ex, model); !why.empty()) return error_val(why);
    ExperimentOptions o;
    o.seed = seed;
    o.params = params;
    const std::shared_ptr<const void> prepared = ex->prepare ? ex->prepare(model, o) : nullptr;
    return out_json(run_instance(*ex, model, in, o, prepared.get()));
  }

  val pieces(const val& ids) const {
    Err e;
    std::vector<int> v;
    if (!ids_arg(ids, &v, e)) return error_val(e.message);
    json tokens = json::array(), texts = json::array();
    for (int id : v) {
      tokens.push_back(tok_->id_to_token(id));
      texts.push_back(tok_->decode({id}));
    }
    return out_json({{"tokens", tokens}, {"texts", texts}});
  }

 private:
  // info(): what was found (the model ran on a short text in check_onnx_text_pair).
  void describe() {
    std::string err;
    const bool causal = model_.causal();
    json found = json::array();
    int heads = 0;
    std::vector<std::vector<Mat<double>>> A;
    json info = {{"summary", OnnxClassifier::summarize(model_.model())},
                 {"task", causal ? "causal-lm" : "classifier"}, {"causal", causal}, {"output", model_.output_name()},
                 {"outputs", model_.logits().size()}, {"labels", cfg_.labels},
                 {"tokenizer", {{"kind", tok_->kind()}, {"vocab_size", tok_->vocab_size()}}},
                 {"stop_ids", cfg_.stop_ids}, {"model_type", cfg_.model_type}};
    if (!model_.attention().empty()) {
      if (model_.attention_layers(&A, nullptr, &err)) {
        heads = static_cast<int>(A[0].size());
        for (size_t l = 0; l < A.size(); ++l)
          found.push_back({{"layer", model_.attention()[l].layer}, {"softmax", model_.attention()[l].softmax_node},
                           {"heads", A[l].size()}});
      } else {
        info["attention_note"] = err;
      }
    } else {
      info["attention_note"] =
          "no attention was found in this model (a Softmax over the keys whose output multiplies the values): the rows "
          "of the gradient and leave-one-out still run, the attention rows, head view and model view do not";
    }
    info["attention_found"] = found;
    info["layers"] = found.size();
    info["heads"] = heads;
    info_ = info;
    set_max_info();
  }

  void set_max_info() {
    info_["max_positions"] = cfg_.max_positions > 0 ? json(cfg_.max_positions) : json(nullptr);
    info_["max_positions_source"] = cfg_.max_positions_source.empty() ? json(nullptr) : json(cfg_.max_positions_source);
  }

  std::string label(int k) const {
    if (cfg_.labels.is_array() && k >= 0 && static_cast<size_t>(k) < cfg_.labels.size()) return cfg_.labels[static_cast<size_t>(k)];
    return "class " + std::to_string(k);
  }

  bool is_stop(int id) const { return std::find(cfg_.stop_ids.begin(), cfg_.stop_ids.end(), id) != cfg_.stop_ids.end(); }

  // fit_onnx_text_input, and info()'s max_positions kept current (a cut by trial sets them).
  bool fit(std::vector<int>* ids, Tokenization* t, json* cut, Err& e, bool inference = false) {
    std::string err;
    const bool ok = fit_onnx_text_input(model_, &cfg_, ids, t, cut, &err, inference);
    set_max_info();
    return ok || e.fail(err);
  }

  val run_explain(std::vector<int> ids, Tokenization* t, int target, const json& opt, json out) {
    Err e;
    if (!explain_json(std::move(ids), t, target, opt, &out, e)) return error_val(e.message);
    return out_json(out);
  }

  // run_explain's object into *out (flow_layers: with the per-layer flows, for explain_step).
  bool explain_json(std::vector<int> ids, Tokenization* t, int target, const json& opt, json* result, Err& e,
                    bool flow_layers = false) {
    json& out = *result;
    json cut = json(nullptr);
    OnnxTextExplainRequest req;
    req.flow_layers = flow_layers;
    req.leave_one_out = opt.value("leaveOneOut", true);
    req.ig_steps = opt.value("igSteps", 0);
    req.context_mixing = opt.value("contextMixing", false);
    req.attention_layers = opt.value("attentionLayers", true);
    if (req.ig_steps < 0 || req.ig_steps > 10000) e.fail("igSteps must be in 0..10000");
    req.target = target;
    fit(&ids, t, &cut, e);
    if (e.ok()) baseline_arg(opt, ids.size(), t ? &t->special : nullptr, &req.ig_baseline, e);
    if (e.ok() && t && !cut.is_null()) {
      out["tokens"] = t->tokens;
      out["offsets"] = offsets_json(*t);
      out["special"] = t->special;
    }
    req.ids = ids;
    json x;
    std::string err;
    if (e.ok() && !onnx_text_explain(model_, req, &x, &err)) e.fail(err);
    if (!e.ok()) return false;
    out["ids"] = ids;
    out.update(x);
    if (!cut.is_null()) out["truncated"] = cut;
    return true;
  }

  OnnxTextModel model_;
  std::unique_ptr<SubwordTokenizer> tok_;
  OnnxTextConfig cfg_;
  json info_ = json::object();
  std::string error_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(attnlab_onnx_text) {
  emscripten::class_<OnnxTextLab>("_raw_OnnxTextLab")
      .constructor<const val&, const val&, const val&, const val&>()
      .function("error", &OnnxTextLab::error)
      .function("info", &OnnxTextLab::info)
      .function("tokenize", &OnnxTextLab::tokenize)
      .function("explain", &OnnxTextLab::explain)
      .function("explainIds", &OnnxTextLab::explain_ids)
      .function("explainStep", &OnnxTextLab::explain_step)
      .function("leaveOneOut", &OnnxTextLab::leave_one_out)
      .function("integratedGradients", &OnnxTextLab::integrated_gradients)
      .function("contextMixingLayer", &OnnxTextLab::context_mixing_layer)
      .function("contextMixingRollout", &OnnxTextLab::context_mixing_rollout)
      .function("top", &OnnxTextLab::top)
      .function("greedyStep", &OnnxTextLab::greedy_step)
      .function("attentionMaps", &OnnxTextLab::attention_maps)
      .function("decode", &OnnxTextLab::decode)
      .function("pieces", &OnnxTextLab::pieces)
      .function("experiment", &OnnxTextLab::experiment);
}
