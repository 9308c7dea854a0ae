#!/usr/bin/env node
// export-transformer-onnx.mjs — attnlab transformer text checkpoint (encoder "transformer") → ONNX, the
// independent reference for the core's transformer (beside export-onnx.mjs for the BiLSTMs).
//
// Usage:  node models/tools/export-transformer-onnx.mjs MODEL_DIR OUT.onnx
//
// Contract of the written model (opset 17, IR 8), batch 1, dynamic length T (1 ≤ T ≤ max_len; cut longer inputs
// first, as the core does), no padding:
//   input   token_ids        int64   [1, T]
//   output  probability      float32 [1]          sigmoid(logit) (binary) | probabilities [1, C] (multi-class)
//           logits           float32 [1, C]
//           attention        float32 [1, T]       the last layer's [CLS] row over the tokens, head-averaged,
//                                                 renormalised to sum 1 (the core's "attention")
//           attention_layerL float32 [1, H, T+1, T+1] for L = 0..layers-1: every head's probabilities,
//                                                 row = query, column = key, [CLS] first
// Math (docs/DESIGN.md "Transformer encoder"): h0 = [cls ; E[ids]] + position[0..T]; per block
// h += Wo·concat_h(softmax(Q_h K_hᵀ/√dk) V_h) + bo on LN1(h) (uniform: softmax of zeros), h += W2·GELU(W1·LN2(h)
// + b1) + b2 (GELU = 0.5·x·(1 + erf(x/√2))); z = LN_final(h[CLS]); logits = Wd z + bd. LayerNormalization
// eps 1e-5. F16 weights are widened exactly; everything in the graph is float32.
// Exported: buildTransformerModel(ckpt) → Uint8Array, readTransformerCheckpoint(dir), exportTransformerOnnx(dir, out).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import onnxPkg from 'onnx-proto';
import { node, valueInfo } from './onnx-builder.mjs';
import { parseSafetensors } from './export-onnx.mjs';

const { onnx } = onnxPkg;
const DT = onnx.TensorProto.DataType;

export function readTransformerCheckpoint(dir) {
  const config = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  if (config.encoder !== 'transformer') throw new Error(`${dir}: not a transformer (encoder '${config.encoder ?? 'bilstm'}')`);
  return { config, tensors: parseSafetensors(fs.readFileSync(path.join(dir, 'model.safetensors'))) };
}

function tensor(name, dims, data, type = DT.FLOAT) {
  let raw;
  if (type === DT.FLOAT) raw = new Uint8Array(Float32Array.from(data).buffer);
  else if (type === DT.INT64) raw = new Uint8Array(BigInt64Array.from(data, (x) => BigInt(x)).buffer);
  else throw new Error('tensor: unsupported type');
  return onnx.TensorProto.create({ name, dims, dataType: type, rawData: raw });
}

function need(tensors, name, shape) {
  const t = tensors[name];
  if (!t) throw new Error(`checkpoint: missing tensor ${name}`);
  if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i]))
    throw new Error(`checkpoint: ${name} has shape [${t.shape}], expected [${shape}]`);
  return t.data;
}

function transpose(data, rows, cols) {  // row-major [rows, cols] → [cols, rows]
  const out = new Float32Array(rows * cols);
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = data[i * cols + j];
  return out;
}

