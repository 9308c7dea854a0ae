// tflite-reader.mjs — a minimal reader for TensorFlow Lite flatbuffers (schema: tensorflow/lite/schema/schema.fbs).
//
// Only the tables and fields the MobileNetV2 converter needs are declared here, by their field index in the schema
// (vtable slot = 4 + 2·index). Reads with the `flatbuffers` npm runtime (ByteBuffer); nothing is generated.
//   Model:    version(0) operator_codes(1) subgraphs(2) description(3) buffers(4)
//   OperatorCode: deprecated_builtin_code:byte(0) custom_code(1) version(2) builtin_code:int(3)
//   SubGraph: tensors(0) inputs(1) outputs(2) operators(3) name(4)
//   Tensor:   shape:[int](0) type:byte(1) buffer:uint(2) name(3) quantization(4)
//   QuantizationParameters: min(0) max(1) scale:[float](2) zero_point:[long](3) quantized_dimension:int(6)
//   Operator: opcode_index:uint(0) inputs(1) outputs(2) builtin_options_type:ubyte(3) builtin_options(4)
//   Buffer:   data:[ubyte](0)
// Builtin options decoded: Conv2D, DepthwiseConv2D, Pool2D, Add, Reshape, Softmax (others: { type } only).
// Exported: readTflite(bytes) → model (plain objects, see below), tensorValues(model, t) → typed array,
//   BUILTIN (name → code), TENSOR_TYPE (code → name). Errors (bad identifier, unknown tensor type) throw.

import * as flatbuffers from 'flatbuffers';

export const BUILTIN = {
  ADD: 0, AVERAGE_POOL_2D: 1, CONCATENATION: 2, CONV_2D: 3, DEPTHWISE_CONV_2D: 4, DEQUANTIZE: 6,
  FULLY_CONNECTED: 9, LOGISTIC: 14, MAX_POOL_2D: 17, MUL: 18, RELU: 19, RELU6: 21, RESHAPE: 22, SOFTMAX: 25,
  MEAN: 40, PAD: 34, SQUEEZE: 43, QUANTIZE: 114,
};
const BUILTIN_NAME = Object.fromEntries(Object.entries(BUILTIN).map(([k, v]) => [v, k]));
export const TENSOR_TYPE = { 0: 'FLOAT32', 1: 'FLOAT16', 2: 'INT32', 3: 'UINT8', 4: 'INT64', 6: 'BOOL', 7: 'INT16', 9: 'INT8' };
export const PADDING = { 0: 'SAME', 1: 'VALID' };
export const ACTIVATION = { 0: 'NONE', 1: 'RELU', 2: 'RELU_N1_TO_1', 3: 'RELU6', 4: 'TANH', 5: 'SIGN_BIT' };
// BuiltinOptions union member ids (schema order)
const OPT = { Conv2DOptions: 1, DepthwiseConv2DOptions: 2, Pool2DOptions: 5, SoftmaxOptions: 9, AddOptions: 11, ReshapeOptions: 17 };

/** A table view: field accessors by schema field index. */
class Table {
  constructor(bb, pos) { this.bb = bb; this.pos = pos; }
  off(i) { return this.bb.__offset(this.pos, 4 + 2 * i); }
  i32(i, d = 0) { const o = this.off(i); return o ? this.bb.readInt32(this.pos + o) : d; }
  u32(i, d = 0) { const o = this.off(i); return o ? this.bb.readUint32(this.pos + o) : d; }
  i8(i, d = 0) { const o = this.off(i); return o ? this.bb.readInt8(this.pos + o) : d; }
  u8(i, d = 0) { const o = this.off(i); return o ? this.bb.readUint8(this.pos + o) : d; }
  f32(i, d = 0) { const o = this.off(i); return o ? this.bb.readFloat32(this.pos + o) : d; }
  str(i) { const o = this.off(i); return o ? this.bb.__string(this.pos + o) : null; }
  table(i) { const o = this.off(i); return o ? new Table(this.bb, this.bb.__indirect(this.pos + o)) : null; }
  vec(i) { // → { start, len } or null
    const o = this.off(i);
    if (!o) return null;
    return { start: this.bb.__vector(this.pos + o), len: this.bb.__vector_len(this.pos + o) };
  }
  tables(i) {
    const v = this.vec(i);
    if (!v) return [];
    const out = [];
    for (let k = 0; k < v.len; k++) out.push(new Table(this.bb, this.bb.__indirect(v.start + 4 * k)));
    return out;
  }
  ints(i) { const v = this.vec(i); const out = []; if (v) for (let k = 0; k < v.len; k++) out.push(this.bb.readInt32(v.start + 4 * k)); return out; }
  floats(i) { const v = this.vec(i); const out = []; if (v) for (let k = 0; k < v.len; k++) out.push(this.bb.readFloat32(v.start + 4 * k)); return out; }
  longs(i) { const v = this.vec(i); const out = []; if (v) for (let k = 0; k < v.len; k++) out.push(Number(this.bb.readInt64(v.start + 8 * k))); return out; }
  bytes(i) { const v = this.vec(i); return v ? this.bb.bytes().subarray(v.start, v.start + v.len) : null; }
}

