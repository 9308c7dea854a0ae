#!/usr/bin/env node
// llama2c-to-onnx.mjs — a llama2.c "v0" checkpoint (e.g. Karpathy's stories260K.bin) → a standard ONNX causal-LM graph.
//
// Usage:  node models/tools/llama2c-to-onnx.mjs --bin stories260K.bin [--tokenizer tok512.bin] --out DIR
//         → DIR/model.onnx, DIR/tokenizer.bin (a byte copy of --tokenizer) and DIR/manifest.json (files with bytes and
//           sha256, architecture, operator counts, provenance). An existing DIR/manifest.json keeps its `metrics`
//           (written by models/tools/check-stories260k.mjs).
//
// Contract of the written model (opset 17, IR 8, float32 initializers; deterministic: the same .bin gives the same bytes):
//   input   input_ids  INT64 [batch, sequence]        token ids, BOS = 1 first, sequence ≤ seq_len of the checkpoint
//   output  logits     FLOAT [batch, sequence, vocab] next-token logits at every position
//   (batch is free: every Reshape copies the leading dimensions (0), the tables broadcast; so several sequences of one
//   length run in one pass — attnlab's leave-one-out runs its deletions so. The math below is written for batch 1.)
// Math (llama2.c run.c's forward, all positions at once):
//   x = Gather(tok_embeddings, input_ids)
//   per layer:  h = rmsnorm(x, rms_att)      rmsnorm(x, w) = w · x / sqrt(mean(x²) + 1e-5)  (Pow, ReduceMean axes=[-1], Add, Sqrt, Div, Mul)
//               q = h·Wqᵀ, k = h·Wkᵀ, v = h·Wvᵀ (MatMul, weights stored transposed [in, out]) → [1, heads, T, head_dim]
//               rotary: x·cos + (x·R)·sin with R the [hd, hd] matrix rotating each adjacent pair (2i, 2i+1), cos/sin the
//               constant tables [seq_len, hd] (θ = 10000, frequency of pair i = θ^(−2i/hd), each value repeated for the
//               pair) sliced to the first T rows; applied to q and to k before k is shared.
//               grouped-query attention: K and V heads repeated by Gather on the head axis (query head h uses KV head
//               h / (heads / kv_heads)); scores = q·kᵀ / sqrt(hd) + mask; probs = Softmax(axis = -1) over the key axis;
//               probs feeds MatMul(probs, v) directly (the attention a later tool finds); heads merged; x += ·Woᵀ
//               h = rmsnorm(x, rms_ffn); x += (silu(h·W1ᵀ) * (h·W3ᵀ))·W2ᵀ, silu(a) = a · Sigmoid(a)
//   logits = rmsnorm(x, rms_final) · Transpose(tok_embeddings)   (tied: the one embedding initializer, transposed in the graph)
// Causal mask: built in the graph from one constant position vector p = [0 … seq_len−1] (float) instead of a stored
// [seq_len, seq_len] table (1 MB for seq_len 512): pos = p[:T]; mask = Clip(pos[None, :] − pos[:, None], 0, 1) · (−1e9)
// — 0 where key ≤ query, −1e9 after it (exp underflows to exactly 0). Operators used: Gather, Shape, Slice, Unsqueeze,
// Sub, Clip, Mul, Pow, ReduceMean, Add, Sqrt, Div, MatMul, Reshape, Transpose, Softmax, Sigmoid — all implemented by the
// core's executor (core/onnx/ops) and by onnxruntime.
// Exported: readLlama2c(bytes) → {config, weights}, convert(binBytes) → {onnx: Uint8Array, info}, opCounts(nodes).

import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import onnxPkg from 'onnx-proto';
import { node, valueInfo } from './onnx-builder.mjs';

const { onnx } = onnxPkg;
const DT = onnx.TensorProto.DataType;
const sha256 = (b) => createHash('sha256').update(b).digest('hex');

