// image-head.js — reading the image model's classifier head (models/image/*.head.safetensors) for the core's
// ImageLab. No DOM: the image worker, the Node evaluation, the benchmark and the tests share it.
//
// Contract:
//   parseSafetensors(bytes) → { name: { dtype, shape, data } } for F32 (Float32Array) and U8 (Uint8Array)
//     tensors; any other dtype, a bad header or a tensor whose size does not match its shape → Error.
//     The data are copies (a Node Buffer's slice() would not copy, and F32 data must be aligned).
//   readImageHead(bytes) → { weight: Float32Array [C·K], bias: Float32Array [C], C, K }
//     The weight is stored either as `weight` F32 [C,K], or quantised as `weight_q` U8 [C,K] with per-row
//     `weight_scale` and `weight_zero_point` F32 [C]: weight = (q − zp)·scale rounded to float32, exactly what the
//     ONNX graph's DequantizeLinear computes. Missing or mismatched tensors → Error naming them.
const ITEM = { F32: 4, U8: 1 };

export function parseSafetensors(bytes) {
  const b = ArrayBuffer.isView(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(bytes);
  if (b.length < 8) throw new Error('the safetensors file is too short');
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const hlen = Number(dv.getBigUint64(0, true));
  if (hlen <= 0 || 8 + hlen > b.length) throw new Error('the safetensors header length is invalid');
  let header;
  try {
    header = JSON.parse(new TextDecoder().decode(b.subarray(8, 8 + hlen)));
  } catch (e) {
    throw new Error(`the safetensors header is not JSON: ${e.message}`);
  }
  const out = {};
  const base = 8 + hlen;
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const item = ITEM[t.dtype];
    if (!item) throw new Error(`tensor ${name} is ${t.dtype}, expected F32 or U8`);
    const [s, e] = t.data_offsets;
    const count = t.shape.reduce((a, x) => a * x, 1);
    if (e - s !== count * item || base + e > b.length) throw new Error(`tensor ${name} has a wrong size`);
    const copy = b.slice(base + s, base + e);
    out[name] = { dtype: t.dtype, shape: t.shape, data: t.dtype === 'F32' ? new Float32Array(copy.buffer) : copy };
  }
  return out;
}

export function readImageHead(bytes) {
  const t = parseSafetensors(bytes);
  if (!t.bias) throw new Error('The classifier head has no `bias` tensor.');
  let weight;
  let C;
  let K;
  if (t.weight) {
    [C, K] = t.weight.shape;
    weight = t.weight.data;
  } else if (t.weight_q && t.weight_scale && t.weight_zero_point) {
    [C, K] = t.weight_q.shape;
    if (t.weight_scale.shape[0] !== C || t.weight_zero_point.shape[0] !== C) {
      throw new Error('The classifier head`s weight_scale / weight_zero_point do not match weight_q.');
    }
    const q = t.weight_q.data;
    const scale = t.weight_scale.data;
    const zp = t.weight_zero_point.data;
    weight = new Float32Array(C * K);
    for (let c = 0; c < C; c++) for (let k = 0; k < K; k++) weight[c * K + k] = (q[c * K + k] - zp[c]) * scale[c];
  } else {
    throw new Error('The classifier head has neither `weight` nor `weight_q` + `weight_scale` + `weight_zero_point`.');
  }
  if (t.bias.shape[0] !== C) throw new Error('The classifier head`s bias does not match its weight.');
  return { weight, bias: t.bias.data, C, K };
}
