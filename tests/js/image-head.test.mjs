// image-head.test.mjs — web/runtime/image-head.js under malformed files (issue 13: of 34 malformed buffers, 9
// returned garbage and 6 threw raw TypeError / RangeError). Every case must throw an Error whose message
// names the problem; the valid shapes keep working. ~50 ms.
import test from 'node:test';
import assert from 'node:assert/strict';
import { parseSafetensors, readImageHead } from '../../web/runtime/image-head.js';

const enc = new TextEncoder();
const f32 = (...v) => new Uint8Array(new Float32Array(v).buffer);

// u64 LE header length + header text (or bytes) + data.
function file(header, data = new Uint8Array(0)) {
  const hb = header instanceof Uint8Array ? header : enc.encode(typeof header === 'string' ? header : JSON.stringify(header));
  const out = new Uint8Array(8 + hb.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(hb.length), true);
  out.set(hb, 8);
  out.set(data, 8 + hb.length);
  return out;
}

// A valid head: weight F32 [2,3] (24 bytes) + bias F32 [2] (8 bytes).
const W = f32(1, 2, 3, 4, 5, 6);
const B = f32(0.5, -0.5);
const good = () => ({ weight: { dtype: 'F32', shape: [2, 3], data_offsets: [0, 24] }, bias: { dtype: 'F32', shape: [2], data_offsets: [24, 32] } });
const goodData = () => new Uint8Array([...W, ...B]);

function throwsError(fn, re) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error && !(e instanceof TypeError) && !(e instanceof RangeError), `raw ${e?.constructor?.name}: ${e?.message}`);
    assert.match(e.message, re);
    return true;
  });
}

test('the valid head reads; quantised and F32 forms', () => {
  const h = readImageHead(file(good(), goodData()));
  assert.deepEqual([h.C, h.K], [2, 3]);
  assert.deepEqual([...h.weight], [1, 2, 3, 4, 5, 6]);
  assert.deepEqual([...h.bias], [0.5, -0.5]);
  const st = parseSafetensors(file({ __metadata__: { format: 'pt' }, ...good() }, goodData()).buffer);
  assert.equal(Object.getPrototypeOf(st), null);
  assert.deepEqual(Object.keys(st).sort(), ['bias', 'weight']);
});

test('header-level problems', () => {
  throwsError(() => parseSafetensors(new Uint8Array(0)), /too short \(0 bytes/);
  throwsError(() => parseSafetensors('not bytes'), /expected an ArrayBuffer/);
  const huge = new Uint8Array(16);
  new DataView(huge.buffer).setBigUint64(0, 0xffffffffffffffffn, true);
  throwsError(() => parseSafetensors(huge), /header length 18446744073709551615 exceeds the file size 16/);
  throwsError(() => parseSafetensors(file(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))), /not valid UTF-8/);
  throwsError(() => parseSafetensors(file('{')), /not JSON/);
  throwsError(() => parseSafetensors(file('42')), /not a JSON object \(it is a number\)/);
  throwsError(() => parseSafetensors(file('[1]')), /not a JSON object \(it is an array\)/);
  throwsError(() => parseSafetensors(file('null')), /not a JSON object \(it is null\)/);
  const dup = '{"bias":{"dtype":"F32","shape":[2],"data_offsets":[24,32]},"bias":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}';
  throwsError(() => parseSafetensors(file(dup, goodData())), /the key "bias" twice/);
  // keys inside strings or nested objects are not top-level keys
  const nested = { __metadata__: { bias: 'x', note: '"bias":' }, ...good() };
  assert.ok(parseSafetensors(file(nested, goodData())).bias);
});

test('entry-level problems: dtype, shape, offsets, sizes, overlaps', () => {
  const cases = [
    [{ weight: 5 }, /tensor "weight" is not an object/],
    [{ weight: { ...good().weight, dtype: 'I64' } }, /dtype "I64", expected "F32" or "U8"/],
    [{ weight: { ...good().weight, dtype: 'toString' } }, /dtype "toString"/],
    [{ weight: { ...good().weight, shape: [-2, -3] } }, /shape must be an array of non-negative integers, got \[-2,-3\]/],
    [{ weight: { ...good().weight, shape: [2.5, 3] } }, /shape must be an array of non-negative integers/],
    [{ weight: { ...good().weight, shape: '23' } }, /shape must be an array/],
    [{ weight: { ...good().weight, data_offsets: [-8, 0] } }, /data_offsets must be \[begin, end\] with 0 ≤ begin ≤ end, got \[-8,0\]/],
    [{ weight: { ...good().weight, data_offsets: [24, 0] } }, /data_offsets must be/],
    [{ weight: { ...good().weight, data_offsets: [0] } }, /data_offsets must be/],
    [{ weight: { ...good().weight, data_offsets: [0, 20] } }, /wrong size: data_offsets \[0, 20\] hold 20 bytes, dtype F32 × shape \[2,3\] needs 24/],
    [{ weight: { ...good().weight, shape: [2, 9007199254740991] } }, /wrong size/],
    [{ weight: { ...good().weight, data_offsets: [8, 32] }, bias: { ...good().bias, data_offsets: [32, 40] } }, /exceed the data size 32/],
    [{ weight: good().weight, bias: { ...good().bias, data_offsets: [16, 24] } }, /tensor "bias" overlaps tensor "weight" \(bytes 16–24\)/],
  ];
  for (const [header, re] of cases) throwsError(() => readImageHead(file(header, goodData())), re);
  // ten tensors at the same offsets
  const ten = {};
  for (let i = 0; i < 10; i++) ten[`t${i}`] = { dtype: 'F32', shape: [2], data_offsets: [0, 8] };
  throwsError(() => parseSafetensors(file(ten, new Uint8Array(8))), /overlaps/);
  // zero-size tensors may sit anywhere
  const zero = { ...good(), e: { dtype: 'F32', shape: [2, 0], data_offsets: [8, 8] } };
  assert.equal(parseSafetensors(file(zero, goodData())).e.data.length, 0);
});

