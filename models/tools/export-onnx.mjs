#!/usr/bin/env node
// export-onnx.mjs — attnlab text checkpoint → ONNX (the independent reference for the wasm/native core).
//
// Usage:  node models/tools/export-onnx.mjs MODEL_DIR OUT.onnx
//   MODEL_DIR holds config.json (format "attnlab-text-v1") + model.safetensors (F16, F32 or F64), see docs/DESIGN.md.
//
// Contract of the written model (opset 17, IR 8), batch 1, dynamic sequence length T ≥ 1, no padding:
//   input   token_ids      int64   [1, T]   vocabulary ids (index in config.vocab; unknown → 1)
//   output  probability    float32 [1]      sigmoid(logit)            (binary, num_classes ≤ 2 with one logit)
//           probabilities  float32 [1, C]   softmax(logits)           (multi-class, C > 1 logits)
//           attention      float32 [1, T]   attention weights α (softmax over the T tokens; uniform: 1/T)
//           logits         float32 [1, C]   decoder output (C = 1 for binary)
// Math (same as the core): Gather embedding → ONNX LSTM direction "bidirectional" (hidden H; gate rows
// reordered from the checkpoint's PyTorch order i,f,g,o to ONNX's i,o,f,c; the single per-direction bias
// goes into Wb, Rb = 0) → h_t = [h_fwd_t ; h_bwd_t] (2H) → attention
//   tanh: e_t = v·tanh(W1 h_t + b1);  dot: e_t = v·h_t / sqrt(2H);  uniform: α_t = 1/T
// → α = softmax(e) → context = Σ_t α_t h_t → logits = Wd·context + bd.
// F16 weights are widened to float32 exactly (F64 rounded to nearest); everything in the graph is float32.
// Exported functions: readCheckpoint(dir), buildModel(ckpt) → Uint8Array, exportOnnx(dir, out), halfToFloat
// (re-exported from onnx-builder.mjs).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import onnxPkg from 'onnx-proto';
import { node, valueInfo, halfToFloat } from './onnx-builder.mjs';

const { onnx } = onnxPkg;
const DT = onnx.TensorProto.DataType;
export { halfToFloat };

// ---------------------------------------------------------------- safetensors

/** Parses a safetensors buffer → { name: { shape, data: Float32Array } }. */
export function parseSafetensors(buf) {
  const bytes = buf instanceof Uint8Array ? buf : new Uint8Array(buf);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 8) throw new Error('safetensors: file too short');
  const n = Number(dv.getBigUint64(0, true));
  if (8 + n > bytes.byteLength) throw new Error('safetensors: header length beyond file');
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const base = 8 + n;
  const out = {};
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [b, e] = info.data_offsets;
    const count = info.shape.reduce((a, d) => a * d, 1);
    const data = new Float32Array(count);
    if (base + e > bytes.byteLength) throw new Error(`safetensors: ${name} beyond file`);
    if (info.dtype === 'F32') {
      if (e - b !== 4 * count) throw new Error(`safetensors: ${name} size mismatch`);
      for (let i = 0; i < count; i++) data[i] = dv.getFloat32(base + b + 4 * i, true);
    } else if (info.dtype === 'F16') {
      if (e - b !== 2 * count) throw new Error(`safetensors: ${name} size mismatch`);
      for (let i = 0; i < count; i++) data[i] = halfToFloat(dv.getUint16(base + b + 2 * i, true));
    } else if (info.dtype === 'F64') {
      if (e - b !== 8 * count) throw new Error(`safetensors: ${name} size mismatch`);
      for (let i = 0; i < count; i++) data[i] = dv.getFloat64(base + b + 8 * i, true); // rounds to nearest float
    } else {
      throw new Error(`safetensors: ${name} has unsupported dtype ${info.dtype}`);
    }
    out[name] = { shape: info.shape, data };
  }
  return out;
}

/** Reads MODEL_DIR → { config, tensors }. */
export function readCheckpoint(dir) {
  const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  if (config.encoder && config.encoder !== 'bilstm')
    throw new Error(`${dir}: only BiLSTM models export to ONNX (this one has encoder '${config.encoder}')`);
  const tensors = parseSafetensors(fs.readFileSync(path.join(dir, 'model.safetensors')));
  return { config, tensors };
}

// ---------------------------------------------------------------- graph helpers

