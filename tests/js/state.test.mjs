// state.test.mjs — unit tests for web/state.js: the URL-hash schema (defaults, parse, serialize, limits,
// the debate view's experiment / n / seed fields, the train view's attention / trainseed / epochs).
import test from 'node:test';
import assert from 'node:assert/strict';
import { SCHEMA, VIEWS, DEFAULT_TEXT, defaults, parse, serialize, fitsInUrl } from '../../web/state.js';

test('defaults cover every schema field', () => {
  const d = defaults();
  assert.deepEqual(Object.keys(d).sort(), Object.keys(SCHEMA).sort());
  assert.equal(d.view, 'text');
  assert.equal(d.model, 'sst2-tanh');
  assert.equal(d.text, DEFAULT_TEXT);
});

test('an empty or missing hash gives the defaults', () => {
  for (const h of ['', '#', undefined, null]) assert.deepEqual(parse(h), defaults());
});

test('all-default state serializes to an empty hash', () => {
  assert.equal(serialize(defaults()), '');
});

test('round trip keeps every field, including unicode and reserved characters', () => {
  const s = { ...defaults(), view: 'text', model: 'sst2-dot', text: 'a & b = c? #1 +plus 100% 😀 映画 رائع\nnew line' };
  const h = serialize(s);
  assert.match(h, /^#/);
  assert.deepEqual(parse(h), s);
  assert.deepEqual(parse(h.slice(1)), s, 'leading # is optional');
});

test('explicitly empty text is kept (not replaced by the default)', () => {
  const s = { ...defaults(), text: '' };
  const h = serialize(s);
  assert.equal(h, '#text=');
  assert.equal(parse(h).text, '');
});

test('invalid enum values and unknown keys fall back / are ignored', () => {
  const s = parse('#view=bogus&model=sst2-uniform&foo=bar');
  assert.equal(s.view, 'text');
  assert.equal(s.model, 'sst2-uniform');
  assert.equal('foo' in s, false);
  for (const v of VIEWS) assert.equal(parse(`#view=${v}`).view, v);
});

test('fields at their default are left out of the link', () => {
  assert.equal(serialize({ ...defaults(), model: 'sst2-dot' }), '#model=sst2-dot');
});

test('text longer than maxLength stays out of the URL and fitsInUrl says so', () => {
  const long = 'good movie '.repeat(10000);
  const s = { ...defaults(), model: 'sst2-dot', text: long };
  assert.equal(fitsInUrl(s), false);
  const h = serialize(s);
  assert.equal(h, '#model=sst2-dot');
  assert.ok(fitsInUrl({ ...defaults(), text: 'short' }));
  // A hand-made over-long URL value is cut to maxLength on parse.
  const cut = parse('#text=' + 'x'.repeat(SCHEMA.text.maxLength + 50)).text;
  assert.equal(cut.length, SCHEMA.text.maxLength);
});

test('malformed percent-encoding does not throw', () => {
  assert.doesNotThrow(() => parse('#text=%E0%A4%A&model=%'));
});

test('debate fields: defaults, round trip and short links', () => {
  const d = defaults();
  assert.equal(d.experiment, 'adversarial');
  assert.equal(d.n, 200);
  assert.equal(d.seed, 1);
  const s = { ...d, view: 'debate', experiment: 'kendall', model: 'sst2-dot', n: 1821, seed: 500231 };
  const h = serialize(s);
  assert.equal(h, '#view=debate&model=sst2-dot&experiment=kendall&n=1821&seed=500231');
  assert.deepEqual(parse(h), s);
  assert.equal(serialize({ ...d, view: 'debate' }), '#view=debate', 'defaults stay out of the link');
  assert.equal(parse('#seed=0').seed, 0, 'seed 0 is a valid seed');
  assert.equal(serialize({ ...d, seed: 0 }), '#seed=0');
});

test('integer fields: only plain decimal digits, clamped to the range', () => {
  const cases = {
    '': 200, abc: 200, '12abc': 200, '1e3': 200, '0x10': 200, '-5': 200, '3.5': 200, ' 7': 200,
    '0': 1, '1': 1, '20': 20, '0020': 20, '1821': 1821, '5000000': 1_000_000,
  };
  for (const [raw, want] of Object.entries(cases)) assert.equal(parse(`#n=${encodeURIComponent(raw)}`).n, want, `n=${raw}`);
  assert.equal(parse('#seed=9007199254740991').seed, Number.MAX_SAFE_INTEGER);
  assert.equal(parse('#seed=99999999999999999').seed, 1, 'beyond 2^53: the default');
  // Out-of-range or non-integer values in the state are left out of the link.
  for (const n of [0, -1, 2.5, NaN, '20']) assert.equal(serialize({ ...defaults(), n }), '', `n=${n}`);
});

test('the debate view is a view', () => {
  assert.ok(VIEWS.includes('debate'));
  assert.equal(parse('#view=debate').view, 'debate');
});

test('train fields: attention, trainseed (apart from the debate seed) and epochs', () => {
  const d = defaults();
  assert.equal(d.attention, 'uniform');
  assert.equal(d.trainseed, 50);
  assert.equal(d.epochs, 8);
  assert.ok(VIEWS.includes('train'));
  const s = { ...d, view: 'train', attention: 'tanh', trainseed: 90754789, epochs: 1 };
  const h = serialize(s);
  assert.equal(h, '#view=train&attention=tanh&trainseed=90754789&epochs=1');
  assert.deepEqual(parse(h), s);
  assert.equal(parse('#attention=bogus').attention, 'uniform');
  assert.equal(parse('#trainseed=0').trainseed, 0);
  assert.equal(parse('#trainseed=3000000000').trainseed, 2147483647, 'clamped to what the core takes');
  assert.equal(parse('#epochs=0').epochs, 1);
  assert.equal(parse('#epochs=99').epochs, 30);
  assert.equal(parse('#trainseed=7').seed, 1, 'the debate seed is untouched');
});