test('head-level problems: names, dtypes, ranks, values', () => {
  const q = (over = {}) => ({
    weight_q: { dtype: 'U8', shape: [2, 3], data_offsets: [0, 6] },
    weight_scale: { dtype: 'F32', shape: [2], data_offsets: [8, 16] },
    weight_zero_point: { dtype: 'F32', shape: [2], data_offsets: [16, 24] },
    bias: { dtype: 'F32', shape: [2], data_offsets: [24, 32] },
    ...over,
  });
  const qData = new Uint8Array([1, 2, 3, 4, 5, 6, 0, 0, ...f32(0.5, 0.25), ...f32(0, 2), ...f32(1, -1)]);
  assert.deepEqual([...readImageHead(file(q(), qData)).weight], [0.5, 1, 1.5, 0.5, 0.75, 1]);
  const cases = [
    [q({ weight_q: { dtype: 'U8', shape: [6], data_offsets: [0, 6] } }), qData, /`weight_q` has shape \[6\], expected \[C, K\]/],
    [{ weight: { dtype: 'U8', shape: [2, 3], data_offsets: [0, 6] }, bias: good().bias }, new Uint8Array([...W.subarray(0, 24), ...B]), /`weight` is U8, expected F32/],
    [{ weight: { dtype: 'F32', shape: [1, 2, 3], data_offsets: [0, 24] }, bias: good().bias }, goodData(), /`weight` has shape \[1,2,3\], expected \[C, K\]/],
    [{ weight: good().weight, bias: { dtype: 'F32', shape: [1, 2], data_offsets: [24, 32] } }, goodData(), /`bias` has shape \[1,2\], expected \[C\]/],
    [good(), new Uint8Array([...W, ...f32(NaN, 1)]), /`bias` contains NaN or infinite values/],
    [good(), new Uint8Array([...f32(1, 2, Infinity, 4, 5, 6), ...B]), /`weight` contains NaN or infinite values/],
    [{ weight: { dtype: 'F32', shape: [0, 3], data_offsets: [0, 0] }, bias: { dtype: 'F32', shape: [0], data_offsets: [0, 0] } }, new Uint8Array(0), /has shape \[0\], expected \[C\] with C, K ≥ 1/],
    [{ ...good(), bias: { dtype: 'F32', shape: [3], data_offsets: [24, 36] } }, new Uint8Array([...W, ...f32(1, 2, 3)]), /bias \[3\] does not match its weight \[2, 3\]/],
    [{ ...good(), __proto__x: 1 }, goodData(), /tensor "__proto__x" is not an object/],
    [{ ...good(), extra: { dtype: 'F32', shape: [0], data_offsets: [32, 32] } }, goodData(), /unexpected tensor "extra"/],
    [{ ...good(), ...q() }, new Uint8Array(32), /overlaps|both `weight` and `weight_q`/],
    [q({ weight_scale: { dtype: 'F32', shape: [3], data_offsets: [8, 20] }, weight_zero_point: { dtype: 'F32', shape: [1], data_offsets: [20, 24] } }), qData, /do not match weight_q/],
    [{ bias: good().bias }, goodData(), /neither `weight` nor `weight_q`/],
    [{ weight: good().weight }, goodData(), /no `bias` tensor/],
  ];
  for (const [header, data, re] of cases) throwsError(() => readImageHead(file(header, data)), re);
  // a `__proto__` key is an ordinary (unexpected) name, not the object's prototype
  const proto = `{"__proto__":{"dtype":"F32","shape":[0],"data_offsets":[32,32]},${JSON.stringify(good()).slice(1)}`;
  const st = parseSafetensors(file(proto, goodData()));
  assert.ok(Object.hasOwn(st, '__proto__'));
  throwsError(() => readImageHead(file(proto, goodData())), /unexpected tensor "__proto__"/);
});
