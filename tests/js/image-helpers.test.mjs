// image-helpers.test.mjs — the pure helpers of web/runtime/image-worker.js: image headers (size and EXIF
// orientation without decoding), the decode size cap, top-k, safetensors parsing, planar → RGBA, and the one
// perturbation-plan loop (batches, progress, cancel between batches) with a fake plan and a fake network.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import jpeg from 'jpeg-js';
import { readImageHeader, fitSize, topK, argmax, planarToRgba, gifFrameCount, MAX_SIDE } from '../../web/runtime/image/decode.js';
import { gifAnimated } from '../e2e/image-files.mjs';
import { parseSafetensors, readImageHead } from '../../web/runtime/image-head.js';
import { runPlanLoop } from '../../web/runtime/plan-runner.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const IMAGES = path.join(REPO, 'web/images');

test('PNG and JPEG demo photos: the header size equals the decoded size', () => {
  for (const f of fs.readdirSync(IMAGES).filter((n) => /\.(png|jpg)$/.test(n))) {
    const bytes = fs.readFileSync(path.join(IMAGES, f));
    const h = readImageHeader(new Uint8Array(bytes));
    assert.ok(h, f);
    const img = f.endsWith('.png') ? PNG.sync.read(bytes) : jpeg.decode(bytes, { useTArray: true });
    assert.deepEqual([h.width, h.height], [img.width, img.height], f);
    assert.equal(h.format, f.endsWith('.png') ? 'png' : 'jpeg');
  }
});

function jpegWithOrientation(orientation, littleEndian) {
  const base = jpeg.encode({ data: new Uint8Array(40 * 20 * 4).fill(128), width: 40, height: 20 }, 90).data;
  // APP1 Exif with one IFD0 entry: 0x0112 SHORT 1 = orientation.
  const tiff = [];
  const w16 = (v) => (littleEndian ? tiff.push(v & 255, v >> 8) : tiff.push(v >> 8, v & 255));
  const w32 = (v) => (littleEndian ? tiff.push(v & 255, (v >> 8) & 255, (v >> 16) & 255, v >>> 24) : tiff.push(v >>> 24, (v >> 16) & 255, (v >> 8) & 255, v & 255));
  tiff.push(...(littleEndian ? [0x49, 0x49] : [0x4d, 0x4d]));
  w16(42); w32(8); w16(1); w16(0x0112); w16(3); w32(1); w16(orientation); w16(0); w32(0);
  const payload = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff];
  const len = payload.length + 2;
  const app1 = [0xff, 0xe1, len >> 8, len & 255, ...payload];
  return new Uint8Array([...base.subarray(0, 2), ...app1, ...base.subarray(2)]);
}

test('JPEG EXIF orientation is read (both byte orders); size stays the stored one', () => {
  for (const le of [true, false]) {
    for (const o of [1, 3, 6, 8]) {
      const h = readImageHeader(jpegWithOrientation(o, le));
      assert.deepEqual(h, { format: 'jpeg', width: 40, height: 20, orientation: o });
    }
  }
});

test('gifFrameCount walks the GIF blocks: 3 frames, 1 frame, a cut file counts what it holds, not a GIF → 0', () => {
  const three = gifAnimated(40, 30, [1, 2, 3]);
  assert.equal(gifFrameCount(three), 3);
  assert.equal(gifFrameCount(gifAnimated(40, 30, [2])), 1);
  const oneFrame = gifAnimated(40, 30, [2]).length - 1; // everything but the trailer of a 1-frame file
  assert.equal(gifFrameCount(three.subarray(0, oneFrame + 40)), 2, 'the second frame starts inside the prefix');
  assert.equal(gifFrameCount(new Uint8Array([0x89, 0x50, 0x4e, 0x47])), 0);
  assert.equal(readImageHeader(three).format, 'gif');
});

