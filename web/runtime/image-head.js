// image-head.js — reading the image model's classifier head (models/image/*.head.safetensors) for the core's
// ImageLab. No DOM: the image worker, the Node evaluation, the benchmark and the tests share it.
//
// Contract:
//   parseSafetensors(bytes) → { name: { dtype, shape, data } } (a null-prototype object) for F32 (Float32Array)
//     and U8 (Uint8Array) tensors. Every malformed file is an Error saying what is wrong: too short, a header
//     length past the end (or over 100 MB), a header that is not UTF-8 / JSON / a JSON object, a key that
//     appears twice, an entry that is not {dtype, shape, data_offsets}, another dtype, a shape that is not
//     non-negative integers, offsets that are not a non-negative [begin ≤ end] pair, a size that does not
//     match dtype × shape, data past the end of the file, or two tensors sharing bytes. (Unused bytes
//     between tensors are allowed.) The data are copies (a Node Buffer's slice() would not copy, and F32 data
//     must be aligned).
//   readImageHead(bytes) → { weight: Float32Array [C·K], bias: Float32Array [C], C, K }
//     The weight is stored either as `weight` F32 [C,K], or quantised as `weight_q` U8 [C,K] with per-row
//     `weight_scale` and `weight_zero_point` F32 [C]: weight = (q − zp)·scale rounded to float32, exactly what the
//     ONNX graph's DequantizeLinear computes. `bias` F32 [C]. Any other tensor, a missing or mistyped one, a wrong
//     rank or size, both weight forms at once, or a NaN / infinite value → Error naming the tensor.
const ITEM = { F32: 4, U8: 1 };
const MAX_HEADER = 100_000_000; // the Rust safetensors crate's limit
const HEAD_TENSORS = new Set(['weight', 'bias', 'weight_q', 'weight_scale', 'weight_zero_point']);

function fail(message) {
  throw new Error(`safetensors: ${message}`);
}

// The keys of the top-level JSON object, in order (duplicates included; JSON.parse keeps only the last).
function topLevelKeys(text) {
  const keys = [];
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (depth === 1) {
        let k = j + 1;
        while (k < text.length && ' \t\n\r'.includes(text[k])) k++;
        if (text[k] === ':') keys.push(JSON.parse(text.slice(i, j + 1)));
      }
      i = j;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return keys;
}

const isCount = (x) => Number.isSafeInteger(x) && x >= 0;

