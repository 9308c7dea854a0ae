// The residual stream of a transformer graph, found from its structure (nothing declared): after a forward pass, the
// value that holds each found attention layer's block output, and the residual Add around each attention — what value
// zeroing and ALTI read (onnx_text/onnx_context_mixing.h).
//   A residual Add is Add(x, f(x)) where x is a runtime value and f(x) reaches back to x through a MatMul / Gemm (a
//   sublayer); the attention's residual Add of layer l is the first one after its Softmax whose f(x) depends on that
//   distribution and whose x does not. Block l's output is then:
//     l below the last: the x of layer l + 1's attention residual Add — what the next block reads and adds to, in a
//       pre-LN graph (GPT-2, Llama, ViT, attnlab's exporter: the sum x + FFN(LN(x))) and a post-LN one (BERT,
//       RoBERTa: LN(x + FFN(x))) alike;
//     the last layer: its last residual Add (the FFN's; the attention's when it has no FFN); in a post-LN graph that
//       Add followed through the LayerNorm after it: the last value of the Add's shape that every path from it to the
//       output passes (so BERT's last output is its LayerNorm's, as for the other layers). A pre-LN graph's final
//       norm is not part of the block (the core's transformer: the same).
//   Post-LN: the first attention's x feeds a MatMul / Gemm directly (a pre-LN block normalises it first).
// Batch 1. False, with a message, when a layer's residual Add is not found (a graph without residual connections).
#pragma once
#include <string>
#include <vector>

#include "onnx/attention_finder.h"
#include "onnx/executor.h"

namespace attnlab {

struct ResidualAdd {
  std::string skip;    // x: the stream entering the sublayer
  std::string branch;  // f(x): the sublayer's output (the attention's: its output projection, bias included)
  std::string sum;     // x + f(x)
};

struct ResidualStream {
  std::vector<std::string> layer_outputs;  // [layer]: the value holding that block's output
  std::vector<ResidualAdd> attention;      // [layer]: the residual Add around that layer's attention
  bool post_norm = false;                  // the graph normalises after each sublayer (BERT) instead of before
};

// The graph walks are bounded: at most `budget` steps in all (a hostile graph of many Adds and layers is refused with a
// message instead of walking for minutes); real transformers need a few thousand.
constexpr long kResidualStreamBudget = 2'000'000;
bool find_residual_stream(const onnx::Executor<float>& ex, const std::vector<onnx::FoundAttention>& found,
                          const std::string& output, ResidualStream* out, std::string* error,
                          long budget = kResidualStreamBudget);

}  // namespace attnlab
