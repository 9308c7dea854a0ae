// format.test.mjs — the page's number formatter (web/analysis/format.js) and display strings
// (web/analysis/display.js): no exponent, never more than 6 decimals, bounds for tiny values, real class names,
// tokenizer escapes undone, summary keys in words. Run: node --test tests/js/format.test.mjs (< 1 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { num, int, percent, prob, pValue, signed, compact, tau, looksRaw, pow10 } from '../../web/analysis/format.js';
import { displayToken, classNamesFor, positiveName, summaryLabel, modelKind } from '../../web/analysis/display.js';

test('num: fixed decimals, bounds instead of 0 for tiny values, never an exponent', () => {
  assert.equal(num(0.3928880214691162), '0.393');
  assert.equal(num(0.3928880214691162, 4), '0.3929');
  assert.equal(num(4.73e-4, 3), '< 0.001');
  assert.equal(num(-1.82e-5, 3), '> −0.001');
  assert.equal(num(0), '0.000');
  assert.equal(num(2.5e-5, 6), '0.000025');
  assert.equal(num(1e23), '100,000,000,000,000,000,000,000');
  assert.equal(num(NaN), 'n/a');
  assert.equal(num(Infinity), 'n/a');
  assert.equal(num('0.5'), 'n/a', 'strings are not numbers here');
  assert.equal(num(1.23456789, 12), '1.234568', 'at most 6 decimals');
  assert.equal(signed(0.25, 2), '+0.25');
  assert.equal(signed(-0.25, 2), '−0.25');
  assert.equal(int(1821), '1,821');
});

test('percent and prob: the issue example p = 2.5e-5 reads as a percentage', () => {
  assert.equal(percent(0.843), '84.3 %');
  assert.equal(percent(0.0001), '< 0.1 %');
  assert.equal(prob(2.5e-5), '0.0025 %');
  assert.equal(prob(3.0e-5), '0.0030 %');
  assert.equal(prob(3e-9), '< 0.0001 %');
  assert.equal(prob(0.93), '93.0 %');
  assert.equal(prob(0.9995), '99.950 %');
  assert.equal(prob(1 - 3e-9), '> 99.9999 %');
  assert.equal(prob(0), '0 %');
  assert.equal(prob(1), '100 %');
  assert.equal(pValue(0.0004), 'p < 0.001');
  assert.equal(pValue(0.0042), 'p = 0.004');
});

test('compact: 3 significant digits, no exponent', () => {
  assert.equal(compact(0.0138575), '0.0139');
  assert.equal(compact(0.00298749), '0.00299');
  assert.equal(compact(4.7326e-4), '0.000473');
  assert.equal(compact(12345.6), '12,346');
  assert.equal(compact(3e-9), '< 0.000001');
  assert.equal(compact(-3e-9), '> −0.000001');
});

test('no formatter output looks raw over a sweep of magnitudes', () => {
  for (let e = -30; e <= 25; e++) {
    for (const m of [1, 2.5, 9.99]) {
      for (const s of [1, -1]) {
        const v = s * m * 10 ** e;
        for (const out of [num(v), num(v, 6), compact(v), percent(v), signed(v), int(v)]) {
          assert.ok(!looksRaw(out), `${v} → ${out}`);
        }
        if (v > 0 && v < 1) assert.ok(!looksRaw(prob(v)) && !looksRaw(prob(1 - v)), `prob ${v}`);
      }
    }
  }
  // the detector itself (a negative control): it flags what the page used to show
  assert.ok(looksRaw('p(positive) = 2.5e-5'));
  assert.ok(looksRaw('0.30000000000000004'));
  assert.ok(!looksRaw('τ = 0.53 · p = 0.004 · n = 16'));
});

test('tau: value with p and n; n/a with a visible reason', () => {
  const t = tau({ tau: 0.5333, p: 0.0042 }, 16);
  assert.equal(t.text, 'τ = 0.53 · p = 0.004 · n = 16');
  assert.equal(t.na, false);
  const u = tau({ tau: null, p: null }, 16);
  assert.equal(u.text, 'τ n/a · n = 16');
  assert.match(u.reason, /ties/);
  assert.match(tau(undefined, 1).reason, /two tokens/);
  assert.equal(tau({ rho: 0.9, p: 0.5 }, 49, { symbol: 'ρ' }).text, 'ρ = 0.90 · p = 0.500 · n = 49');
});

test('displayToken: PTB escapes shown as the original characters', () => {
  assert.equal(displayToken('-lrb-'), '(');
  assert.equal(displayToken('-RRB-'), ')');
  assert.equal(displayToken('``'), '“');
  assert.equal(displayToken("''"), '”');
  assert.equal(displayToken('1\\/2'), '1/2');
  assert.equal(displayToken('\\*'), '*');
  assert.equal(displayToken("n't"), "n't");
  assert.equal(displayToken('<unk>'), '<unk>');
  assert.equal(displayToken('film'), 'film');
});

