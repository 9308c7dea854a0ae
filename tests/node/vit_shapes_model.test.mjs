// The shipped ViT trained on the localisation lab's shapes (models/image/vit-shapes, issue 30): its files are what
// eval.json recorded (model.onnx's sha256 and size, small), meta.json keeps the recipe, and the recorded check is
// re-derived by the native CLI: `attnlab eval-onnx-shapes` on 300 test images (eval.json "check.args") must give the
// recorded accuracy exactly and the attention / rollout rows within 1e-6 (the run is deterministic, on any thread
// count; the bound leaves room for the executor's float rounding, which moved them by 1.4e-9 when its products were
// cut into parts for the threads, core/onnx/ops/parts.h). Negative control: the same
// command on another test seed gives other numbers. The RESULTS table (1,000 images, every method) is eval.json
// "results", written by the same command with --n 1000.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const dir = path.join(root, 'models/image/vit-shapes');
const cli = process.env.ATTNLAB_CLI ? path.resolve(process.env.ATTNLAB_CLI) : path.join(root, 'build/attnlab');
const evalJson = JSON.parse(fs.readFileSync(path.join(dir, 'eval.json'), 'utf8'));
const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));

test('vit-shapes: the model file is the one evaluated, small; meta.json keeps the recipe', () => {
  const bytes = fs.readFileSync(path.join(dir, 'model.onnx'));
  assert.equal(bytes.length, evalJson.model.bytes);
  assert.equal(createHash('sha256').update(bytes).digest('hex'), evalJson.model.sha256);
  assert.ok(bytes.length <= 512 * 1024, `${bytes.length} bytes`);
  assert.equal(meta.architecture, 'torchvision VisionTransformer');
  assert.equal(meta.image_size, 64);
  assert.ok(meta.training.per_epoch.length === meta.training.epochs, 'one log line per epoch');
  assert.equal(Math.max(...meta.training.per_epoch.map((e) => e.val_accuracy)), meta.training.best_validation_accuracy);
  assert.match(meta.command, /train-vit-shapes\.py/);
});

const run = (args) => JSON.parse(execFileSync(cli, args, { cwd: root, encoding: 'utf8' }).trim().split('\n').at(-1));

test('vit-shapes: eval-onnx-shapes on 300 test images reproduces the recorded check; another seed does not', (t) => {
  if (!fs.existsSync(cli)) return t.skip(`${cli} not built`);
  const { args, result } = evalJson.check;
  assert.deepEqual(args.slice(0, 3), ['eval-onnx-shapes', '--model', 'models/image/vit-shapes/model.onnx']);
  const got = run(args);
  assert.equal(got.n, 300);
  assert.equal(got.accuracy, result.accuracy);
  for (const m of ['attention', 'rollout']) {
    for (const k of ['pointing_game', 'pointing_game_standard', 'energy_in_mask', 'mask_iou']) {
      assert.ok(Math.abs(got.methods[m][k] - result.methods[m][k]) < 1e-6, `${m} ${k}: ${got.methods[m][k]} vs ${result.methods[m][k]}`);
    }
  }
  const other = run(args.map((a, i) => (args[i - 1] === '--seed' ? '2' : a)));
  assert.ok(other.accuracy !== result.accuracy || other.methods.attention.energy_in_mask !== result.methods.attention.energy_in_mask,
    'another test seed must give other numbers');
});
