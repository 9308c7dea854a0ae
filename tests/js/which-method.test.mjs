// which-method.test.mjs — rankMethods (web/analysis/which-method.js): order by each metric, ties, random's place,
// missing values, bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rankMethods, METRICS } from '../../web/analysis/which-method.js';

const row = {
  attention: { aopc_comprehensiveness: 0.20, aopc_sufficiency: 0.11 },
  relevance: { aopc_comprehensiveness: 0.44, aopc_sufficiency: -0.04 },
  attnlrp: { aopc_comprehensiveness: 0.26, aopc_sufficiency: 0.05 },
  alti: { aopc_comprehensiveness: 0.26, aopc_sufficiency: 0.04 },
  random: { aopc_comprehensiveness: 0.06, aopc_sufficiency: 0.28 },
  gradient: { aopc_comprehensiveness: 0.03, aopc_sufficiency: null },
};

test('comprehensiveness: higher first, ties share a rank in the given order, random placed', () => {
  const r = rankMethods(row, 'comprehensiveness');
  assert.deepEqual(r.ranked.map((x) => [x.measure, x.rank]),
    [['relevance', 1], ['attnlrp', 2], ['alti', 2], ['attention', 4], ['random', 5], ['gradient', 6]]);
  assert.equal(r.best.measure, 'relevance');
  assert.equal(r.random.rank, 5);
  assert.equal(r.beatRandom, 4);
  assert.equal(r.scored, 5);
});

test('sufficiency: lower first; a method without a value comes last, unranked', () => {
  const r = rankMethods(row, 'sufficiency');
  assert.deepEqual(r.ranked.map((x) => x.measure), ['relevance', 'alti', 'attnlrp', 'attention', 'random', 'gradient']);
  assert.equal(r.ranked.at(-1).rank, null);
  assert.equal(r.beatRandom, 4);
  assert.equal(r.scored, 4);
});

test('negative control: the order differs between the metrics, and an unknown metric is comprehensiveness', () => {
  const c = rankMethods(row, 'comprehensiveness').ranked.map((x) => x.measure);
  const s = rankMethods(row, 'sufficiency').ranked.map((x) => x.measure);
  assert.notDeepEqual(c, s);
  assert.deepEqual(rankMethods(row, 'nonsense').ranked, rankMethods(row, 'comprehensiveness').ranked);
  assert.deepEqual(Object.keys(METRICS), ['comprehensiveness', 'sufficiency']);
});

test('bad input: nothing to rank', () => {
  for (const bad of [null, undefined, 3, 'x', {}]) {
    const r = rankMethods(bad, 'sufficiency');
    assert.deepEqual(r.ranked, []);
    assert.equal(r.best, null);
    assert.equal(r.random, null);
    assert.equal(r.beatRandom, 0);
  }
});

// The Images tab's "Which method?": the curves' AUCs as measures, deletion lower-is-better, insertion higher.
test('a photo: curveMeasures collects the AUCs of one class; deletion ranks low first, insertion high first', async () => {
  const { curveMeasures, IMAGE_METRICS } = await import('../../web/analysis/which-method.js');
  const curves = [
    { method: 'gradcam', kind: 'deletion', cls: 281, auc: 0.08 },
    { method: 'gradcam', kind: 'insertion', cls: 281, auc: 0.71 },
    { method: 'cam', kind: 'deletion', cls: 281, auc: 0.05 },
    { method: 'cam', kind: 'insertion', cls: 281, auc: 0.62 },
    { method: 'random', kind: 'deletion', cls: 281, auc: 0.31 },
    { method: 'random', kind: 'insertion', cls: 281, auc: 0.40 },
    { method: 'rise', kind: 'deletion', cls: 281, auc: 0.04 }, // insertion not run
    { method: 'gradcampp', kind: 'deletion', cls: 5, auc: 0.01 }, // another class
  ];
  const m = curveMeasures(curves, 281);
  assert.deepEqual(Object.keys(m), ['gradcam', 'cam', 'random', 'rise']);
  assert.ok(Number.isNaN(m.rise.insertion_auc));
  const del = rankMethods(m, 'deletion', IMAGE_METRICS);
  assert.deepEqual(del.ranked.map((x) => x.measure), ['rise', 'cam', 'gradcam', 'random']);
  assert.equal(del.best.measure, 'rise');
  assert.equal(del.beatRandom, 3);
  const ins = rankMethods(m, 'insertion', IMAGE_METRICS);
  assert.deepEqual(ins.ranked.map((x) => [x.measure, x.rank]), [['gradcam', 1], ['cam', 2], ['random', 3], ['rise', null]]);
  assert.equal(ins.scored, 2);
  // negative control: ranked with the ERASER metrics (whose keys these rows lack) nothing is scored
  assert.equal(rankMethods(m, 'deletion').scored, 0);
});