/** llama2.c v0 checkpoint bytes → config + Float32Array views of every weight (matrices [out, in]). */
export function readLlama2c(bytes) {
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  if (buf.byteLength < 28) throw new Error('llama2.c checkpoint: shorter than its 28-byte header');
  const h = new Int32Array(buf, 0, 7);
  const [dim, hidden, layers, heads, kvHeads, vocabSigned, seqLen] = h;
  const shared = vocabSigned > 0, vocab = Math.abs(vocabSigned);
  if (!(dim > 0 && hidden > 0 && layers > 0 && heads > 0 && kvHeads > 0 && vocab > 0 && seqLen > 0))
    throw new Error(`llama2.c checkpoint: bad header [${[...h]}]`);
  if (dim % heads || heads % kvHeads || (dim / heads) % 2) throw new Error(`llama2.c checkpoint: dim ${dim} / heads ${heads} / kv_heads ${kvHeads} do not divide`);
  const hd = dim / heads, kvDim = kvHeads * hd;
  const f = new Float32Array(buf, 28, Math.floor((buf.byteLength - 28) / 4));
  let p = 0;
  const take = (n) => { if (p + n > f.length) throw new Error('llama2.c checkpoint: truncated'); const v = f.subarray(p, p + n); p += n; return v; };
  const w = {};
  w.tok_embeddings = take(vocab * dim);
  w.rms_att = take(layers * dim);
  w.wq = take(layers * dim * dim);
  w.wk = take(layers * kvDim * dim);
  w.wv = take(layers * kvDim * dim);
  w.wo = take(layers * dim * dim);
  w.rms_ffn = take(layers * dim);
  w.w1 = take(layers * hidden * dim);
  w.w2 = take(layers * dim * hidden);
  w.w3 = take(layers * hidden * dim);
  w.rms_final = take(dim);
  w.freq_cis_real = take(seqLen * hd / 2);
  w.freq_cis_imag = take(seqLen * hd / 2);
  w.wcls = shared ? w.tok_embeddings : take(vocab * dim);
  if (p !== f.length || (buf.byteLength - 28) % 4) throw new Error(`llama2.c checkpoint: ${buf.byteLength - 28 - 4 * p} bytes left after the weights`);
  return { config: { dim, hidden, layers, heads, kvHeads, vocab, seqLen, shared, headDim: hd, kvDim, eps: 1e-5, theta: 10000 }, weights: w };
}

/** The rotary tables as run.c computes them (float32 math): [seqLen, hd] with each pair's value repeated. */
export function ropeTables(seqLen, hd, theta = 10000) {
  const F = Math.fround;
  const cos = new Float32Array(seqLen * hd), sin = new Float32Array(seqLen * hd);
  for (let pos = 0; pos < seqLen; pos++)
    for (let i = 0; i < hd; i += 2) {
      const freq = F(1 / F(Math.pow(theta, F(i / hd))));
      const val = F(pos * freq);
      cos[pos * hd + i] = cos[pos * hd + i + 1] = Math.cos(val);
      sin[pos * hd + i] = sin[pos * hd + i + 1] = Math.sin(val);
    }
  return { cos, sin };
}

/** [out, in] row-major → [in, out]. */
function transposed(m, rows, cols) {
  const t = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) t[c * rows + r] = m[r * cols + c];
  return t;
}

function tensorProto(name, dims, data, type = DT.FLOAT) {
  let raw;
  if (type === DT.FLOAT) raw = new Uint8Array(Float32Array.from(data).buffer);
  else if (type === DT.INT64) raw = new Uint8Array(BigInt64Array.from(data, (x) => BigInt(x)).buffer);
  else throw new Error('tensorProto: unsupported type');
  return onnx.TensorProto.create({ name, dims, dataType: type, rawData: raw });
}

export function opCounts(nodes) {
  const c = {};
  for (const n of nodes) c[n.opType] = (c[n.opType] ?? 0) + 1;
  return Object.fromEntries(Object.entries(c).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)));
}

/**
 * @param {Uint8Array} binBytes  the llama2.c checkpoint
 * @returns {{onnx: Uint8Array, info: object}}
 */
