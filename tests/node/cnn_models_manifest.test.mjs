// The shipped localisation-lab CNN models (issue 5) are what models/cnn/manifest.json says: files present
// with the recorded sha256 and size, small (f16, ≤ 256 KB each), config matching the manifest's head / CBAM
// placement, and one cheap metric per model re-derived by the native CLI: `attnlab eval-cnn --model DIR
// --n 300` (300 generated test images, ~1 s each) must reproduce the recorded accuracy and energy-in-mask.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'models/cnn/manifest.json'), 'utf8'));
const cli = process.env.ATTNLAB_CLI ? path.resolve(process.env.ATTNLAB_CLI) : path.join(root, 'build/attnlab');

test('manifest lists the models the page offers', () => {
  assert.equal(manifest.format, 'attnlab-cnn-manifest-v1');
  for (const n of ['gap', 'gmp', 'lse-r5', 'cbam-all', 'confounded', 'balanced', 'confounded-gain'])
    assert.ok(n in manifest.models, `${n} missing`);
});

for (const [name, model] of Object.entries(manifest.models)) {
  const dir = path.join(root, 'models/cnn', name);
  test(`${name}: files match their sha256 and size, config matches the manifest`, () => {
    for (const [file, want] of Object.entries(model.files)) {
      const bytes = fs.readFileSync(path.join(dir, file));
      assert.equal(bytes.length, want.bytes, `${file} bytes`);
      assert.equal(createHash('sha256').update(bytes).digest('hex'), want.sha256, `${file} sha256`);
    }
    assert.ok(model.files['model.safetensors'].bytes <= 256 * 1024, `${name} weights too large`);
    const cfg = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
    assert.equal(cfg.format, 'attnlab-cnn-v1');
    assert.equal(cfg.head, model.head);
    assert.deepEqual(cfg.cbam, model.cbam);
    assert.equal(cfg.training.storage, 'f16');
    assert.ok(fs.existsSync(path.join(dir, model.log)), 'training log present');
  });

  test(`${name}: eval-cnn on 300 test images reproduces the recorded check`, (t) => {
    if (!fs.existsSync(cli)) return t.skip(`${cli} not built`);
    assert.deepEqual(model.check.args.slice(0, 2), ['eval-cnn', '--model']);
    const out = execFileSync(cli, model.check.args, { cwd: root, encoding: 'utf8' });
    const got = JSON.parse(out.trim().split('\n').at(-1));
    assert.equal(got.n, model.check.n);
    assert.ok(Math.abs(got.accuracy - model.check.accuracy) < 1e-9, `accuracy ${got.accuracy} vs ${model.check.accuracy}`);
    assert.ok(Math.abs(got.energy_in_mask - model.check.energy_in_mask) < 1e-6,
      `energy_in_mask ${got.energy_in_mask} vs ${model.check.energy_in_mask}`);
  });
}

test('the clean GAP model is a usable classifier (≥ 0.95 on its 1000 de-correlated test images)', () => {
  assert.ok(manifest.models.gap.metrics.test_decorrelated.accuracy >= 0.95);
});
