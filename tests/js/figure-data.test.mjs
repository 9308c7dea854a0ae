// figure-data.test.mjs — web/analysis/figure-data.js: rows → figure records, defensive about skipped rows
// and missing fields; and web/experiments-info.js headline numbers.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  usedRows, classOf, kendallRecords, kendallReadingMeans, valueRecords, pointRecords, rankingKeys, flipRecords, flipRates, eraserMeans,
  randomizationMeans, flowMeans, headAblation,
} from '../../web/analysis/figure-data.js';
import { EXPERIMENT_INFO, LIVE_EXPERIMENTS, infoFor, pick, RANKINGS, tauNote } from '../../web/experiments-info.js';

test('usedRows drops skipped / error / non-object rows; classOf prefers the gold label', () => {
  const rows = [{ index: 0 }, { skipped: 'single token' }, { error: 'x' }, null, 3];
  assert.equal(usedRows(rows).length, 1);
  assert.equal(usedRows(undefined).length, 0);
  assert.equal(classOf({ label: 1, predicted: 0 }), 1);
  assert.equal(classOf({ label: -1, predicted: 0 }), 0);
  assert.equal(classOf({}), null);
});

test('kendall records keep only finite taus (null = undefined tau)', () => {
  const rows = [
    { label: 0, tau_gradient: 0.4, tau_loo: null },
    { label: 1, tau_gradient: -0.2, tau_loo: 0.1 },
    { skipped: 'no tokens', tau_gradient: 1 },
  ];
  assert.deepEqual(kendallRecords(rows), [
    { measure: 'gradient', tau: 0.4, cls: 0 },
    { measure: 'gradient', tau: -0.2, cls: 1 },
    { measure: 'leave_one_out', tau: 0.1, cls: 1 },
  ]);
});

test('kendall reading means: attention first, then each reading, means of the defined taus with their counts', () => {
  const rows = [
    { tau_gradient: 0.4, tau_loo: 0.2, readings: { attnlrp: { tau_gradient: 0.6, tau_loo: null, tau_attention: 0.7 }, alti: { tau_gradient: 0.1, tau_loo: 0.3 } } },
    { tau_gradient: 0.2, tau_loo: null, readings: { attnlrp: { tau_gradient: 0.2, tau_loo: 0.5 } } },
    { skipped: 'single token', readings: { attnlrp: { tau_gradient: 1 } } },
  ];
  assert.deepEqual(kendallReadingMeans(rows), [
    { reading: 'attention', against: 'gradient', tau: (0.4 + 0.2) / 2, n: 2 },
    { reading: 'attention', against: 'leave_one_out', tau: 0.2, n: 1 },
    { reading: 'attnlrp', against: 'gradient', tau: (0.6 + 0.2) / 2, n: 2 },
    { reading: 'attnlrp', against: 'leave_one_out', tau: 0.5, n: 1 },
    { reading: 'attnlrp', against: 'attention', tau: 0.7, n: 1 },
    { reading: 'alti', against: 'gradient', tau: 0.1, n: 1 },
    { reading: 'alti', against: 'leave_one_out', tau: 0.3, n: 1 },
  ]);
  assert.deepEqual(kendallReadingMeans([{ tau_gradient: 0.4, tau_loo: 0.2 }]), [], 'no readings: no chart');
});

test('kendall and erase-until-flip headlines name the later reading closest to the importances / flipping soonest', () => {
  const k = EXPERIMENT_INFO.kendall.headline({ tau_gradient_mean: 0.3, tau_loo_mean: 0.2, n_used: 4,
    readings: { attnlrp: { tau_gradient_mean: 0.5, tau_loo_mean: 0.1 }, alti: { tau_gradient_mean: 0.2, tau_loo_mean: 0.4 } } });
  assert.equal(k[4].label, 'later reading closest to gradient: AttnLRP (mean τ)');  // after J&W's four
  assert.equal(k[4].value, 0.5);
  assert.equal(k[5].label, 'later reading closest to leave-one-out: ALTI (mean τ)');
  assert.equal(EXPERIMENT_INFO.kendall.headline({ tau_gradient_mean: 0.3 }).length, 4, 'no readings: J&W’s four');
  const s = { order: [...RANKINGS, 'rollout', 'cp_lrp'], rollout: { fraction_mean: 0.5, n: 3 }, cp_lrp: { fraction_mean: 0.3, n: 3 } };
  for (const r of RANKINGS) s[r] = { fraction_mean: 0.4 };
  const e = EXPERIMENT_INFO['erase-until-flip'].headline(s);
  assert.equal(e.length, RANKINGS.length + 1);
  assert.equal(e.at(-1).label, 'fastest later reading: CP-LRP (mean fraction removed)');
  assert.equal(e.at(-1).value, 0.3);
});

