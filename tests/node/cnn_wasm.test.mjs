// cnn_wasm.test.mjs — the localization lab's wasm API (wasm/cnn_bindings.cpp: CnnTrainer, loadCnnModel) loaded
// from web/gen/attnlab_core.{mjs,wasm} with createModule({ wasmBinary }).
// Checks:
//   - wasm vs native on a tiny fixed configuration (32×32, default widths 16/32/64, LSE head, CBAM everywhere,
//     64 training / 32 validation images, batch 16, 2 epochs, seed 3): `build/attnlab train-cnn … --storage f32`
//     (config.json training.per_epoch and metrics.test_decorrelated on 50 test images) and the wasm trainer
//     stepped to the end give the same per-epoch loss / accuracy and the same test metrics (float tolerance),
//     and the same weights to 1e-4;
//   - probes / erase / weights / configJson shapes; a downloaded model loads back with identical metrics;
//   - bad options, bad model bytes and misuse give clear Errors (no abort; the module keeps working).
// Skips only when web/gen (or, for the parity test, build/attnlab) is missing.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MJS = path.join(process.env.ATTNLAB_WASM_DIR ? path.resolve(process.env.ATTNLAB_WASM_DIR) : path.join(ROOT, 'web/gen'), 'attnlab_core.mjs');
const WASM = path.join(process.env.ATTNLAB_WASM_DIR ? path.resolve(process.env.ATTNLAB_WASM_DIR) : path.join(ROOT, 'web/gen'), 'attnlab_core.wasm');
const CLI = path.join(ROOT, 'build/attnlab');
const haveWasm = fs.existsSync(MJS) && fs.existsSync(WASM);
const haveCli = fs.existsSync(CLI);

let M;
async function core() {
  if (!M) {
    const { default: createModule } = await import(pathToFileURL(MJS).href);
    M = await createModule({ wasmBinary: fs.readFileSync(WASM) });
  }
  return M;
}

const TINY = { imageSize: 32, head: 'lse', cbam: 'all', trainSize: 64, valSize: 32, batchSize: 16, epochs: 2, seed: 3, testSize: 50 };
const near = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: wasm ${a} vs native ${b} (tol ${tol})`);

function trainWasm(m, options) {
  const t = new m.CnnTrainer(options);
  const epochs = [];
  let steps = 0;
  while (!t.done()) {
    const p = t.step(3);
    steps++;
    if (p.epoch_done) epochs.push(p.stats);
  }
  return { t, epochs, steps };
}

function safetensors(buf) {
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const tensor = (name) => {
    const [s, e] = header[name].data_offsets;
    return Float32Array.from({ length: (e - s) / 4 }, (_, i) => buf.readFloatLE(8 + n + s + 4 * i));
  };
  return { header, tensor };
}

test('cnn wasm: same training and metrics as the native CLI on a tiny config', { skip: (!haveWasm && 'no web/gen') || (!haveCli && 'no build/attnlab') }, async () => {
  const m = await core();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-cnn-'));
  try {
    execFileSync(CLI, ['train-cnn', '--out', dir, '--image-size', '32', '--head', 'lse', '--cbam', 'all', '--train-size', '64',
      '--val-size', '32', '--batch-size', '16', '--epochs', '2', '--seed', '3', '--test-size', '50', '--storage', 'f32'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const native = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
    const { t, epochs, steps } = trainWasm(m, TINY);
    assert.ok(steps > 2, 'trained in several steps');
    assert.equal(epochs.length, 2);
    native.training.per_epoch.forEach((e, i) => {
      near(epochs[i].train_loss, e.train_loss, 1e-4, `epoch ${i + 1} train loss`);
      near(epochs[i].val_loss, e.val_loss, 1e-4, `epoch ${i + 1} val loss`);
      near(epochs[i].train_accuracy, e.train_accuracy, 1e-9, `epoch ${i + 1} train accuracy`);
      near(epochs[i].val_accuracy, e.val_accuracy, 1e-9, `epoch ${i + 1} val accuracy`);
    });
    const wm = t.metrics(50).decorrelated;
    const nm = native.metrics.test_decorrelated;
    for (const k of ['accuracy', 'pointing_game']) near(wm[k], nm[k], 1e-9, k);
    for (const k of ['loss', 'mask_iou', 'energy_in_mask', 'mask_fraction']) near(wm[k], nm[k], 1e-4, k);
    // Weights: same names and shapes, values to 1e-4.
    const a = safetensors(Buffer.from(t.weights()));
    const b = safetensors(fs.readFileSync(path.join(dir, 'model.safetensors')));
    const names = Object.keys(b.header).filter((k) => k !== '__metadata__').sort();
    assert.deepEqual(Object.keys(a.header).filter((k) => k !== '__metadata__').sort(), names);
    let maxd = 0;
    for (const name of names) {
      assert.deepEqual(a.header[name].shape, b.header[name].shape, name);
      const x = a.tensor(name), y = b.tensor(name);
      for (let i = 0; i < x.length; i++) maxd = Math.max(maxd, Math.abs(x[i] - y[i]));
    }
    console.log(`# cnn wasm vs native: max |Δweight| ${maxd.toExponential(2)}`);
    assert.ok(maxd <= 1e-4, `weights differ by ${maxd}`);
    t.delete();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('cnn wasm: probes, erasing, download and load back', { skip: !haveWasm && 'no web/gen' }, async () => {
  const m = await core();
  const { t } = trainWasm(m, { ...TINY, epochs: 1, probes: 4 });
  const p = t.probes();
  assert.equal(p.n, 4);
  assert.equal(p.size, 32);
  assert.ok(p.images instanceof Float32Array && p.images.length === 4 * 3 * 32 * 32);
  assert.ok(p.masks instanceof Uint8Array && p.masks.length === 4 * 32 * 32);
  assert.deepEqual(p.labels, [0, 1, 2, 3]);
  assert.equal(p.cam.h, 8);
  assert.equal(p.cam.data.length, 4 * 8 * 8);
  assert.deepEqual(p.spatial.map((s) => [s.stage, s.h, s.w, s.data.length]), [[1, 32, 32, 4096], [2, 16, 16, 1024], [3, 8, 8, 256]]);
  for (const s of p.spatial) assert.ok(s.data.every((v) => v > 0 && v < 1), 'spatial attention is a sigmoid');
  // The masks are the pixels painted in the object colour: they differ from the background around them.
  assert.ok(p.masks.some((v) => v === 1) && p.masks.some((v) => v === 0));

  const e = t.erase(3, 0.5, 40, 2);
  assert.equal(e.steps.length, 3);
  for (let k = 1; k < 3; k++) assert.ok(e.steps[k].recall >= e.steps[k - 1].recall && e.steps[k].union_area >= e.steps[k - 1].union_area);
  assert.equal(e.images.length, 2 * 3 * 3 * 32 * 32);
  assert.equal(e.maps.length, 2 * 3 * 32 * 32);
  assert.equal(e.unions.length, 2 * 3 * 32 * 32);

  const before = t.metrics(100);
  const config = t.configJson();
  const weights = t.weights();
  const parsed = JSON.parse(config);
  assert.equal(parsed.format, 'attnlab-cnn-v1');
  assert.equal(parsed.head, 'lse');
  assert.equal(parsed.training.seed, 3);
  const l = m.loadCnnModel(config, weights);
  assert.ok(l.done());
  assert.deepEqual(l.metrics(100), before, 'the loaded model scores the same');
  assert.deepEqual(Array.from(l.probes().cam.data.subarray(0, p.cam.data.length)), Array.from(p.cam.data), 'same maps (a loaded model shows 6 probes)');
  l.delete();
  t.delete();
});