test('GIF, BMP and WebP headers', () => {
  const gif = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 10, 0, 12, 0, 0, 0]);
  assert.deepEqual(readImageHeader(gif), { format: 'gif', width: 10, height: 12, orientation: 1 });
  const bmp = new Uint8Array(54);
  bmp.set([0x42, 0x4d]);
  new DataView(bmp.buffer).setInt32(18, 300, true);
  new DataView(bmp.buffer).setInt32(22, -200, true); // top-down BMP
  assert.deepEqual(readImageHeader(bmp), { format: 'bmp', width: 300, height: 200, orientation: 1 });
  const webp = new Uint8Array(30);
  webp.set([...Buffer.from('RIFF'), 0, 0, 0, 0, ...Buffer.from('WEBPVP8X')]);
  webp.set([0xff, 0x1f, 0x00], 24); // width − 1 = 8191
  webp.set([0x3f, 0x1f, 0x00], 27); // height − 1 = 7999
  assert.deepEqual(readImageHeader(webp), { format: 'webp', width: 8192, height: 8000, orientation: 1 });
});

test('non-images and corrupt JPEG markers give null', () => {
  assert.equal(readImageHeader(new TextEncoder().encode('hello, I am a text file, not a photo')), null);
  assert.equal(readImageHeader(new Uint8Array(0)), null);
  assert.equal(readImageHeader(new Uint8Array([0xff, 0xd8, 0x12, 0x34, 0, 0, 0, 0])), null);
});

test('fitSize caps the long side, keeps the aspect ratio', () => {
  assert.deepEqual(fitSize(8000, 8000), { width: MAX_SIDE, height: MAX_SIDE, scaled: true });
  assert.deepEqual(fitSize(8000, 2000), { width: 1024, height: 256, scaled: true });
  assert.deepEqual(fitSize(640, 480), { width: 640, height: 480, scaled: false });
  assert.deepEqual(fitSize(100000, 10), { width: 1024, height: 1, scaled: true });
});

test('topK and argmax', () => {
  const p = Float32Array.from([0.1, 0.5, 0.05, 0.2, 0.15]);
  assert.deepEqual(topK(p, 3), [1, 3, 4]);
  assert.equal(argmax(p), 1);
  assert.deepEqual(topK(Float32Array.from([0.3, 0.3, 0.4]), 2), [2, 0], 'ties by index');
});

test('parseSafetensors reads F32 tensors and rejects broken files', () => {
  const header = JSON.stringify({ w: { dtype: 'F32', shape: [2, 3], data_offsets: [0, 24] }, b: { dtype: 'F32', shape: [2], data_offsets: [24, 32] } });
  const hb = Buffer.from(header);
  const buf = new Uint8Array(8 + hb.length + 32);
  new DataView(buf.buffer).setBigUint64(0, BigInt(hb.length), true);
  buf.set(hb, 8);
  new Float32Array(buf.buffer.slice(0)); // noop
  const data = new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]);
  buf.set(new Uint8Array(data.buffer), 8 + hb.length);
  const t = parseSafetensors(buf);
  assert.deepEqual([...t.w.data], [1, 2, 3, 4, 5, 6]);
  assert.deepEqual(t.w.shape, [2, 3]);
  assert.deepEqual([...t.b.data], [7, 8]);
  assert.throws(() => parseSafetensors(buf.subarray(0, buf.length - 4)), /wrong size/);
  assert.throws(() => parseSafetensors(new Uint8Array(4)), /too short/);
});

test('readImageHead dequantises uint8 weights per row: (q − zp)·scale', () => {
  const tensors = {
    weight_q: { dtype: 'U8', shape: [2, 3], bytes: new Uint8Array([0, 128, 255, 10, 20, 30]) },
    weight_scale: { dtype: 'F32', shape: [2], bytes: new Uint8Array(new Float32Array([0.5, 0.25]).buffer) },
    weight_zero_point: { dtype: 'F32', shape: [2], bytes: new Uint8Array(new Float32Array([128, 20]).buffer) },
    bias: { dtype: 'F32', shape: [2], bytes: new Uint8Array(new Float32Array([1, -1]).buffer) },
  };
  const header = {};
  let off = 0;
  for (const [k, t] of Object.entries(tensors)) { header[k] = { dtype: t.dtype, shape: t.shape, data_offsets: [off, off + t.bytes.length] }; off += t.bytes.length; }
  const hb = Buffer.from(JSON.stringify(header));
  const buf = new Uint8Array(8 + hb.length + off);
  new DataView(buf.buffer).setBigUint64(0, BigInt(hb.length), true);
  buf.set(hb, 8);
  let p = 8 + hb.length;
  for (const t of Object.values(tensors)) { buf.set(t.bytes, p); p += t.bytes.length; }
  const h = readImageHead(buf);
  assert.equal(h.C, 2);
  assert.equal(h.K, 3);
  assert.deepEqual([...h.weight], [-64, 0, 63.5, -2.5, 0, 2.5]);
  assert.deepEqual([...h.bias], [1, -1]);
  delete header.weight_scale;
  assert.throws(() => readImageHead(parseFree(header, buf)), /neither/);
});
// the same bytes with a header that lacks a tensor (offsets unchanged)
function parseFree(header, buf) {
  const hb = Buffer.from(JSON.stringify(header));
  const oldLen = Number(new DataView(buf.buffer).getBigUint64(0, true));
  const out = new Uint8Array(8 + hb.length + buf.length - 8 - oldLen);
  new DataView(out.buffer).setBigUint64(0, BigInt(hb.length), true);
  out.set(hb, 8);
  out.set(buf.subarray(8 + oldLen), 8 + hb.length);
  return out;
}