export function convert(binBytes) {
  const { config: C, weights: W } = readLlama2c(binBytes);
  const { dim: D, hidden: Hd, layers: L, heads: H, kvHeads: KV, vocab: V, seqLen: S, headDim: hd, kvDim } = C;
  const nodes = [], init = [];
  const c = (name, dims, data, type = DT.FLOAT) => { init.push(tensorProto(name, dims, data, type)); return name; };
  const n = (op, inputs, output, attrs = {}) => { nodes.push(node(op, inputs, [output], attrs)); return output; };
  const slice = (arr, l, size) => arr.subarray(l * size, (l + 1) * size);

  // shared constants
  c('tok_embeddings', [V, D], W.tok_embeddings);
  c('two', [], [2]);
  c('rms_eps', [], [C.eps]);
  c('attn_scale', [], [Math.sqrt(hd)]);
  c('mask_min', [], [0]);
  c('mask_max', [], [1]);
  c('mask_value', [], [-1e9]);
  const { cos, sin } = ropeTables(S, hd, C.theta);
  c('rope_cos_table', [S, hd], cos);
  c('rope_sin_table', [S, hd], sin);
  const R = new Float32Array(hd * hd); // (x·R)[2i] = −x[2i+1], (x·R)[2i+1] = x[2i]
  for (let i = 0; i < hd; i += 2) { R[(i + 1) * hd + i] = -1; R[i * hd + i + 1] = 1; }
  c('rope_rotate', [hd, hd], R);
  c('positions_table', [S], Float32Array.from({ length: S }, (_, i) => i));
  c('kv_head_index', [H], Array.from({ length: H }, (_, h) => Math.floor(h / (H / KV))), DT.INT64);
  c('i64_0', [1], [0], DT.INT64);
  c('i64_1', [1], [1], DT.INT64);
  c('q_shape', [4], [0, 0, H, hd], DT.INT64);
  c('kv_shape', [4], [0, 0, KV, hd], DT.INT64);
  c('merged_shape', [3], [0, 0, D], DT.INT64);

  // sequence length T → rotary tables [T, hd] and the causal mask [T, T]
  n('Shape', ['input_ids'], 'ids_shape');
  n('Gather', ['ids_shape', 'i64_1'], 'seq_len', { axis: 0 });
  n('Slice', ['rope_cos_table', 'i64_0', 'seq_len', 'i64_0'], 'rope_cos');
  n('Slice', ['rope_sin_table', 'i64_0', 'seq_len', 'i64_0'], 'rope_sin');
  n('Slice', ['positions_table', 'i64_0', 'seq_len', 'i64_0'], 'positions');
  n('Unsqueeze', ['positions', 'i64_1'], 'query_positions'); // [T, 1]
  n('Unsqueeze', ['positions', 'i64_0'], 'key_positions');   // [1, T]
  n('Sub', ['key_positions', 'query_positions'], 'key_after_query');
  n('Clip', ['key_after_query', 'mask_min', 'mask_max'], 'future_key');
  n('Mul', ['future_key', 'mask_value'], 'causal_mask');

  const rmsnorm = (x, w, out) => {
    n('Pow', [x, 'two'], `${out}_sq`);
    n('ReduceMean', [`${out}_sq`], `${out}_ms`, { axes: [-1], keepdims: 1 });
    n('Add', [`${out}_ms`, 'rms_eps'], `${out}_ms_eps`);
    n('Sqrt', [`${out}_ms_eps`], `${out}_rms`);
    n('Div', [x, `${out}_rms`], `${out}_unit`);
    return n('Mul', [`${out}_unit`, w], out);
  };
  const rope = (x, out) => { // x [1, heads, T, hd]
    n('Mul', [x, 'rope_cos'], `${out}_cos`);
    n('MatMul', [x, 'rope_rotate'], `${out}_rot`);
    n('Mul', [`${out}_rot`, 'rope_sin'], `${out}_sin`);
    return n('Add', [`${out}_cos`, `${out}_sin`], out);
  };

  let x = n('Gather', ['tok_embeddings', 'input_ids'], 'embeddings', { axis: 0 }); // [1, T, D]
  for (let l = 0; l < L; l++) {
    const p = `layer${l}`;
    c(`${p}.rms_att`, [D], slice(W.rms_att, l, D));
    c(`${p}.wq`, [D, D], transposed(slice(W.wq, l, D * D), D, D));
    c(`${p}.wk`, [D, kvDim], transposed(slice(W.wk, l, kvDim * D), kvDim, D));
    c(`${p}.wv`, [D, kvDim], transposed(slice(W.wv, l, kvDim * D), kvDim, D));
    c(`${p}.wo`, [D, D], transposed(slice(W.wo, l, D * D), D, D));
    c(`${p}.rms_ffn`, [D], slice(W.rms_ffn, l, D));
    c(`${p}.w1`, [D, Hd], transposed(slice(W.w1, l, Hd * D), Hd, D));
    c(`${p}.w2`, [Hd, D], transposed(slice(W.w2, l, D * Hd), D, Hd));
    c(`${p}.w3`, [D, Hd], transposed(slice(W.w3, l, Hd * D), Hd, D));

    const h = rmsnorm(x, `${p}.rms_att`, `${p}_attn_norm`);
    n('MatMul', [h, `${p}.wq`], `${p}_q_flat`);
    n('MatMul', [h, `${p}.wk`], `${p}_k_flat`);
    n('MatMul', [h, `${p}.wv`], `${p}_v_flat`);
    n('Reshape', [`${p}_q_flat`, 'q_shape'], `${p}_q_split`);
    n('Reshape', [`${p}_k_flat`, 'kv_shape'], `${p}_k_split`);
    n('Reshape', [`${p}_v_flat`, 'kv_shape'], `${p}_v_split`);
    n('Transpose', [`${p}_q_split`], `${p}_q_heads`, { perm: [0, 2, 1, 3] });  // [1, H, T, hd]
    n('Transpose', [`${p}_k_split`], `${p}_k_heads`, { perm: [0, 2, 1, 3] });  // [1, KV, T, hd]
    n('Transpose', [`${p}_v_split`], `${p}_v_heads`, { perm: [0, 2, 1, 3] });
    const q = rope(`${p}_q_heads`, `${p}_q`);
    const kr = rope(`${p}_k_heads`, `${p}_k_rotated`);
    const k = n('Gather', [kr, 'kv_head_index'], `${p}_k`, { axis: 1 });            // [1, H, T, hd]
    const v = n('Gather', [`${p}_v_heads`, 'kv_head_index'], `${p}_v`, { axis: 1 });
    n('Transpose', [k], `${p}_k_t`, { perm: [0, 1, 3, 2] });                         // [1, H, hd, T]
    n('MatMul', [q, `${p}_k_t`], `${p}_scores_raw`);                                 // [1, H, T, T]
    n('Div', [`${p}_scores_raw`, 'attn_scale'], `${p}_scores`);
    n('Add', [`${p}_scores`, 'causal_mask'], `${p}_scores_masked`);
    n('Softmax', [`${p}_scores_masked`], `${p}_attention`, { axis: -1 });
    n('MatMul', [`${p}_attention`, v], `${p}_context_heads`);                        // [1, H, T, hd]
    n('Transpose', [`${p}_context_heads`], `${p}_context_split`, { perm: [0, 2, 1, 3] });
    n('Reshape', [`${p}_context_split`, 'merged_shape'], `${p}_context`);
    n('MatMul', [`${p}_context`, `${p}.wo`], `${p}_attn_out`);
    x = n('Add', [x, `${p}_attn_out`], `${p}_resid_attn`);

    const g = rmsnorm(x, `${p}.rms_ffn`, `${p}_ffn_norm`);
    n('MatMul', [g, `${p}.w1`], `${p}_gate`);
    n('Sigmoid', [`${p}_gate`], `${p}_gate_sigmoid`);
    n('Mul', [`${p}_gate`, `${p}_gate_sigmoid`], `${p}_gate_silu`);
    n('MatMul', [g, `${p}.w3`], `${p}_up`);
    n('Mul', [`${p}_gate_silu`, `${p}_up`], `${p}_ffn_hidden`);
    n('MatMul', [`${p}_ffn_hidden`, `${p}.w2`], `${p}_ffn_out`);
    x = n('Add', [x, `${p}_ffn_out`], `${p}_out`);
  }
  c('rms_final', [D], W.rms_final);
  const xf = rmsnorm(x, 'rms_final', 'final_norm');
  let cls = 'classifier';
  if (C.shared) n('Transpose', ['tok_embeddings'], 'classifier', { perm: [1, 0] });
  else c('classifier', [D, V], transposed(W.wcls, V, D));
  n('MatMul', [xf, cls], 'logits');

  const graph = onnx.GraphProto.create({
    name: 'llama2c',
    node: nodes,
    initializer: init,
    input: [valueInfo('input_ids', DT.INT64, ['batch', 'sequence'])],
    output: [valueInfo('logits', DT.FLOAT, ['batch', 'sequence', V])],
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    producerName: 'attnlab llama2c-to-onnx.mjs',
    producerVersion: '1',
    graph,
  });
  const bytes = onnx.ModelProto.encode(model).finish();
  const params = init.reduce((s, t) => s + (t.dataType === DT.FLOAT ? t.dims.reduce((a, b) => a * Number(b), 1) : 0), 0);
  return { onnx: bytes, info: { config: C, nodes: nodes.length, ops: opCounts(nodes), initializers: init.length, float_values: params } };
}