test('cnn wasm: a confounded run is also scored on confounded test images', { skip: !haveWasm && 'no web/gen' }, async () => {
  const m = await core();
  const { t } = trainWasm(m, { ...TINY, epochs: 1, confounder: 0.9 });
  const r = t.metrics(60);
  assert.equal(r.confounder, 0.9);
  assert.equal(r.decorrelated.n, 60);
  assert.equal(r.confounded.n, 60);
  assert.ok(r.confounded.background_energy >= 0 && r.confounded.background_energy <= 1);
  assert.equal(JSON.parse(t.configJson()).training.confounder, 0.9);
  const clean = trainWasm(m, { ...TINY, epochs: 1 }).t;
  assert.equal(clean.metrics(60).confounded, undefined);
  clean.delete();
  t.delete();
});

test('cnn wasm: clear errors, and the module keeps working', { skip: !haveWasm && 'no web/gen' }, async () => {
  const m = await core();
  assert.throws(() => new m.CnnTrainer('not json'), /options must be a JSON object/);
  assert.throws(() => new m.CnnTrainer({ head: 'avg' }), /head must be gap, gmp or lse, got 'avg'/);
  assert.throws(() => new m.CnnTrainer({ cbam: 'stage9' }), /cbam must be none, all, or stage1\.\.stage3/);
  assert.throws(() => new m.CnnTrainer({ epochs: 0 }), /epochs must be a number in \[1, 200\]/);
  assert.throws(() => new m.CnnTrainer({ epochs: 1.5 }), /epochs must be an integer/);
  assert.throws(() => new m.CnnTrainer({ confounder: 2 }), /confounder must be a number in \[0, 1\]/);
  assert.throws(() => new m.CnnTrainer({ imageSize: 'big' }), /imageSize must be a number/);
  assert.throws(() => new m.CnnTrainer({ widths: [8, 16], pool: [true] }), /pool must have one entry per stage/);
  assert.throws(() => m.loadCnnModel('{}', new Uint8Array(4)), /loadCnnModel: .*format/);
  assert.throws(() => m.loadCnnModel('{}', [1, 2]), /must be a Uint8Array/);
  const { t } = trainWasm(m, { ...TINY, epochs: 1 });
  assert.throws(() => t.step(1), /the training has finished/);
  assert.throws(() => t.step(0), /maxBatches must be a positive integer/);
  assert.throws(() => t.erase(0, 0.5), /k \(steps\) must be an integer in 1\.\.8/);
  assert.throws(() => t.erase(2, 1.5), /threshold must be in \(0, 1\)/);
  const cfg = JSON.parse(t.configJson());
  cfg.widths = [16, 32, 99];
  assert.throws(() => m.loadCnnModel(JSON.stringify(cfg), t.weights()), /loadCnnModel: /);
  const l = m.loadCnnModel(t.configJson(), t.weights());
  assert.throws(() => l.step(1), /a loaded model does not train/);
  assert.ok(t.metrics(20).decorrelated.n === 20, 'still works after the errors');
  l.delete();
  t.delete();
});
