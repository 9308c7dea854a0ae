// The shipped HAN document models (models/text/manifest.json `documents`) are what the manifest says: files with
// the recorded sha256, each model ≤ 5 MB, fp16 weights, the training log present, and the recorded test metrics
// reproduced by the native CLI (`attnlab eval-text` dispatches on the HAN config) on the data named in the
// provenance. Listed apart from `models` so the page's flat-model pickers never see them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'models/text/manifest.json'), 'utf8'));
const cli = path.join(root, 'build/attnlab');
const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');

test('manifest lists imdb-han (and any other HAN) as document models, not as flat models', () => {
  const docs = (manifest.documents ?? []).map((m) => m.name);
  assert.ok(docs.includes('imdb-han'), 'imdb-han missing from documents');
  for (const m of manifest.models) assert.ok(!m.name.includes('-han'), `${m.name} is a HAN model in models`);
});

for (const model of manifest.documents ?? []) {
  const dir = path.join(root, 'models/text', model.path);
  test(`${model.name}: files match their sha256, ≤ 5 MB, fp16, training log`, () => {
    let total = 0;
    for (const [key, file] of Object.entries(model.files)) {
      const bytes = fs.readFileSync(path.join(dir, file));
      total += bytes.length;
      assert.equal(sha(bytes), model.sha256[key], `${file} sha256`);
    }
    assert.ok(total <= 5 * 1024 * 1024, `${model.name} is ${total} bytes`);
    const weights = fs.readFileSync(path.join(dir, 'model.safetensors'));
    const header = JSON.parse(weights.subarray(8, 8 + Number(weights.readBigUInt64LE(0))).toString('utf8'));
    for (const [name, t] of Object.entries(header)) if (name !== '__metadata__') assert.equal(t.dtype, 'F16', name);
    assert.ok(model.training_log, 'training log recorded');
    assert.equal(sha(fs.readFileSync(path.join(root, 'models/text', model.training_log.path))), model.training_log.sha256);
  });
  test(`${model.name}: recorded test metrics are reproduced by attnlab eval-text`, (t) => {
    if (!fs.existsSync(cli)) return t.skip('build/attnlab not built');
    const data = path.resolve(root, model.provenance.data.test.path);
    if (!fs.existsSync(data)) return t.skip(`${data} not present`);
    assert.equal(sha(fs.readFileSync(data)), model.provenance.data.test.sha256);
    const out = execFileSync(cli, ['eval-text', '--model', dir, '--data', data], { encoding: 'utf8' });
    const got = JSON.parse(out.trim().split('\n').at(-1));
    const want = model.metrics.test;
    assert.equal(got.n, want.n);
    assert.ok(Math.abs(got.accuracy - want.accuracy) < 1e-9, `accuracy ${got.accuracy} vs ${want.accuracy}`);
    assert.ok(Math.abs(got.f1 - want.f1) < 1e-9, `f1 ${got.f1} vs ${want.f1}`);
  });
}