function tensor(name, dims, data, type = DT.FLOAT) {
  let raw;
  if (type === DT.FLOAT) raw = new Uint8Array(Float32Array.from(data).buffer);
  else if (type === DT.INT64) raw = new Uint8Array(BigInt64Array.from(data, (x) => BigInt(x)).buffer);
  else throw new Error('tensor: unsupported type');
  // raw_data is little-endian; typed arrays are host-endian, and every JS host we run on is little-endian.
  return onnx.TensorProto.create({ name, dims, dataType: type, rawData: raw });
}

function need(tensors, name, shape) {
  const t = tensors[name];
  if (!t) throw new Error(`checkpoint: missing tensor ${name}`);
  if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i])) {
    throw new Error(`checkpoint: ${name} has shape [${t.shape}], expected [${shape}]`);
  }
  return t.data;
}

/** Reorders the 4 gate blocks of a [4H, X] (or [4H]) PyTorch tensor (i,f,g,o) into ONNX order (i,o,f,c). */
function reorderGates(data, H, cols) {
  const out = new Float32Array(data.length);
  const block = H * cols;
  const src = [0, 3, 1, 2]; // ONNX block k takes PyTorch block src[k]: i←i, o←o, f←f, c←g
  for (let k = 0; k < 4; k++) out.set(data.subarray(src[k] * block, (src[k] + 1) * block), k * block);
  return out;
}

// ---------------------------------------------------------------- model

