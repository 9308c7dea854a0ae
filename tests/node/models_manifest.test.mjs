// The shipped text models are what the manifest says: files present with the recorded sha256, each model
// ≤ 5 MiB (6 MiB for a transformer of more than 2 layers), and its recorded test (and dev, where the dev set is a file) metrics reproduced by the native CLI
// on the data files named in its provenance (under ../shared/data).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const manifestPath = path.join(root, 'models/text/manifest.json');
const cli = path.join(root, 'build/attnlab');
const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));

test('manifest lists the three SST-2 models', () => {
  const names = manifest.models.map((m) => m.name);
  for (const n of ['sst2-dot', 'sst2-tanh', 'sst2-uniform']) assert.ok(names.includes(n), `${n} missing`);
});

// The size cap: 5 MiB per model, so the page's first load stays small. The one exception is a transformer of more
// than 2 layers (sst2-transformer-4layer, 5.3 MB: the per-layer questions need its depth; the page loads it only when
// it is picked): 6 MiB.
const capOf = (m) => ((m.encoder === 'transformer' && m.layers > 2) ? 6 : 5) * 1024 * 1024;

for (const model of manifest.models) {
  const dir = path.join(root, 'models/text', model.path);
  test(`${model.name}: files match their sha256 and the model is ≤ ${capOf(model) / 1048576} MB`, () => {
    let total = 0;
    for (const [key, file] of Object.entries(model.files)) {
      const bytes = fs.readFileSync(path.join(dir, file));
      total += bytes.length;
      assert.equal(createHash('sha256').update(bytes).digest('hex'), model.sha256[key], `${file} sha256`);
    }
    assert.ok(total <= capOf(model), `${model.name} is ${total} bytes`);
  });

  for (const split of ['dev', 'test']) {
    const file = model.provenance.data[split]?.path;
    if (!file) continue;  // dev held out of the training file: measured during training only
    test(`${model.name}: recorded ${split} metrics are reproduced by attnlab eval-text`, (t) => {
      if (!fs.existsSync(cli)) return t.skip('build/attnlab not built');
      const data = path.resolve(root, file);
      if (!fs.existsSync(data)) return t.skip(`${data} not present`);
      assert.equal(createHash('sha256').update(fs.readFileSync(data)).digest('hex'), model.provenance.data[split].sha256);
      const out = execFileSync(cli, ['eval-text', '--model', dir, '--data', data], { encoding: 'utf8' });
      const got = JSON.parse(out.trim().split('\n').at(-1));
      const want = model.metrics[split];
      assert.equal(got.n, want.n);
      assert.ok(Math.abs(got.accuracy - want.accuracy) < 1e-9, `accuracy ${got.accuracy} vs ${want.accuracy}`);
      assert.ok(Math.abs(got.f1 - want.f1) < 1e-9, `f1 ${got.f1} vs ${want.f1}`);
    });
  }
}

test('sst2-tanh meets the issue targets: test F1 ≥ 0.83 and accuracy ≥ 0.83', () => {
  const m = manifest.models.find((x) => x.name === 'sst2-tanh');
  assert.ok(m.metrics.test.f1 >= 0.83, `F1 ${m.metrics.test.f1}`);
  assert.ok(m.metrics.test.accuracy >= 0.83, `accuracy ${m.metrics.test.accuracy}`);
});
