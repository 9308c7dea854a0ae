// The native CLI's ONNX commands end to end (build/attnlab onnx-info / explain-onnx) on a committed
// torchvision fixture: the JSON contract, Grad-CAM at the fixture's layer equal to PyTorch's reference
// (tests/fixtures/onnx/<arch>/reference.safetensors), and clear errors for bad files. ~2 s.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = process.env.ATTNLAB_CLI ? path.resolve(process.env.ATTNLAB_CLI) : path.join(root, 'build/attnlab');
const fx = path.join(root, 'tests/fixtures/onnx/squeezenet1_1');
const skip = existsSync(cli) ? false : 'build/attnlab missing';

function safetensors(file) {
  const b = readFileSync(file);
  const n = Number(b.readBigUInt64LE(0));
  const header = JSON.parse(b.subarray(8, 8 + n).toString());
  const out = {};
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [s, e] = t.data_offsets;
    const bytes = b.subarray(8 + n + s, 8 + n + e);
    out[name] = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  }
  return out;
}
const lastJson = (text) => JSON.parse(text.trim().split('\n').pop());

test('onnx-info summarises a torchvision model', { skip }, () => {
  const info = lastJson(execFileSync(cli, ['onnx-info', '--model', path.join(fx, 'model.onnx')], { encoding: 'utf8' }));
  assert.equal(info.runnable, true);
  assert.deepEqual(info.unsupported, []);
  assert.equal(info.classes, 10);
  assert.ok(info.operators.Conv > 0 && info.parameters > 700000);
  assert.ok(info.spatial_layers.length > 5);
});

test('explain-onnx gradcam on a .f32 input equals the PyTorch reference', { skip }, () => {
  const ref = safetensors(path.join(fx, 'reference.safetensors'));
  const meta = JSON.parse(readFileSync(path.join(fx, 'meta.json'), 'utf8'));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'onnx-cli-'));
  const input = path.join(dir, 'x.f32');
  writeFileSync(input, Buffer.from(ref.input.buffer));
  const out = lastJson(execFileSync(cli, ['explain-onnx', '--model', path.join(fx, 'model.onnx'), '--image', input,
    '--method', 'gradcam', '--layer', meta.layer], { encoding: 'utf8' }));
  assert.equal(out.class, meta.class);
  assert.equal(out.layer, meta.layer);
  assert.deepEqual(out.map_shape, meta.layer_shape.slice(2));
  const scale = Math.max(...ref.gradcam.map(Math.abs));
  const err = Math.max(...out.map.map((v, k) => Math.abs(v - ref.gradcam[k]))) / scale;
  assert.ok(err < 1e-4, `Grad-CAM off by ${err}`);
  const lscale = Math.max(...ref.logits.map(Math.abs));
  assert.ok(Math.max(...out.logits.map((v, k) => Math.abs(v - ref.logits[k]))) / lscale < 1e-4);
  // integrated gradients reports its completeness check
  const ig = lastJson(execFileSync(cli, ['explain-onnx', '--model', path.join(fx, 'model.onnx'), '--image', input,
    '--method', 'integrated-gradients', '--steps', '4'], { encoding: 'utf8' }));
  assert.deepEqual(ig.map_shape, [112, 112]);
  assert.ok(Number.isFinite(ig.completeness.sum) && Number.isFinite(ig.completeness.target));
});

test('bad files give one clear error line', { skip }, () => {
  const r = spawnSync(cli, ['onnx-info', '--model', path.join(root, 'README.md')], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /not an ONNX model/);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'onnx-cli-'));
  const bad = path.join(dir, 'x.f32');
  writeFileSync(bad, Buffer.alloc(12));
  const r2 = spawnSync(cli, ['explain-onnx', '--model', path.join(fx, 'model.onnx'), '--image', bad], { encoding: 'utf8' });
  assert.equal(r2.status, 1);
  assert.match(r2.stderr, /needs 150528/);
});
