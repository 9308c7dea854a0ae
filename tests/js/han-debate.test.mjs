// han-debate.test.mjs — web/analysis/han-debate.js (HAN rows / summaries read with the flat figure and headline
// keys) and the `level` field of web/state.js.
import test from 'node:test';
import assert from 'node:assert/strict';
import { hanRowsAtLevel, hanSummaryAtLevel } from '../../web/analysis/han-debate.js';
import { parse, serialize } from '../../web/state.js';

test('kendall rows: tau at the chosen level; erase-max rows: top / random JSD; skipped rows untouched', () => {
  const k = { index: 0, label: 1, sentence: { gradient: { tau: 0.2, p: 0.1 }, leave_one_out: { tau: null, p: null } },
    word: { gradient: { tau: 0.4, p: 0.01 }, leave_one_out: { tau: 0.3, p: 0.02 } } };
  const skipped = { index: 1, skipped: 'no tokens' };
  const [s, s2] = hanRowsAtLevel('kendall', [k, skipped], 'sentence');
  assert.equal(s.tau_gradient, 0.2);
  assert.equal(s.tau_loo, undefined); // null tau: undefined, not 0
  assert.equal(s2, skipped);
  assert.equal(hanRowsAtLevel('kendall', [k], 'word')[0].tau_loo, 0.3);
  const e = hanRowsAtLevel('erase-max', [{ top: { jsd: 0.01 }, random: { jsd: 0.002 } }], 'word')[0];
  assert.deepEqual([e.jsd_max, e.jsd_random], [0.01, 0.002]);
  const adv = [{ max_jsd: 0.5 }];
  assert.equal(hanRowsAtLevel('adversarial', adv, 'word'), adv);
});

test('summaries: the flat headline keys from the HAN ones', () => {
  const s = hanSummaryAtLevel('kendall', { n: 10, word: { gradient: { mean: 0.37, std: 0.06, n: 9, fraction_significant: 1 },
    leave_one_out: { mean: 0.33, std: 0.05, n: 10, fraction_significant: 0.9 } } }, 'word');
  assert.equal(s.tau_gradient_mean, 0.37);
  assert.equal(s.tau_loo_std, 0.05);
  assert.deepEqual(s.fraction_significant, { gradient: 1, loo: 0.9 });
  assert.deepEqual(s.n_undefined, { gradient: 1, loo: 0 });
  const e = hanSummaryAtLevel('erase-max', { jsd_top_mean: 0.001, flip_rate_top: 0.1, fraction_top_larger: 0.7 }, 'sentence');
  assert.deepEqual([e.jsd_max_mean, e.flip_rate_max, e.fraction_jsd_max_greater], [0.001, 0.1, 0.7]);
  assert.equal(hanSummaryAtLevel('kendall', { n: 3 }, 'sentence').tau_gradient_mean, undefined);
});

test('state: level is sentence | word, default sentence, in the URL', () => {
  assert.equal(parse('').level, 'sentence');
  assert.equal(parse('#level=word').level, 'word');
  assert.equal(parse('#level=paragraph').level, 'sentence');
  assert.match(serialize({ ...parse(''), view: 'debate', level: 'word' }), /level=word/);
});