function readOptions(type, t) {
  if (!t) return { type };
  switch (type) {
    case OPT.Conv2DOptions:
      return { kind: 'Conv2DOptions', padding: PADDING[t.i8(0)], strideW: t.i32(1), strideH: t.i32(2),
        activation: ACTIVATION[t.i8(3)], dilationW: t.i32(4, 1), dilationH: t.i32(5, 1) };
    case OPT.DepthwiseConv2DOptions:
      return { kind: 'DepthwiseConv2DOptions', padding: PADDING[t.i8(0)], strideW: t.i32(1), strideH: t.i32(2),
        depthMultiplier: t.i32(3), activation: ACTIVATION[t.i8(4)], dilationW: t.i32(5, 1), dilationH: t.i32(6, 1) };
    case OPT.Pool2DOptions:
      return { kind: 'Pool2DOptions', padding: PADDING[t.i8(0)], strideW: t.i32(1), strideH: t.i32(2),
        filterW: t.i32(3), filterH: t.i32(4), activation: ACTIVATION[t.i8(5)] };
    case OPT.AddOptions:
      return { kind: 'AddOptions', activation: ACTIVATION[t.i8(0)] };
    case OPT.ReshapeOptions:
      return { kind: 'ReshapeOptions', newShape: t.ints(0) };
    case OPT.SoftmaxOptions:
      return { kind: 'SoftmaxOptions', beta: t.f32(0) };
    default:
      return { type };
  }
}

/**
 * Parses a .tflite file.
 * @param {Uint8Array} bytes
 * @returns {{version:number, description:string|null, operatorCodes:{code:number,name:string,version:number}[],
 *   subgraphs:{name:string|null, inputs:number[], outputs:number[],
 *     tensors:{index:number,name:string,shape:number[],type:string,buffer:number,
 *       quantization:{scale:number[],zeroPoint:number[],quantizedDimension:number}|null}[],
 *     operators:{index:number,opcode:number,op:string,inputs:number[],outputs:number[],options:object}[]}[],
 *   buffers:(Uint8Array|null)[]}}
 */
export function readTflite(bytes) {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (u8.length < 8) throw new Error('tflite: file too short');
  const bb = new flatbuffers.ByteBuffer(u8);
  if (!bb.__has_identifier('TFL3')) throw new Error('tflite: missing file identifier TFL3 (not a TFLite model?)');
  const root = new Table(bb, bb.readInt32(bb.position()) + bb.position());
  const operatorCodes = root.tables(1).map((t) => {
    const code = Math.max(t.i8(0), t.i32(3)); // schema rule: builtin_code = max(builtin_code, deprecated_builtin_code)
    return { code, name: BUILTIN_NAME[code] ?? `BUILTIN_${code}`, version: t.i32(2, 1) };
  });
  const buffers = root.tables(4).map((t) => {
    const d = t.bytes(0);
    return d && d.length ? d : null;
  });
  const subgraphs = root.tables(2).map((sg) => {
    const tensors = sg.tables(0).map((t, index) => {
      const q = t.table(4);
      let quantization = null;
      if (q) {
        const scale = q.floats(2);
        if (scale.length) quantization = { scale, zeroPoint: q.longs(3), quantizedDimension: q.i32(6) };
      }
      const typeCode = t.i8(1);
      const type = TENSOR_TYPE[typeCode];
      if (!type) throw new Error(`tflite: tensor ${index} has unsupported type code ${typeCode}`);
      return { index, name: t.str(3) ?? '', shape: t.ints(0), type, buffer: t.u32(2), quantization };
    });
    const operators = sg.tables(3).map((o, index) => {
      const opcode = o.u32(0);
      if (opcode >= operatorCodes.length) throw new Error(`tflite: operator ${index} has opcode index ${opcode} out of range`);
      return { index, opcode, op: operatorCodes[opcode].name, inputs: o.ints(1), outputs: o.ints(2),
        options: readOptions(o.u8(3), o.table(4)) };
    });
    return { name: sg.str(4), inputs: sg.ints(1), outputs: sg.ints(2), tensors, operators };
  });
  return { version: root.u32(0), description: root.str(3), operatorCodes, subgraphs, buffers };
}

/** The constant data of tensor t (from its buffer) as a typed array of its type (copied, aligned), or null. */
export function tensorValues(model, t) {
  const raw = model.buffers[t.buffer];
  if (!raw) return null;
  const count = t.shape.reduce((a, d) => a * d, 1);
  const copy = raw.slice(); // aligned copy
  const ctor = { UINT8: Uint8Array, INT8: Int8Array, INT32: Int32Array, FLOAT32: Float32Array, INT64: BigInt64Array, INT16: Int16Array }[t.type];
  if (!ctor) throw new Error(`tflite: tensor ${t.index} (${t.name}): cannot read type ${t.type}`);
  if (copy.byteLength !== count * ctor.BYTES_PER_ELEMENT)
    throw new Error(`tflite: tensor ${t.index} (${t.name}): buffer has ${copy.byteLength} bytes, shape ${t.shape} needs ${count * ctor.BYTES_PER_ELEMENT}`);
  return new ctor(copy.buffer, copy.byteOffset, count);
}