test('classNamesFor: 20news and AG News models get their data sets\' classes', () => {
  assert.deepEqual(classNamesFor('20news-dot', ['negative', 'positive']), ['baseball', 'hockey']);
  assert.deepEqual(classNamesFor({ name: 'x', dataset: 'agnews' }, null), ['World', 'Business']);
  assert.equal(positiveName('agnews-tanh', ['negative', 'positive']), 'Business');
  assert.deepEqual(classNamesFor('sst2-tanh', ['negative', 'positive']), ['negative', 'positive']);
  assert.deepEqual(classNamesFor('imdb-dot', undefined), ['negative', 'positive']);
  // a checkpoint with its own names keeps them
  assert.deepEqual(classNamesFor('20news-new', ['Baseball', 'Hockey']), ['Baseball', 'Hockey']);
});

test('summaryLabel: keys in words with units', () => {
  assert.equal(summaryLabel('mean_max_jsd'), 'mean largest JSD (nats, ≤ ln 2 ≈ 0.693)');
  assert.equal(summaryLabel('n'), 'sentences');
  assert.equal(summaryLabel('by_max_attention.0.tvd_median'), 'by largest attention · #1 · TVD median (0 … 1)');
  assert.equal(summaryLabel('flip_rate'), 'flip rate');
  assert.equal(summaryLabel('per_class.0.fraction_median_delta_below_0.01'), 'per class · #1 · share median |Δŷ| below 0.01');
});

test('pow10: log-axis ticks without exponents', () => {
  assert.equal(pow10(1e-7), '10⁻⁷');
  assert.equal(pow10(1e-2), '10⁻²');
  assert.equal(pow10(0.1), '0.1');
  assert.equal(pow10(1), '1');
  assert.equal(pow10(1e6), '10⁶');
  assert.equal(pow10(0.3), '0.3');
  assert.ok(!looksRaw(pow10(1e-12)));
});

test('modelKind: the architecture in the model pickers', () => {
  assert.equal(modelKind({ name: 'sst2-tanh', attention: 'tanh' }), 'BiLSTM + tanh attention');
  assert.equal(modelKind({ name: 'sst2-transformer', encoder: 'transformer', attention: 'dot', layers: 2, heads: 4 }), 'transformer, 2 layers × 4 heads');
  assert.equal(modelKind({ encoder: 'transformer', attention: 'uniform', layers: 1, heads: 4 }), 'transformer, 1 layer × 4 heads · uniform attention');
  assert.equal(modelKind({ encoder: 'transformer', attention: 'dot' }), 'transformer', 'no shape when the entry has none');
  assert.equal(modelKind({}), 'BiLSTM');
  // the debate's fourth round (issue 32), from the manifest entry's fields
  assert.equal(modelKind({ name: 'sst2-ortho', attention: 'tanh', encoder: 'ortho_bilstm' }), 'Orthogonal LSTM + tanh attention');
  assert.equal(modelKind({ name: 'sst2-diversity', attention: 'tanh', diversity: 0.5 }), 'Diversity LSTM + tanh attention');
  assert.equal(modelKind({ name: 'sst2-deceptive', attention: 'tanh', deception: 1 }), 'BiLSTM + tanh attention · deceptive (Pruthi et al.)');
  assert.equal(modelKind({ attention: 'tanh', diversity: 0, deception: 0 }), 'BiLSTM + tanh attention', 'a weight of 0 is the plain BiLSTM');
});

test('bytes: sizes in B / KB / MB / GB, never "0.0 MB"', async () => {
  const { bytes } = await import('../../web/analysis/format.js');
  assert.equal(bytes(0), '0 B');
  assert.equal(bytes(512), '512 B');
  assert.equal(bytes(22 * 1024), '22 KB');
  assert.equal(bytes(1536), '1.5 KB');
  assert.equal(bytes(3.4 * 1048576), '3.4 MB');
  assert.equal(bytes(14 * 1048576), '14 MB');
  assert.equal(bytes(1.25 * 1073741824), '1.3 GB');
  assert.equal(bytes(-1), 'n/a');
});

test('negative numbers take the typographic minus (U+2212), data stays ASCII', async () => {
  const f = await import('../../web/analysis/format.js');
  assert.equal(f.num(-0.5, 2), '\u22120.50');
  assert.equal(f.int(-1821), '\u22121,821');
  assert.equal(f.percent(-0.123, 1), '\u221212.3 %');
  assert.equal(f.compact(-0.000473), '\u22120.000473');
  assert.equal(f.tau({ tau: -0.125, p: 0.5 }, 9).text, 'τ = \u22120.13 · p = 0.500 · n = 9');
  assert.ok(!/-/.test([f.num(-3, 1), f.signed(-2, 1), f.int(-5)].join(' ')), 'no hyphen-minus in a shown number');
});
