#!/usr/bin/env node
// tflite-to-onnx.mjs — the coral MobileNetV2 uint8 TFLite model → a float ONNX model + its classifier head.
//
// Usage:  node models/tools/tflite-to-onnx.mjs --tflite FILE.tflite --out FILE.onnx
//              [--head FILE.safetensors] [--storage uint8|fp16|fp32] [--no-clamp]
//
// Contract of the written model (opset 17, IR 8), dynamic batch N:
//   input   image     float32 [N,3,224,224]  planar RGB, 0–255 (= the TFLite uint8 input values q)
//   output  features  float32 [N,1280,7,7]   the last feature map (TFLite tensor feeding AVERAGE_POOL_2D), dequantised
//           logits    float32 [N,1001]       the classifier output before softmax (not capped to the uint8 range)
// Math: the graph is the float "fake-quant" twin of the TFLite graph. x = (q − zp_in)·s_in; every CONV_2D /
// DEPTHWISE_CONV_2D uses the dequantised weights (w_q − zp_w)·s_w (per tensor, or per output channel when the
// tensor has several scales) and the dequantised int32 bias b_q·s_b; TF "SAME" padding is written as explicit
// pads (extra row/column at the bottom/right, as TF does for stride 2); depthwise → Conv with group = C_in.
// Fused RELU/RELU6 → Clip. With clamping on (default), each op output is also clipped to the range its uint8 output
// tensor can represent, [(0 − zp)·s, (255 − zp)·s] — the range the quantisation-aware training fake-quantised to —
// except the logits (the contract asks for uncapped logits) and the pooled vector. ADD → Add;
// AVERAGE_POOL_2D over the whole 7×7 map → GlobalAveragePool; RESHAPE [N,1,1,C] → [N,C] → Flatten; the final
// SOFTMAX is dropped. The feature map is the output of a Clip node named `features` (no Identity node: the graph
// uses only Sub, Mul, DequantizeLinear / Cast, Conv, Clip, Add, GlobalAveragePool, Flatten — all in ORT Web's WebGPU
// EP). Activations are never requantised (the integer reference is models/tools/reference/tflite_int8_reference.py).
// Weight storage: uint8 → DequantizeLinear(uint8 weight, scale, zero point) in the graph (smallest file);
// fp16 → float16 initializer + Cast; fp32 → float32 initializers. Biases are float32 in every mode.
// The head file holds the classifier such that logits = weight·GAP(features) + bias, with exactly the float values
// the graph uses: weight_q U8 [1001,1280] + weight_scale / weight_zero_point F32 [1001] (weight = (q − zp)·scale in
// float32; read by web/runtime/image-head.js) and bias F32 [1001]; with --storage fp16, weight F32 [1001,1280].
// Exported: convert(tfliteBytes, {storage, clamp}) → { onnx: Uint8Array, head: Uint8Array, info },
//   safetensorsBytes(tensors), floatToHalf(x).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import onnxPkg from 'onnx-proto';
import { node, valueInfo, halfToFloat } from './onnx-builder.mjs';
import { readTflite, tensorValues } from './tflite-reader.mjs';

const { onnx } = onnxPkg;
const DT = onnx.TensorProto.DataType;

// ---------------------------------------------------------------- small helpers

/** float → IEEE binary16 bits, round to nearest even (overflow → ±Inf). */
export function floatToHalf(x) {
  const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);
  f32[0] = x;
  const b = u32[0];
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  let mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  let e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) { // subnormal half
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1), half = 1 << (shift - 1);
    if (rem > half || (rem === half && (h & 1))) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && (h & 1))) h++; // may carry into the exponent: still correct
  return sign | h;
}

function tensorProto(name, dims, data, type) {
  let raw;
  if (type === DT.FLOAT) raw = new Uint8Array(Float32Array.from(data).buffer);
  else if (type === DT.UINT8) raw = Uint8Array.from(data);
  else if (type === DT.FLOAT16) raw = new Uint8Array(Uint16Array.from(data, floatToHalf).buffer);
  else if (type === DT.INT64) raw = new Uint8Array(BigInt64Array.from(data, (x) => BigInt(x)).buffer);
  else throw new Error('tensorProto: unsupported type');
  return onnx.TensorProto.create({ name, dims, dataType: type, rawData: raw });
}