test('the shipped classifier head reads as [1001,1280] + [1001]', { skip: !fs.existsSync(path.join(REPO, 'models/image/mobilenet_v2.head.safetensors')) && 'models/image not built' }, () => {
  const h = readImageHead(fs.readFileSync(path.join(REPO, 'models/image/mobilenet_v2.head.safetensors')));
  assert.deepEqual([h.C, h.K], [1001, 1280]);
  assert.equal(h.weight.length, 1001 * 1280);
  assert.equal(h.bias.length, 1001);
  // dequantised uint8 weights are small; garbage (a misaligned or shared buffer) would not be
  assert.ok(h.weight.every((v) => Number.isFinite(v) && Math.abs(v) < 10), 'plausible weight values');
  assert.ok(h.bias.every((v) => Number.isFinite(v) && Math.abs(v) < 100), 'plausible bias values');
});

test('planarToRgba interleaves and sets alpha', () => {
  const planar = Float32Array.from([10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]); // 3×(2×2)
  assert.deepEqual([...planarToRgba(planar, 2, 2)], [10, 50, 90, 255, 20, 60, 100, 255, 30, 70, 110, 255, 40, 80, 120, 255]);
});

// A fake plan: 19 inputs; each input's first value is its index; accept() records what it got.
function fakePlan(total = 19) {
  const seen = [];
  return {
    seen,
    count: () => total,
    inputs: (start, n) => {
      const a = new Float32Array(n * 3 * 224 * 224);
      for (let i = 0; i < n; i++) a[i * 3 * 224 * 224] = start + i;
      return a;
    },
    accept: (start, logits) => seen.push([start, Array.from(logits)]),
  };
}
const fakeForward = async (input, n) => Float32Array.from({ length: n }, (_, i) => input[i * 3 * 224 * 224] * 10);

test('runPlanLoop: batches cover every input once, in order, with progress', async () => {
  const plan = fakePlan(19);
  const progress = [];
  const ok = await runPlanLoop(plan, { batch: 8, forward: fakeForward, onProgress: (d, t) => progress.push([d, t]) });
  assert.equal(ok, true);
  assert.deepEqual(plan.seen, [[0, [0, 10, 20, 30, 40, 50, 60, 70]], [8, [80, 90, 100, 110, 120, 130, 140, 150]], [16, [160, 170, 180]]]);
  assert.deepEqual(progress, [[0, 19], [8, 19], [16, 19], [19, 19]]);
});

test('runPlanLoop: cancel is checked between batches', async () => {
  const plan = fakePlan(40);
  let batches = 0;
  const ok = await runPlanLoop(plan, { batch: 8, forward: async (i, n) => { batches++; return fakeForward(i, n); }, isCancelled: () => batches >= 2 });
  assert.equal(ok, false);
  assert.equal(plan.seen.length, 2);
});

test('runPlanLoop: a forward error propagates; a wrong input size is an error', async () => {
  await assert.rejects(runPlanLoop(fakePlan(3), { batch: 2, forward: async () => { throw new Error('ORT broke'); } }), /ORT broke/);
  const bad = { ...fakePlan(3), inputs: () => new Float32Array(5) };
  await assert.rejects(runPlanLoop(bad, { batch: 2, forward: fakeForward }), /gave 5 values for 2 inputs/);
});
