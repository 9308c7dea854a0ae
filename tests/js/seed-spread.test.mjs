// The Debate headline's spread over training seeds (web/analysis/seed-spread.js): attached only where the seed
// study has the number over ≥ 2 seeds; and every seedKey the headlines name (web/experiments-info.js) resolves in
// the committed models/text/seeds/summary.json for the experiments the study ran, read through the headline of
// the study's own seed-1 run (so a renamed metric on either side fails here).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { withSeedSpread, seedModelOf, cnnSeedSpread } from '../../web/analysis/seed-spread.js';
import { EXPERIMENT_INFO } from '../../web/experiments-info.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const SEEDS = path.join(ROOT, 'models/text/seeds');
const summary = JSON.parse(fs.readFileSync(path.join(SEEDS, 'summary.json'), 'utf8'));

test('withSeedSpread attaches {mean, std, n} for a named metric with at least two seeds, and nothing else', () => {
  const s = { m: { a: { mean: 0.5, std: 0.1, n: 3, values: {} }, one: { mean: 0.4, std: null, n: 1 } } };
  const items = [{ label: 'x', value: 1, seedKey: 'a' }, { label: 'y', value: 2, seedKey: 'one' },
    { label: 'z', value: 3, seedKey: 'missing' }, { label: 'w', value: 4 }];
  const out = withSeedSpread(items, s, 'm');
  assert.deepEqual(out[0].seeds, { mean: 0.5, std: 0.1, n: 3 });
  assert.equal(out[0].value, 1);
  assert.deepEqual(out.slice(1), items.slice(1));  // one seed has no spread; unknown keys and plain items unchanged
  assert.equal(items[0].seeds, undefined);  // the input is not modified
  for (const bad of [null, undefined, {}, { m: null }, { m: 'x' }, { m: { a: { mean: 'x', std: 0.1, n: 3 } } }]) {
    assert.deepEqual(withSeedSpread(items, bad, 'm'), items);
  }
  assert.deepEqual(withSeedSpread(items, s, 'other'), items);
  assert.equal(seedModelOf('sst2-transformer'), 'sst2-transformer-dot');
  assert.equal(seedModelOf('sst2-tanh'), 'sst2-tanh');
});

test('every seedKey of the headlines resolves in the committed seed summary for the runs the study made', () => {
  let checked = 0;
  for (const [model, runs] of [
    ['sst2-tanh', ['adversarial', 'kendall', 'permutation', 'erase-until-flip', 'eraser', 'plausibility']],
    ['sst2-dot', ['adversarial', 'kendall', 'permutation', 'erase-until-flip', 'eraser', 'plausibility']],
    ['sst2-transformer', ['attention-flow', 'head-ablation', 'kendall', 'erase-until-flip', 'plausibility']],
  ]) {
    for (const name of runs) {
      const own = JSON.parse(fs.readFileSync(path.join(SEEDS, `${seedModelOf(model)}-s1.${name}.json`), 'utf8'));
      const items = withSeedSpread(EXPERIMENT_INFO[name].headline(own), summary, model);
      const keyed = items.filter((i) => i.seedKey);
      assert.ok(keyed.length > 0, `${model} ${name}: no headline names a seed metric`);
      for (const item of keyed) {
        assert.ok(item.seeds, `${model} ${name}: "${item.seedKey}" is not in the seed summary`);
        assert.ok(item.seeds.n >= 5, `${model} ${name}: ${item.seedKey} has ${item.seeds.n} seeds`);
        // the shipped model is the study's seed 1: its own number is one of the values the spread is over
        const v = Array.isArray(item.value) ? item.value[0] : item.value;
        const s1 = summary[seedModelOf(model)][item.seedKey].values['1'];
        assert.ok(Math.abs(v - s1) < 1e-12, `${model} ${name} ${item.seedKey}: headline ${v} vs seed 1 ${s1}`);
        checked++;
      }
    }
  }
  assert.ok(checked >= 40, `${checked} numbers checked`);
});

test('cnnSeedSpread reads a shipped recipe’s seed study in the metrics table’s order', () => {
  const cnn = JSON.parse(fs.readFileSync(path.join(ROOT, 'models/cnn/seeds/summary.json'), 'utf8'));
  const gap = cnnSeedSpread(cnn.gap);
  assert.deepEqual(gap.map((x) => x.key), ['accuracy', 'pointing_0px', 'pointing_std_tol', 'mask_iou', 'energy_in_mask']);
  for (const x of gap) {
    const s = cnn.gap.test_decorrelated[x.key];
    assert.deepEqual([x.mean, x.std, x.n], [s.mean, s.std, s.n]);
    assert.ok(x.n >= 3);
  }
  const one = { test_decorrelated: { accuracy: { n: 1, mean: 0.9, std: null }, mask_iou: { n: 2, mean: 0.3, std: 0.01 } } };
  assert.deepEqual(cnnSeedSpread(one), [{ key: 'mask_iou', label: 'mask IoU', mean: 0.3, std: 0.01, n: 2 }]);
  for (const bad of [null, undefined, {}, { test_decorrelated: 3 }]) assert.deepEqual(cnnSeedSpread(bad), []);
});