export function buildTransformerModel({ config, tensors }) {
  if (config.format !== 'attnlab-text-v1') throw new Error(`config: unknown format ${config.format}`);
  const d = config.embedding_dim, H = config.heads, F = config.ffn_dim, L = config.layers, P = config.max_len + 1;
  if (d % H !== 0) throw new Error(`config: heads ${H} do not divide embedding_dim ${d}`);
  const dk = d / H;
  const emb = tensors['embedding.weight'];
  if (!emb || emb.shape.length !== 2 || emb.shape[1] !== d) throw new Error('checkpoint: bad embedding.weight');
  const V = emb.shape[0];
  const dec = tensors['decoder.weight'];
  if (!dec || dec.shape.length !== 2 || dec.shape[1] !== d) throw new Error('checkpoint: bad decoder.weight');
  const C = dec.shape[0];
  const uniform = config.attention === 'uniform';

  const init = [];
  const nodes = [];
  const c = (name, dims, data, type) => { init.push(tensor(name, dims, data, type)); return name; };
  const n = (op, ins, outs, attrs) => { nodes.push(node(op, ins, outs, attrs)); return outs[0]; };

  c('embedding', [V, d], emb.data);
  c('cls', [1, 1, d], need(tensors, 'transformer.cls', [d]));
  c('position', [P, d], need(tensors, 'transformer.position.weight', [P, d]));
  c('i0', [1], [0], DT.INT64);
  c('i1', [1], [1], DT.INT64);
  n('Gather', ['embedding', 'token_ids'], ['embedded'], { axis: 0 });                       // [1,T,d]
  n('Concat', ['cls', 'embedded'], ['x_tokens'], { axis: 1 });                              // [1,T+1,d]
  n('Shape', ['x_tokens'], ['x_shape']);
  n('Gather', ['x_shape', 'i1'], ['n_positions'], { axis: 0 });                             // [1] = T+1
  n('Slice', ['position', 'i0', 'n_positions', 'i0'], ['positions']);                       // [T+1,d]
  n('Add', ['x_tokens', 'positions'], ['h0']);
  c('shape_heads', [4], [1, -1, H, dk], DT.INT64);
  c('shape_model', [3], [1, -1, d], DT.INT64);
  c('scale', [], [1 / Math.sqrt(dk)]);
  c('half', [], [0.5]);
  c('one', [], [1]);
  c('inv_sqrt2', [], [Math.SQRT1_2]);
  const ln = (x, pre, out) => {
    c(`${pre}.g`, [d], need(tensors, `${pre}.weight`, [d]));
    c(`${pre}.b`, [d], need(tensors, `${pre}.bias`, [d]));
    return n('LayerNormalization', [x, `${pre}.g`, `${pre}.b`], [out], { axis: -1, epsilon: 1e-5 });
  };
  const linear = (x, pre, name, rows, cols, out) => {  // y = x Wᵀ + b, W [rows, cols]
    c(`${pre}.${name}.wt`, [cols, rows], transpose(need(tensors, `${pre}.${name}.weight`, [rows, cols]), rows, cols));
    c(`${pre}.${name}.b`, [rows], need(tensors, `${pre}.${name}.bias`, [rows]));
    n('MatMul', [x, `${pre}.${name}.wt`], [`${out}_mm`]);
    return n('Add', [`${out}_mm`, `${pre}.${name}.b`], [out]);
  };
  let h = 'h0';
  const attentionOutputs = [];
  for (let l = 0; l < L; l++) {
    const pre = `transformer.layers.${l}`;
    const y1 = ln(h, `${pre}.ln1`, `l${l}_y1`);
    const heads = (name) => {
      const flat = linear(y1, `${pre}.attention`, name, d, d, `l${l}_${name}`);               // [1,n,d]
      n('Reshape', [flat, 'shape_heads'], [`l${l}_${name}_4`]);                               // [1,n,H,dk]
      return `l${l}_${name}_4`;
    };
    const v = heads('v');
    n('Transpose', [v], [`l${l}_vt`], { perm: [0, 2, 1, 3] });                                // [1,H,n,dk]
    let scores;
    if (uniform) {
      n('Shape', [`l${l}_vt`], [`l${l}_vshape`]);                                            // [1,H,n,dk]
      c(`l${l}_s0`, [1], [0], DT.INT64);
      c(`l${l}_s3`, [1], [3], DT.INT64);
      n('Slice', [`l${l}_vshape`, `l${l}_s0`, `l${l}_s3`], [`l${l}_s013`]);                   // [1,H,n]
      c(`l${l}_idx2`, [1], [2], DT.INT64);
      n('Gather', [`l${l}_vshape`, `l${l}_idx2`], [`l${l}_n1`], { axis: 0 });                 // [1] = n
      n('Concat', [`l${l}_s013`, `l${l}_n1`], [`l${l}_pshape`], { axis: 0 });                 // [1,H,n,n]
      scores = n('ConstantOfShape', [`l${l}_pshape`], [`l${l}_scores`], { value: tensor('zero', [1], [0]) });
    } else {
      const q = heads('q'), k = heads('k');
      n('Transpose', [q], [`l${l}_qt`], { perm: [0, 2, 1, 3] });                              // [1,H,n,dk]
      n('Transpose', [k], [`l${l}_kt`], { perm: [0, 2, 3, 1] });                              // [1,H,dk,n]
      n('MatMul', [`l${l}_qt`, `l${l}_kt`], [`l${l}_qk`]);
      scores = n('Mul', [`l${l}_qk`, 'scale'], [`l${l}_scores`]);
    }
    const probs = n('Softmax', [scores], [`attention_layer${l}`], { axis: -1 });              // [1,H,n,n]
    attentionOutputs.push(probs);
    n('MatMul', [probs, `l${l}_vt`], [`l${l}_ctx4`]);                                         // [1,H,n,dk]
    n('Transpose', [`l${l}_ctx4`], [`l${l}_ctx_t`], { perm: [0, 2, 1, 3] });                  // [1,n,H,dk]
    n('Reshape', [`l${l}_ctx_t`, 'shape_model'], [`l${l}_ctx`]);                              // [1,n,d]
    const a = linear(`l${l}_ctx`, `${pre}.attention`, 'out', d, d, `l${l}_attn_out`);
    n('Add', [h, a], [`l${l}_mid`]);
    const y2 = ln(`l${l}_mid`, `${pre}.ln2`, `l${l}_y2`);
    const pre1 = linear(y2, `${pre}.ffn`, 'fc1', F, d, `l${l}_pre`);
    n('Mul', [pre1, 'inv_sqrt2'], [`l${l}_gx`]);
    n('Erf', [`l${l}_gx`], [`l${l}_erf`]);
    n('Add', [`l${l}_erf`, 'one'], [`l${l}_erf1`]);
    n('Mul', [pre1, `l${l}_erf1`], [`l${l}_gxe`]);
    n('Mul', [`l${l}_gxe`, 'half'], [`l${l}_act`]);
    const f = linear(`l${l}_act`, `${pre}.ffn`, 'fc2', d, F, `l${l}_ffn`);
    h = n('Add', [`l${l}_mid`, f], [`l${l}_out`]);
  }
  n('Gather', [h, 'i0'], ['h_cls3'], { axis: 1 });                                           // [1,1,d]
  n('Reshape', ['h_cls3', 'shape_1_d'], ['h_cls']);
  c('shape_1_d', [2], [1, d], DT.INT64);
  const z = ln('h_cls', 'transformer.ln_final', 'z');
  c('dec_w', [C, d], dec.data);
  c('dec_b', [C], need(tensors, 'decoder.bias', [C]));
  n('Gemm', [z, 'dec_w', 'dec_b'], ['logits'], { transB: 1 });                               // [1,C]
  // The interface attention: last layer, [CLS] query row, keys 1..T, mean over heads, renormalised.
  const last = attentionOutputs[L - 1];
  c('big', [1], [1 << 30], DT.INT64);
  c('axis2', [1], [2], DT.INT64);
  c('axis3', [1], [3], DT.INT64);
  n('Slice', [last, 'i0', 'i1', 'axis2'], ['cls_rows']);                                     // [1,H,1,n]
  n('Slice', ['cls_rows', 'i1', 'big', 'axis3'], ['cls_tokens']);                            // [1,H,1,T]
  n('ReduceMean', ['cls_tokens'], ['cls_mean'], { axes: [1, 2], keepdims: 0 });              // [1,T]
  n('ReduceSum', ['cls_mean', 'i1'], ['cls_sum'], { keepdims: 1 });                         // [1,1]
  n('Div', ['cls_mean', 'cls_sum'], ['attention']);
  const outputs = [];
  if (C === 1) {
    c('shape_1', [1], [1], DT.INT64);
    n('Sigmoid', ['logits'], ['prob2']);
    n('Reshape', ['prob2', 'shape_1'], ['probability']);
    outputs.push(valueInfo('probability', DT.FLOAT, [1]));
  } else {
    n('Softmax', ['logits'], ['probabilities'], { axis: -1 });
    outputs.push(valueInfo('probabilities', DT.FLOAT, [1, C]));
  }
  outputs.push(valueInfo('logits', DT.FLOAT, [1, C]));
  outputs.push(valueInfo('attention', DT.FLOAT, [1, 'T']));
  for (let l = 0; l < L; l++) outputs.push(valueInfo(`attention_layer${l}`, DT.FLOAT, [1, H, 'N', 'N']));
  const graph = onnx.GraphProto.create({
    name: 'attnlab_text_transformer', node: nodes, initializer: init,
    input: [valueInfo('token_ids', DT.INT64, [1, 'T'])], output: outputs,
  });
  const model = onnx.ModelProto.create({
    irVersion: 8, opsetImport: [{ domain: '', version: 17 }],
    producerName: 'attnlab export-transformer-onnx.mjs', producerVersion: '1',
    docString: `attnlab transformer (${L} layers × ${H} heads, d=${d}, FFN ${F}, V=${V}, C=${C}, ${config.attention}); see docs/DESIGN.md`,
    graph,
  });
  return onnx.ModelProto.encode(model).finish();
}