test('value and point records', () => {
  const rows = [{ label: 0, max_jsd: 0.6, max_attention: 0.5, median_delta: 0.01 }, { label: 1, max_jsd: 'x' }];
  assert.deepEqual(valueRecords(rows, 'max_jsd'), [{ value: 0.6, cls: 0 }]);
  assert.deepEqual(pointRecords(rows, 'max_attention', 'median_delta'), [{ x: 0.5, y: 0.01, cls: 0 }]);
});

test('erase-until-flip: ranking keys in the preferred order, records and flip rates', () => {
  const r = (f, flipped) => ({ removed: 1, fraction: f, flipped, curve: [0.4] });
  const rows = [
    { label: 0, random: r(1, false), attention: r(0.5, true), extra_rank: r(0.1, true), num_tokens: 4 },
    { label: 1, random: r(0.5, true), attention: r(0.25, true), extra_rank: r(0.2, true) },
    { skipped: 'single token' },
  ];
  const keys = rankingKeys(rows, RANKINGS);
  assert.deepEqual(keys, ['attention', 'random', 'extra_rank']);
  assert.equal(flipRecords(rows, keys).length, 6);
  const rates = flipRates(rows, keys);
  assert.equal(rates.random.flip_rate, 0.5);
  assert.equal(rates.random.fraction_mean, 0.75);
  assert.equal(rates.attention.flip_rate, 1);
});

test('eraser means over rows, per measure and per k', () => {
  const m = (c, s) => ({ comprehensiveness: [c, c], sufficiency: [s, s], aopc_comprehensiveness: c, aopc_sufficiency: s });
  const rows = [
    { measures: { attention: m(0.2, 0.1), random: m(0.0, 0.3) } },
    { measures: { attention: m(0.4, 0.3), random: m(0.1, 0.1), new_measure: m(1, 1) } },
    { skipped: 'no tokens' },
  ];
  const means = eraserMeans(rows, ['attention', 'gradient', 'random']);
  assert.deepEqual(means.map((x) => x.measure), ['attention', 'random', 'new_measure'], 'absent measures are dropped, new ones kept');
  const att = means[0];
  assert.equal(att.n, 2);
  assert.ok(Math.abs(att.aopc_comprehensiveness - 0.3) < 1e-12);
  assert.ok(Math.abs(att.aopc_sufficiency - 0.2) < 1e-12);
  assert.equal(att.comprehensiveness.length, 2);
});

test('randomization means per stage and measure', () => {
  const rows = [
    { stages: [{ stage: 'decoder', measures: { gradient: { spearman: 0.5 }, attention: { spearman: null } } }] },
    { stages: [{ stage: 'decoder', measures: { gradient: { spearman: 0.7 } } }] },
  ];
  const m = randomizationMeans(rows);
  const g = m.find((x) => x.measure === 'gradient');
  assert.ok(Math.abs(g.spearman - 0.6) < 1e-12);
  assert.equal(g.n, 2);
  assert.ok(Number.isNaN(m.find((x) => x.measure === 'attention').spearman));
});

test('experiment info: every live experiment has a title, paper and explanation; headlines never throw', () => {
  for (const name of LIVE_EXPERIMENTS) {
    const info = EXPERIMENT_INFO[name];
    assert.ok(info, name);
    for (const k of ['title', 'paper', 'live', 'dataset', 'figure']) assert.ok(info[k].length > 10, `${name}.${k}`);
  }
  for (const [name, info] of Object.entries(EXPERIMENT_INFO)) {
    for (const s of [undefined, null, {}, { measures: 3 }]) assert.doesNotThrow(() => info.headline(s), name);
  }
  const h = EXPERIMENT_INFO.adversarial.headline({ mean_max_jsd: 0.5, 'fraction_jsd_above_0.4': 0.9 });
  assert.equal(h[0].value, 0.5);
  assert.equal(h[2].value, 0.9);
  assert.ok(Number.isNaN(h[1].value));
  const k = EXPERIMENT_INFO.kendall.headline({ tau_gradient_mean: 0.3, tau_gradient_std: 0.2, fraction_significant: { gradient: 0.4 } });
  assert.deepEqual(k[0].value, [0.3, 0.2]);
  assert.equal(k[2].value, 0.4);
  assert.equal(k[0].note, '', 'no n in the summary: no note');
  // the headline τ carries its n (sentences with a defined τ) and what n/a means
  const kn = EXPERIMENT_INFO.kendall.headline({ tau_gradient_mean: 0.3, tau_gradient_std: 0.2, n_used: 20, n_undefined: { gradient: 0, loo: 3 } });
  assert.equal(kn[0].note, 'n = 20 sentences with a defined τ.');
  assert.match(kn[1].note, /^n = 17 sentences with a defined τ \(n\/a for 3 of 20\)\. n\/a means .*no order to compare\.$/);
  assert.equal(kn[3].note, 'of n = 17 sentences with a defined τ');
  assert.match(tauNote(12, 12), /^n = 0: τ is n\/a for all 12 sentences\. n\/a means .*uniform-attention/);
  assert.equal(tauNote(NaN, 0), '');
  const e = EXPERIMENT_INFO.eraser.headline({ measures: {
    attention: { aopc_comprehensiveness_mean: 0.3, aopc_sufficiency_mean: 0.2 },
    gradient: { aopc_comprehensiveness_mean: 0.1, aopc_sufficiency_mean: 0.05 },
    random: { aopc_comprehensiveness_mean: 0.09, aopc_sufficiency_mean: 0.3 },
  } });
  assert.deepEqual(e.map((x) => x.value), [0.3, 0.09, 0.05, 0.3]);
  assert.match(e[0].label, /most comprehensive: attention/);
  assert.match(e[2].label, /most sufficient: gradient/);
  assert.match(EXPERIMENT_INFO.eraser.headline({})[0].label, /n\/a/);
  assert.equal(infoFor('brand-new', 'does something').title, 'brand-new');
  assert.equal(infoFor('brand-new', 'does something').live, 'does something');
  assert.ok(Number.isNaN(pick({ a: { b: '1' } }, ['a', 'b'])));
});