export function safetensorsBytes(tensors) {
  const header = {};
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    const n = t.data.byteLength;
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + n] };
    offset += n;
  }
  let json = JSON.stringify(header);
  while ((8 + json.length) % 8) json += ' '; // keep the data 8-byte aligned
  const hb = new TextEncoder().encode(json);
  const out = new Uint8Array(8 + hb.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(hb.length), true);
  out.set(hb, 8);
  let p = 8 + hb.length;
  for (const t of Object.values(tensors)) {
    out.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength), p);
    p += t.data.byteLength;
  }
  return out;
}

/** TF SAME padding along one axis → [before, after] (the extra pixel goes after). */
function samePads(inSize, k, stride, dilation = 1) {
  const eff = (k - 1) * dilation + 1;
  const out = Math.ceil(inSize / stride);
  const total = Math.max((out - 1) * stride + eff - inSize, 0);
  return [Math.floor(total / 2), total - Math.floor(total / 2)];
}

// ---------------------------------------------------------------- conversion

/**
 * @param {Uint8Array} tfliteBytes
 * @param {{storage?: 'uint8'|'fp16'|'fp32', clamp?: boolean}} opts
 * @returns {{onnx: Uint8Array, head: Uint8Array, info: object}}
 */
export function convert(tfliteBytes, { storage = 'uint8', clamp = true } = {}) {
  if (!['uint8', 'fp16', 'fp32'].includes(storage)) throw new Error(`--storage must be uint8, fp16 or fp32 (got ${storage})`);
  const model = readTflite(tfliteBytes);
  if (model.subgraphs.length !== 1) throw new Error(`expected 1 subgraph, found ${model.subgraphs.length}`);
  const sg = model.subgraphs[0];
  const T = sg.tensors;
  const q1 = (t) => {
    if (!t.quantization) throw new Error(`tensor ${t.index} (${t.name}) has no quantization parameters`);
    return t.quantization;
  };

  const nodes = [], init = [];
  const names = new Map(); // TFLite tensor index → ONNX value name
  const c = (name, dims, data, type = DT.FLOAT) => { init.push(tensorProto(name, dims, data, type)); return name; };
  let uid = 0;
  const fresh = (base) => `${base}_${uid++}`;

  // input mapping q → (q − zp)·s  (0–255 float in, NCHW)
  if (sg.inputs.length !== 1) throw new Error(`expected 1 input, found ${sg.inputs.length}`);
  const tin = T[sg.inputs[0]];
  if (tin.type !== 'UINT8' || tin.shape.length !== 4 || tin.shape[3] !== 3)
    throw new Error(`input tensor: expected uint8 [1,H,W,3], got ${tin.type} [${tin.shape}]`);
  const [, IH, IW] = tin.shape;
  {
    const { scale: [s], zeroPoint: [zp] } = q1(tin);
    c('input_zero_point', [], [zp]);
    c('input_scale', [], [s]);
    nodes.push(node('Sub', ['image', 'input_zero_point'], ['image_centered']));
    nodes.push(node('Mul', ['image_centered', 'input_scale'], ['image_real']));
    names.set(tin.index, 'image_real');
  }

  // spatial shapes (static) per tensor for the SAME pads: TFLite shapes are NHWC
  const hw = (t) => [t.shape[1], t.shape[2]];
  const ops = sg.operators;
  const avgPools = ops.filter((o) => o.op === 'AVERAGE_POOL_2D');
  if (avgPools.length !== 1) throw new Error(`expected exactly 1 AVERAGE_POOL_2D, found ${avgPools.length}`);
  const featuresIdx = avgPools[0].inputs[0];
  const pooledIdx = avgPools[0].outputs[0];
  let logitsIdx = null;
  let headInfo = null;
  const info = { storage, clamp, layers: 0, weightBytes: 0 };

  /** Clip value `x` to the activation ∩ (optionally) the representable range of tensor t → new name. */
  const activate = (x, t, activation, allowRangeClamp, outName = null) => {
    let lo = -Infinity, hi = Infinity;
    if (activation === 'RELU6') { lo = 0; hi = 6; } else if (activation === 'RELU') { lo = 0; } else if (activation !== 'NONE')
      throw new Error(`unsupported fused activation ${activation}`);
    if (clamp && allowRangeClamp && t.type === 'UINT8' && t.quantization) {
      const { scale: [s], zeroPoint: [zp] } = t.quantization;
      lo = Math.max(lo, (0 - zp) * s);
      hi = Math.min(hi, (255 - zp) * s);
    }
    if (lo === -Infinity && hi === Infinity) {
      if (outName) { nodes.push(node('Identity', [x], [outName])); return outName; }
      return x;
    }
    const out = outName ?? fresh('clip');
    const ins = [x, lo === -Infinity ? '' : c(`${out}_min`, [], [lo]), hi === Infinity ? '' : c(`${out}_max`, [], [hi])];
    while (ins.at(-1) === '') ins.pop();
    nodes.push(node('Clip', ins, [out]));
    return out;
  };

  /** Weight initializer (ONNX layout OIHW) in the chosen storage → value name of a float32 weight. */
  const weight = (base, wt, dims, reorder, channelDim) => {
    const { scale, zeroPoint, quantizedDimension } = q1(wt);
    if (scale.length > 1 && quantizedDimension !== channelDim)
      throw new Error(`weight tensor ${wt.index}: per-channel scales along dimension ${quantizedDimension}, expected ${channelDim}`);
    const q = tensorValues(model, wt);
    if (!q || wt.type !== 'UINT8') throw new Error(`weight tensor ${wt.index} (${wt.name}): expected constant uint8 data`);
    const qo = reorder(q); // Uint8Array in OIHW
    const O = dims[0], per = qo.length / O;
    const perChannel = scale.length > 1;
    if (perChannel && (scale.length !== O || zeroPoint.length !== O))
      throw new Error(`weight tensor ${wt.index}: ${scale.length} scales for ${O} output channels`);
    const sOf = (o) => (perChannel ? scale[o] : scale[0]);
    const zOf = (o) => (perChannel ? zeroPoint[o] : zeroPoint[0]);
    const real = new Float32Array(qo.length);
    for (let o = 0; o < O; o++) for (let k = 0; k < per; k++) real[o * per + k] = (qo[o * per + k] - zOf(o)) * sOf(o);
    const quant = { q: qo, scale: Float32Array.from({ length: O }, (_, o) => sOf(o)), zeroPoint: Float32Array.from({ length: O }, (_, o) => zOf(o)) };
    if (storage === 'fp32') { c(base, dims, real); info.weightBytes += 4 * real.length; return { name: base, real, quant }; }
    if (storage === 'fp16') {
      c(`${base}_f16`, dims, real, DT.FLOAT16);
      nodes.push(node('Cast', [`${base}_f16`], [base], { to: DT.FLOAT }));
      info.weightBytes += 2 * real.length;
      const r16 = new Float32Array(real.length); // what the graph really computes with
      for (let i = 0; i < real.length; i++) r16[i] = halfToFloat(floatToHalf(real[i]));
      return { name: base, real: r16, quant: null };
    }
    c(`${base}_q`, dims, qo, DT.UINT8);
    if (perChannel) {
      c(`${base}_scale`, [O], scale);
      c(`${base}_zp`, [O], zeroPoint, DT.UINT8);
      nodes.push(node('DequantizeLinear', [`${base}_q`, `${base}_scale`, `${base}_zp`], [base], { axis: 0 }));
    } else {
      c(`${base}_scale`, [], scale);
      c(`${base}_zp`, [], zeroPoint, DT.UINT8);
      nodes.push(node('DequantizeLinear', [`${base}_q`, `${base}_scale`, `${base}_zp`], [base]));
    }
    info.weightBytes += real.length;
    return { name: base, real, quant };
  };

  const bias = (base, bt) => {
    const b = tensorValues(model, bt);
    if (!b || bt.type !== 'INT32') throw new Error(`bias tensor ${bt.index} (${bt.name}): expected constant int32 data`);
    const { scale } = q1(bt);
    const real = new Float32Array(b.length);
    for (let i = 0; i < b.length; i++) real[i] = b[i] * (scale.length > 1 ? scale[i] : scale[0]);
    c(base, [b.length], real);
    return { name: base, real };
  };

  const nameOf = (idx) => {
    const n = names.get(idx);
    if (!n) throw new Error(`tensor ${idx} (${T[idx].name}) is used before it is produced`);
    return n;
  };

  for (const op of ops) {
    const o = op.options;
    const out = T[op.outputs[0]];
    const isLogits = () => op.outputs[0] === logitsIdx;
    switch (op.op) {
      case 'CONV_2D':
      case 'DEPTHWISE_CONV_2D': {
        const [xi, wi, bi] = op.inputs;
        const x = T[xi], w = T[wi];
        const dw = op.op === 'DEPTHWISE_CONV_2D';
        const [KH, KW] = [w.shape[1], w.shape[2]];
        const Cin = x.shape[3];
        let dims, reorder, group = 1;
        if (!dw) { // TFLite [O,KH,KW,I] → ONNX [O,I,KH,KW]
          const [O, , , I] = w.shape;
          if (I !== Cin) throw new Error(`op ${op.index}: weight has ${I} input channels, input has ${Cin}`);
          dims = [O, I, KH, KW];
          reorder = (q) => { const r = new Uint8Array(q.length); for (let a = 0; a < O; a++) for (let h = 0; h < KH; h++) for (let ww = 0; ww < KW; ww++) for (let i = 0; i < I; i++) r[((a * I + i) * KH + h) * KW + ww] = q[((a * KH + h) * KW + ww) * I + i]; return r; };
        } else { // TFLite [1,KH,KW,C·mult] → ONNX [C·mult,1,KH,KW], group = C
          const CM = w.shape[3];
          if (CM !== Cin * o.depthMultiplier) throw new Error(`op ${op.index}: depthwise weight ${CM} ≠ ${Cin}·${o.depthMultiplier}`);
          dims = [CM, 1, KH, KW];
          group = Cin;
          reorder = (q) => { const r = new Uint8Array(q.length); for (let h = 0; h < KH; h++) for (let ww = 0; ww < KW; ww++) for (let m = 0; m < CM; m++) r[(m * KH + h) * KW + ww] = q[(h * KW + ww) * CM + m]; return r; };
        }
        const base = `op${op.index}`;
        const wv = weight(`${base}_w`, w, dims, reorder, dw ? 3 : 0); // TFLite axis of the output channel
        const bv = bias(`${base}_b`, T[bi]);
        let pads = [0, 0, 0, 0];
        if (o.padding === 'SAME') {
          const [H, W] = hw(x);
          const [pt, pb] = samePads(H, KH, o.strideH, o.dilationH);
          const [pl, pr] = samePads(W, KW, o.strideW, o.dilationW);
          pads = [pt, pl, pb, pr];
        }
        const y = fresh(`${base}_conv`);
        nodes.push(node('Conv', [nameOf(xi), wv.name, bv.name], [y], {
          kernel_shape: [KH, KW], strides: [o.strideH, o.strideW], dilations: [o.dilationH, o.dilationW], pads, group,
        }));
        info.layers++;
        if (xi === pooledIdx) { // classifier: logits, uncapped
          logitsIdx = op.outputs[0];
          if (o.activation !== 'NONE') throw new Error('classifier conv has a fused activation');
          headInfo = { weight: wv.real, quant: wv.quant, bias: bv.real, C: dims[0], K: dims[1] };
          names.set(op.outputs[0], y);
        } else {
          names.set(op.outputs[0], activate(y, out, o.activation, true, op.outputs[0] === featuresIdx ? 'features' : null));
        }
        break;
      }
      case 'ADD': {
        const y = fresh(`op${op.index}_add`);
        nodes.push(node('Add', [nameOf(op.inputs[0]), nameOf(op.inputs[1])], [y]));
        names.set(op.outputs[0], activate(y, out, o.activation, true));
        break;
      }
      case 'AVERAGE_POOL_2D': {
        const x = T[op.inputs[0]];
        const [H, W] = hw(x);
        if (o.filterH !== H || o.filterW !== W || o.padding !== 'VALID' || o.activation !== 'NONE')
          throw new Error(`op ${op.index}: only a global average pool (filter = whole map, VALID, no activation) is supported`);
        nodes.push(node('GlobalAveragePool', [nameOf(op.inputs[0])], ['pooled']));
        names.set(op.outputs[0], 'pooled');
        break;
      }
      case 'RESHAPE': {
        const x = T[op.inputs[0]];
        if (!(out.shape.length === 2 && x.shape.length === 4 && x.shape[1] === 1 && x.shape[2] === 1 && out.shape[1] === x.shape[3]))
          throw new Error(`op ${op.index}: only RESHAPE [N,1,1,C] → [N,C] is supported (got [${x.shape}] → [${out.shape}])`);
        const y = isLogits() || op.inputs[0] === logitsIdx ? 'logits' : fresh(`op${op.index}_flat`);
        nodes.push(node('Flatten', [nameOf(op.inputs[0])], [y], { axis: 1 }));
        if (op.inputs[0] === logitsIdx) logitsIdx = op.outputs[0];
        names.set(op.outputs[0], y);
        break;
      }
      case 'SOFTMAX':
        if (op.inputs[0] !== logitsIdx || !sg.outputs.includes(op.outputs[0]))
          throw new Error(`op ${op.index}: SOFTMAX is only supported as the final op on the logits`);
        break; // dropped: the graph outputs logits
      default:
        throw new Error(`op ${op.index}: unsupported TFLite op ${op.op}`);
    }
  }
  if (names.get(logitsIdx) !== 'logits') throw new Error('could not identify the logits (expected conv → reshape [N,C])');
  if (!headInfo) throw new Error('could not identify the classifier conv');
  if (names.get(featuresIdx) !== 'features') throw new Error('the feature map is not produced by a convolution');
  const ft = T[featuresIdx];
  const [FH, FW, K] = [ft.shape[1], ft.shape[2], ft.shape[3]];
  const C = headInfo.C;

  const graph = onnx.GraphProto.create({
    name: 'mobilenet_v2_1.0_224_quant_float',
    node: nodes,
    initializer: init,
    input: [valueInfo('image', DT.FLOAT, ['N', 3, IH, IW])],
    output: [valueInfo('features', DT.FLOAT, ['N', K, FH, FW]), valueInfo('logits', DT.FLOAT, ['N', C])],
  });
  const onnxModel = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    producerName: 'attnlab tflite-to-onnx.mjs',
    producerVersion: '1',
    graph,
  });
  const bytes = onnx.ModelProto.encode(onnxModel).finish();
  // uint8 weights with per-row scale / zero point (the values the graph dequantises, 4× smaller than F32);
  // fp16 storage has no exact uint8 form, so its head stays F32.
  const head = safetensorsBytes(headInfo.quant ? {
    weight_q: { dtype: 'U8', shape: [C, K], data: headInfo.quant.q },
    weight_scale: { dtype: 'F32', shape: [C], data: headInfo.quant.scale },
    weight_zero_point: { dtype: 'F32', shape: [C], data: headInfo.quant.zeroPoint },
    bias: { dtype: 'F32', shape: [C], data: headInfo.bias },
  } : {
    weight: { dtype: 'F32', shape: [C, K], data: headInfo.weight },
    bias: { dtype: 'F32', shape: [C], data: headInfo.bias },
  });
  Object.assign(info, { input: { shape: tin.shape, ...q1(tin) }, features: { tensor: featuresIdx, shape: [K, FH, FW] },
    logits: { tensor: logitsIdx, classes: C }, nodes: nodes.length, initializers: init.length });
  return { onnx: bytes, head, info };
}