// ---------------------------------------------------------------- command line

function main(argv) {
  const a = {};
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i], v = () => { if (i + 1 >= argv.length) throw new Error(`${k} needs a value`); return argv[++i]; };
    if (k === '--bin') a.bin = v();
    else if (k === '--tokenizer') a.tokenizer = v();
    else if (k === '--out') a.out = v();
    else throw new Error(`unknown argument ${k}`);
  }
  if (!a.bin || !a.out) throw new Error('usage: llama2c-to-onnx.mjs --bin CHECKPOINT.bin [--tokenizer tok.bin] --out DIR');
  const bin = new Uint8Array(fs.readFileSync(a.bin));
  const { onnx: bytes, info } = convert(bin);
  fs.mkdirSync(a.out, { recursive: true });
  fs.writeFileSync(path.join(a.out, 'model.onnx'), bytes);
  const files = { model: { path: 'model.onnx', bytes: bytes.length, sha256: sha256(bytes) } };
  let tok;
  if (a.tokenizer) {
    tok = fs.readFileSync(a.tokenizer);
    fs.writeFileSync(path.join(a.out, 'tokenizer.bin'), tok);
    files.tokenizer = { path: 'tokenizer.bin', bytes: tok.length, sha256: sha256(tok) };
  }
  const manifestPath = path.join(a.out, 'manifest.json');
  let metrics;
  if (fs.existsSync(manifestPath)) { try { metrics = JSON.parse(fs.readFileSync(manifestPath, 'utf8')).models?.[0]?.metrics; } catch { /* rewritten below */ } }
  const C = info.config;
  const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const rel = (p) => path.relative(repoRoot, path.resolve(p)) || '.';
  const entry = {
    name: path.basename(path.resolve(a.out)),
    kind: 'causal-lm',
    format: 'onnx',
    description: 'Karpathy\'s stories260K (tinyllamas, llama2.c): a Llama-2-architecture causal LM trained on TinyStories, converted to an ONNX graph',
    files,
    input: { name: 'input_ids', dtype: 'int64', shape: ['batch', 'sequence'], description: `token ids of tokenizer.bin (llama2.c BPE), BOS = 1 first, at most ${C.seqLen} positions` },
    outputs: { logits: { dtype: 'float32', shape: ['batch', 'sequence', C.vocab], description: 'next-token logits at every position' } },
    architecture: {
      dim: C.dim, hidden_dim: C.hidden, layers: C.layers, heads: C.heads, kv_heads: C.kvHeads, head_dim: C.headDim,
      vocab_size: C.vocab, max_seq_len: C.seqLen, norm: 'RMSNorm, eps 1e-5', positions: 'rotary, θ = 10000, adjacent pairs (2i, 2i+1) of each head',
      attention: `grouped-query: query head h uses KV head floor(h / ${C.heads / C.kvHeads}); Softmax(axis = -1) over the keys, causal`,
      ffn: 'SwiGLU w2(silu(w1 x) · w3 x)', classifier: C.shared ? 'tied to tok_embeddings' : 'separate',
    },
    parameters: (C.vocab * C.dim + C.layers * (2 * C.dim + 2 * C.dim * C.dim + 2 * C.kvDim * C.dim + 3 * C.dim * C.hidden) + C.dim + (C.shared ? 0 : C.vocab * C.dim)),
    graph: { opset: 17, ir_version: 8, nodes: info.nodes, operators: info.ops, initializers: info.initializers, float_values_stored: info.float_values, storage: 'float32' },
    special_tokens: { unk: 0, bos: 1, eos: 2 },
    ...(metrics ? { metrics } : {}),
    provenance: {
      source: {
        name: 'stories260K (tinyllamas), Andrej Karpathy, llama2.c',
        license: 'MIT',
        copy: 'DaveBben/esp32-llm commit 934dab4d, data/stories260K.bin and data/tok512.bin (../shared/data/stories260K/README)',
        checkpoint: { file: path.basename(a.bin), bytes: bin.length, sha256: sha256(bin) },
        ...(tok ? { tokenizer: { file: path.basename(a.tokenizer), bytes: tok.length, sha256: sha256(tok) } } : {}),
      },
      converter: `node models/tools/llama2c-to-onnx.mjs --bin ${rel(a.bin)}${a.tokenizer ? ` --tokenizer ${rel(a.tokenizer)}` : ''} --out ${rel(a.out)}`,
      checks: 'node models/tools/check-stories260k.mjs (metrics); tests/node/stories260k.test.mjs; tests/core/test_stories260k.cpp',
    },
  };
  fs.writeFileSync(manifestPath, JSON.stringify({ format: 'attnlab-onnx-models-v1', models: [entry] }, null, 2) + '\n');
  console.log(JSON.stringify({ out: a.out, bytes: bytes.length, sha256: files.model.sha256, nodes: info.nodes, ops: info.ops }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try { main(process.argv.slice(2)); } catch (e) { console.error(`llama2c-to-onnx: ${e.message}`); process.exit(1); }
}
