// onnx-builder.mjs — the small ONNX-graph helpers both model tools use (export-onnx.mjs for the text models,
// tflite-to-onnx.mjs for MobileNetV2), on top of the onnx-proto npm package.
// Contract:
//   attr(name, value)      → AttributeProto fields: string → STRING, integer → INT, other number → FLOAT,
//                            array → INTS, TensorProto → TENSOR; anything else throws.
//   node(opType, inputs, outputs, attrs = {}) → NodeProto named `${opType}_${outputs[0]}`.
//   valueInfo(name, elemType, dims) → ValueInfoProto; a string dim is symbolic (dimParam), a number fixed.
//   halfToFloat(h)         → IEEE binary16 bits → number (exact).
import onnxPkg from 'onnx-proto';

const { onnx } = onnxPkg;

export function attr(name, value) {
  const A = onnx.AttributeProto.AttributeType;
  if (typeof value === 'string') return { name, type: A.STRING, s: new TextEncoder().encode(value) };
  if (Number.isInteger(value)) return { name, type: A.INT, i: value };
  if (typeof value === 'number') return { name, type: A.FLOAT, f: value };
  if (Array.isArray(value)) return { name, type: A.INTS, ints: value };
  if (value instanceof onnx.TensorProto) return { name, type: A.TENSOR, t: value };
  throw new Error(`attr ${name}: unsupported value`);
}

export function node(opType, inputs, outputs, attrs = {}) {
  return onnx.NodeProto.create({
    opType, input: inputs, output: outputs, name: `${opType}_${outputs[0]}`,
    attribute: Object.entries(attrs).map(([k, v]) => attr(k, v)),
  });
}

export function valueInfo(name, elemType, dims) {
  return onnx.ValueInfoProto.create({
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) } } },
  });
}

/** IEEE 754 binary16 → float32 (exact: every half is representable as a float). */
export function halfToFloat(h) {
  const s = (h & 0x8000) ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24; // zero / subnormal
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}