export function exportTransformerOnnx(dir, out) {
  const bytes = buildTransformerModel(readTransformerCheckpoint(dir));
  fs.writeFileSync(out, bytes);
  return bytes.byteLength;
}

// The folder a user would bring (the Hugging Face / Optimum layout the core reads, cli/onnx_text_dir.h): model.onnx,
// tokenizer.json — a WordLevel model over the checkpoint's vocabulary with a Lowercase normalizer and the
// WhitespaceSplit pre-tokenizer, which reads pre-tokenised text (the SST files) as attnlab's own tokenizer does; the
// graph adds its own [CLS], so no post-processor — and config.json with id2label.
export function exportTransformerFolder(dir, outDir) {
  const checkpoint = readTransformerCheckpoint(dir);
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'model.onnx'), buildTransformerModel(checkpoint));
  const vocab = {};
  checkpoint.config.vocab.forEach((word, id) => { vocab[word] = id; });
  const tokenizer = {
    version: '1.0', truncation: null, padding: null, added_tokens: [],
    normalizer: { type: 'Lowercase' }, pre_tokenizer: { type: 'WhitespaceSplit' }, post_processor: null, decoder: null,
    model: { type: 'WordLevel', vocab, unk_token: '<unk>' },
  };
  fs.writeFileSync(path.join(outDir, 'tokenizer.json'), JSON.stringify(tokenizer));
  const id2label = Object.fromEntries((checkpoint.config.class_names ?? []).map((name, i) => [String(i), name]));
  fs.writeFileSync(path.join(outDir, 'config.json'), JSON.stringify({ id2label, exported_from: dir }, null, 1));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, out] = process.argv.slice(2);
  if (!dir || !out) {
    console.error('usage: node models/tools/export-transformer-onnx.mjs MODEL_DIR OUT.onnx');
    process.exit(2);
  }
  try {
    console.log(`wrote ${out} (${exportTransformerOnnx(dir, out)} bytes)`);
  } catch (e) {
    console.error(`export-transformer-onnx: ${e.message}`);
    process.exit(1);
  }
}