// ---------------------------------------------------------------- CLI

function parseArgs(argv) {
  const a = { storage: 'uint8', clamp: true };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i];
    const v = () => { if (i + 1 >= argv.length) throw new Error(`${k} needs a value`); return argv[++i]; };
    if (k === '--tflite') a.tflite = v();
    else if (k === '--out') a.out = v();
    else if (k === '--head') a.head = v();
    else if (k === '--storage') a.storage = v();
    else if (k === '--no-clamp') a.clamp = false;
    else throw new Error(`unknown argument ${k}`);
  }
  if (!a.tflite || !a.out) throw new Error('usage: tflite-to-onnx.mjs --tflite FILE --out FILE.onnx [--head FILE.safetensors] [--storage uint8|fp16|fp32] [--no-clamp]');
  return a;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const a = parseArgs(process.argv.slice(2));
    const { onnx: bytes, head, info } = convert(fs.readFileSync(a.tflite), a);
    fs.mkdirSync(path.dirname(path.resolve(a.out)), { recursive: true });
    fs.writeFileSync(a.out, bytes);
    if (a.head) fs.writeFileSync(a.head, head);
    console.log(JSON.stringify({ out: a.out, bytes: bytes.length, head: a.head ?? null, ...info }));
  } catch (e) {
    console.error(`tflite-to-onnx: ${e.message}`);
    process.exit(1);
  }
}