test('flowMeans: mean Spearman per layer, map and target; undefined ρ and skipped rows left out', () => {
  const rows = [
    { raw_blankout: [0.2, 0.4], rollout_blankout: [0.2, 0.6], flow_blankout: [0.2, 0.5], raw_gradient: [0.1, 0.3], rollout_gradient: [0.1, null], flow_gradient: [0.1, 0.2] },
    { raw_blankout: [0.4, 0.0], rollout_blankout: [0.4, 0.2], flow_blankout: [0.4, 0.1], raw_gradient: [0.3, 0.5], rollout_gradient: [0.3, 0.7], flow_gradient: [0.3, 0.4] },
    { skipped: 'needs a transformer' },
  ];
  const m = flowMeans(rows);
  const at = (map, against, layer) => m.find((r) => r.map === map && r.against === against && r.layer === layer);
  assert.equal(m.length, 12, '3 maps × 2 targets × 2 layers');
  assert.ok(Math.abs(at('raw', 'blankout', 1).rho - 0.3) < 1e-12);
  assert.ok(Math.abs(at('rollout', 'blankout', 2).rho - 0.4) < 1e-12);
  assert.deepEqual([at('rollout', 'gradient', 2).rho, at('rollout', 'gradient', 2).n], [0.7, 1], 'the null ρ is left out');
  assert.deepEqual(flowMeans([{ skipped: 'x' }]), []);
});

test('headAblation: accuracy with each head off and along the pruning order, against the gold labels', () => {
  const single = (p) => p.map((predicted, k) => ({ layer: 1 + Math.floor(k / 2), head: 1 + (k % 2), predicted }));
  const rows = [
    { label: 1, predicted: 1, single: single([1, 0, 1, 1]), pruned: [1, 0, 0, 0] },
    { label: 0, predicted: 0, single: single([0, 0, 1, 0]), pruned: [0, 0, 1, 1] },
    { label: 1, predicted: 0, single: single([0, 1, 0, 0]), pruned: [0, 1, 1, 0] },
    { label: 1, skipped: 'needs a transformer' },
  ];
  const h = headAblation(rows);
  assert.equal(h.n, 3);
  assert.ok(Math.abs(h.base - 2 / 3) < 1e-12);
  assert.deepEqual(h.single.map((x) => x.head), ['1.1', '1.2', '2.1', '2.2']);
  assert.deepEqual(h.single.map((x) => Math.round(3 * x.accuracy)), [2, 2, 1, 2]);
  assert.ok(Math.abs(h.single[2].change - (1 / 3 - 2 / 3)) < 1e-12);
  assert.deepEqual(h.curve.map((c) => [c.removed, Math.round(3 * c.accuracy)]), [[0, 2], [1, 2], [2, 2], [3, 1], [4, 0]]);
  assert.deepEqual(headAblation([{ skipped: 'x' }]), { n: 0, base: NaN, single: [], curve: [] });
});

test('attention-flow and head-ablation headlines read the summary, with the paper\'s numbers beside', () => {
  const flow = EXPERIMENT_INFO['attention-flow'].headline({ last_layer: { raw_blankout: 0.41, rollout_blankout: 0.5, flow_blankout: 0.49, raw_gradient: 0.66, rollout_gradient: 0.68, flow_gradient: 0.56 } });
  assert.deepEqual(flow.map((x) => x.value), [0.41, 0.5, 0.49, 0.66, 0.68, 0.56]);
  assert.deepEqual(flow.map((x) => x.ref), ['0.29', '0.71', '0.70', '0.46', '0.54', '0.61']);
  assert.ok(EXPERIMENT_INFO['attention-flow'].headline({}).every((x) => Number.isNaN(x.value)));
  const heads = EXPERIMENT_INFO['head-ablation'].headline({ accuracy: 0.8, heads_removable_within_1_point: 2, single: [{ accuracy_change: -0.02 }, { accuracy_change: 0.01 }] });
  assert.deepEqual(heads.map((x) => x.value), [0.8, 2, 2]);
});