/** Builds the ONNX model for a checkpoint; returns the serialised ModelProto bytes. */
export function buildModel({ config, tensors }) {
  if (config.format !== 'attnlab-text-v1') throw new Error(`config: unknown format ${config.format}`);
  const E = config.embedding_dim, H = config.hidden_dim, kind = config.attention;
  const emb = tensors['embedding.weight'];
  if (!emb || emb.shape.length !== 2 || emb.shape[1] !== E) throw new Error('checkpoint: bad embedding.weight');
  const V = emb.shape[0];
  if (Array.isArray(config.vocab) && config.vocab.length !== V) {
    throw new Error(`config: vocab has ${config.vocab.length} entries, embedding has ${V} rows`);
  }
  const dec = tensors['decoder.weight'];
  if (!dec || dec.shape.length !== 2 || dec.shape[1] !== 2 * H) throw new Error('checkpoint: bad decoder.weight');
  const C = dec.shape[0];

  const init = [];
  const nodes = [];
  const c = (name, dims, data, type) => { init.push(tensor(name, dims, data, type)); return name; };

  // Embedding → [T, 1, E] (LSTM layout 0: seq, batch, feature)
  c('embedding', [V, E], emb.data);
  nodes.push(node('Gather', ['embedding', 'token_ids'], ['embedded'], { axis: 0 }));        // [1,T,E]
  nodes.push(node('Transpose', ['embedded'], ['lstm_x'], { perm: [1, 0, 2] }));            // [T,1,E]

  // Bidirectional LSTM
  const W = new Float32Array(2 * 4 * H * E), R = new Float32Array(2 * 4 * H * H), B = new Float32Array(2 * 8 * H);
  ['forward', 'backward'].forEach((dir, d) => {
    W.set(reorderGates(need(tensors, `encoder.${dir}.weight_ih`, [4 * H, E]), H, E), d * 4 * H * E);
    R.set(reorderGates(need(tensors, `encoder.${dir}.weight_hh`, [4 * H, H]), H, H), d * 4 * H * H);
    B.set(reorderGates(need(tensors, `encoder.${dir}.bias`, [4 * H]), H, 1), d * 8 * H); // Wb; Rb stays 0
  });
  c('lstm_W', [2, 4 * H, E], W);
  c('lstm_R', [2, 4 * H, H], R);
  c('lstm_B', [2, 8 * H], B);
  nodes.push(node('LSTM', ['lstm_x', 'lstm_W', 'lstm_R', 'lstm_B'], ['lstm_y'],
    { direction: 'bidirectional', hidden_size: H }));                                     // [T,2,1,H]
  nodes.push(node('Transpose', ['lstm_y'], ['lstm_y_t'], { perm: [2, 0, 1, 3] }));         // [1,T,2,H]
  c('shape_1_T_2H', [3], [1, -1, 2 * H], DT.INT64);
  nodes.push(node('Reshape', ['lstm_y_t', 'shape_1_T_2H'], ['hidden']));                    // [1,T,2H] = [fwd;bwd]

  // Attention scores → α
  if (kind !== 'uniform') c('shape_1_T', [2], [1, -1], DT.INT64);
  if (kind === 'tanh') {
    const w1 = need(tensors, 'attention.w1.weight', [H, 2 * H]);
    const w1T = new Float32Array(2 * H * H);
    for (let i = 0; i < H; i++) for (let j = 0; j < 2 * H; j++) w1T[j * H + i] = w1[i * 2 * H + j];
    c('att_w1_t', [2 * H, H], w1T);
    c('att_b1', [H], need(tensors, 'attention.w1.bias', [H]));
    c('att_v_t', [H, 1], need(tensors, 'attention.v.weight', [1, H]));
    nodes.push(node('MatMul', ['hidden', 'att_w1_t'], ['att_pre0']));                      // [1,T,H]
    nodes.push(node('Add', ['att_pre0', 'att_b1'], ['att_pre']));
    nodes.push(node('Tanh', ['att_pre'], ['att_act']));
    nodes.push(node('MatMul', ['att_act', 'att_v_t'], ['att_e3']));                        // [1,T,1]
    nodes.push(node('Reshape', ['att_e3', 'shape_1_T'], ['att_scores']));                  // [1,T]
  } else if (kind === 'dot') {
    c('att_v_t', [2 * H, 1], need(tensors, 'attention.v.weight', [1, 2 * H]));
    c('att_scale', [], [Math.sqrt(2 * H)]);
    nodes.push(node('MatMul', ['hidden', 'att_v_t'], ['att_e3']));                         // [1,T,1]
    nodes.push(node('Reshape', ['att_e3', 'shape_1_T'], ['att_e']));
    nodes.push(node('Div', ['att_e', 'att_scale'], ['att_scores']));                       // [1,T]
  } else if (kind === 'uniform') {
    nodes.push(node('Shape', ['token_ids'], ['ids_shape']));
    nodes.push(node('ConstantOfShape', ['ids_shape'], ['att_scores'],
      { value: tensor('zero', [1], [0]) }));                                               // [1,T] zeros
  } else {
    throw new Error(`config: unknown attention ${kind}`);
  }
  nodes.push(node('Softmax', ['att_scores'], ['attention'], { axis: -1 }));                // [1,T]

  // Context and decoder
  c('shape_1_1_T', [3], [1, 1, -1], DT.INT64);
  c('shape_1_2H', [2], [1, 2 * H], DT.INT64);
  nodes.push(node('Reshape', ['attention', 'shape_1_1_T'], ['att_row']));                  // [1,1,T]
  nodes.push(node('MatMul', ['att_row', 'hidden'], ['context3']));                         // [1,1,2H]
  nodes.push(node('Reshape', ['context3', 'shape_1_2H'], ['context']));                    // [1,2H]
  c('dec_w', [C, 2 * H], dec.data);
  c('dec_b', [C], need(tensors, 'decoder.bias', [C]));
  nodes.push(node('Gemm', ['context', 'dec_w', 'dec_b'], ['logits'], { transB: 1 }));      // [1,C]

  const outputs = [];
  if (C === 1) {
    c('shape_1', [1], [1], DT.INT64);
    nodes.push(node('Sigmoid', ['logits'], ['prob2']));
    nodes.push(node('Reshape', ['prob2', 'shape_1'], ['probability']));                    // [1]
    outputs.push(valueInfo('probability', DT.FLOAT, [1]));
  } else {
    nodes.push(node('Softmax', ['logits'], ['probabilities'], { axis: -1 }));              // [1,C]
    outputs.push(valueInfo('probabilities', DT.FLOAT, [1, C]));
  }
  outputs.push(valueInfo('attention', DT.FLOAT, [1, 'T']));
  outputs.push(valueInfo('logits', DT.FLOAT, [1, C]));

  const graph = onnx.GraphProto.create({
    name: `attnlab_text_${kind}`,
    node: nodes,
    initializer: init,
    input: [valueInfo('token_ids', DT.INT64, [1, 'T'])],
    output: outputs,
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    producerName: 'attnlab export-onnx.mjs',
    producerVersion: '1',
    docString: `attnlab text model (${kind} attention, E=${E}, H=${H}, V=${V}, C=${C}); see docs/DESIGN.md`,
    graph,
  });
  return onnx.ModelProto.encode(model).finish();
}

export function exportOnnx(modelDir, outPath) {
  const bytes = buildModel(readCheckpoint(modelDir));
  fs.writeFileSync(outPath, bytes);
  return bytes.byteLength;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, out] = process.argv.slice(2);
  if (!dir || !out) {
    console.error('usage: node models/tools/export-onnx.mjs MODEL_DIR OUT.onnx');
    process.exit(2);
  }
  try {
    const n = exportOnnx(dir, out);
    console.log(`wrote ${out} (${n} bytes)`);
  } catch (e) {
    console.error(`export-onnx: ${e.message}`);
    process.exit(1);
  }
}