export function parseSafetensors(bytes) {
  if (!(bytes instanceof ArrayBuffer) && !ArrayBuffer.isView(bytes)) fail('expected an ArrayBuffer or a typed array');
  const b = ArrayBuffer.isView(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(bytes);
  if (b.length < 8) fail(`the file is too short (${b.length} bytes; the header length alone takes 8)`);
  const hlen64 = new DataView(b.buffer, b.byteOffset, b.byteLength).getBigUint64(0, true);
  if (hlen64 > BigInt(b.length - 8)) fail(`the header length ${hlen64} exceeds the file size ${b.length}`);
  const hlen = Number(hlen64);
  if (hlen > MAX_HEADER) fail(`the header length ${hlen} exceeds the limit of ${MAX_HEADER} bytes`);
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(b.subarray(8, 8 + hlen));
  } catch {
    fail('the header is not valid UTF-8');
  }
  let header;
  try {
    header = JSON.parse(text);
  } catch (e) {
    fail(`the header is not JSON (${e.message})`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) {
    fail(`the header is not a JSON object (it is ${Array.isArray(header) ? 'an array' : header === null ? 'null' : `a ${typeof header}`})`);
  }
  const keys = topLevelKeys(text);
  const dup = keys.find((k, i) => keys.indexOf(k) !== i);
  if (dup !== undefined) fail(`the header has the key ${JSON.stringify(dup)} twice`);

  const out = Object.create(null);
  const base = 8 + hlen;
  const dataSize = b.length - base;
  const spans = [];
  for (const name of Object.keys(header)) {
    const t = header[name];
    if (name === '__metadata__') continue;
    const where = `tensor ${JSON.stringify(name)}`;
    if (t === null || typeof t !== 'object' || Array.isArray(t)) fail(`${where} is not an object`);
    const item = Object.hasOwn(ITEM, t.dtype) ? ITEM[t.dtype] : 0;
    if (!item) fail(`${where} has dtype ${JSON.stringify(t.dtype)}, expected "F32" or "U8"`);
    if (!Array.isArray(t.shape) || !t.shape.every(isCount)) fail(`${where}: shape must be an array of non-negative integers, got ${JSON.stringify(t.shape)}`);
    const off = t.data_offsets;
    if (!Array.isArray(off) || off.length !== 2 || !off.every(isCount) || off[0] > off[1]) {
      fail(`${where}: data_offsets must be [begin, end] with 0 ≤ begin ≤ end, got ${JSON.stringify(off)}`);
    }
    const [s, e] = off;
    let count = 1;
    for (const d of t.shape) count *= d;
    if (!Number.isSafeInteger(count * item) || e - s !== count * item) {
      fail(`${where} has a wrong size: data_offsets [${s}, ${e}] hold ${e - s} bytes, dtype ${t.dtype} × shape [${t.shape}] needs ${count * item}`);
    }
    if (e > dataSize) fail(`${where} has a wrong size: data_offsets [${s}, ${e}] exceed the data size ${dataSize} (file truncated?)`);
    spans.push({ s, e, name });
    const copy = b.slice(base + s, base + e);
    out[name] = { dtype: t.dtype, shape: t.shape.slice(), data: t.dtype === 'F32' ? new Float32Array(copy.buffer) : copy };
  }
  spans.sort((x, y) => x.s - y.s || x.e - y.e);
  for (let i = 1; i < spans.length; i++) {
    const prev = spans.slice(0, i).reduce((a, x) => (x.e > a.e ? x : a));
    if (spans[i].s < prev.e && spans[i].e > spans[i].s) {
      fail(`tensor ${JSON.stringify(spans[i].name)} overlaps tensor ${JSON.stringify(prev.name)} (bytes ${spans[i].s}–${Math.min(prev.e, spans[i].e)})`);
    }
  }
  return out;
}

function tensor(t, name, dtype, rank) {
  const x = t[name];
  if (!x) return null;
  if (x.dtype !== dtype) throw new Error(`The classifier head's \`${name}\` is ${x.dtype}, expected ${dtype}.`);
  if (x.shape.length !== rank || x.shape.some((d) => d < 1)) {
    throw new Error(`The classifier head's \`${name}\` has shape [${x.shape}], expected ${rank === 1 ? '[C]' : '[C, K]'} with C, K ≥ 1.`);
  }
  if (dtype === 'F32' && !x.data.every(Number.isFinite)) throw new Error(`The classifier head's \`${name}\` contains NaN or infinite values.`);
  return x;
}

export function readImageHead(bytes) {
  const t = parseSafetensors(bytes);
  for (const name of Object.keys(t)) {
    if (!HEAD_TENSORS.has(name)) throw new Error(`The classifier head has an unexpected tensor ${JSON.stringify(name)}.`);
  }
  const bias = tensor(t, 'bias', 'F32', 1);
  if (!bias) throw new Error('The classifier head has no `bias` tensor.');
  const w = tensor(t, 'weight', 'F32', 2);
  const q = tensor(t, 'weight_q', 'U8', 2);
  const scale = tensor(t, 'weight_scale', 'F32', 1);
  const zp = tensor(t, 'weight_zero_point', 'F32', 1);
  let weight;
  let C;
  let K;
  if (w && (q || scale || zp)) {
    throw new Error('The classifier head has both `weight` and `weight_q` / `weight_scale` / `weight_zero_point`; expected one form.');
  }
  if (w) {
    [C, K] = w.shape;
    weight = w.data;
  } else if (q && scale && zp) {
    [C, K] = q.shape;
    if (scale.shape[0] !== C || zp.shape[0] !== C) {
      throw new Error(`The classifier head's weight_scale [${scale.shape}] / weight_zero_point [${zp.shape}] do not match weight_q [${q.shape}].`);
    }
    weight = new Float32Array(C * K);
    for (let c = 0; c < C; c++) for (let k = 0; k < K; k++) weight[c * K + k] = (q.data[c * K + k] - zp.data[c]) * scale.data[c];
    if (!weight.every(Number.isFinite)) throw new Error('The classifier head\'s dequantised weight contains infinite values.');
  } else {
    throw new Error('The classifier head has neither `weight` nor `weight_q` + `weight_scale` + `weight_zero_point`.');
  }
  if (bias.shape[0] !== C) throw new Error(`The classifier head's bias [${bias.shape}] does not match its weight [${C}, ${K}].`);
  return { weight, bias: bias.data, C, K };
}
