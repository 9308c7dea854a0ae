// The pure helpers of the debate panels on a user's text model (web/analysis/own-text-debate.js): which tokens the
// experiments' units stand for (the template's special tokens are held fixed by the core), the special flags after the
// page cut a text (a closing template token kept last, as OnnxTextLab's fit), the layer of the link, the folded panels,
// and the labels the shared live renderers read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unitTokens, cutSpecial, debateLayer, parseClosed, closedText, withLabels, flipText } from '../../web/analysis/own-text-debate.js';

test('units: every token the template did not add', () => {
  assert.deepEqual(unitTokens([1, 0, 0, 0]), [1, 2, 3]); // llama2.c BOS
  assert.deepEqual(unitTokens([1, 0, 0, 1]), [1, 2]); // [CLS] … [SEP]
  assert.deepEqual(unitTokens([0, 0]), [0, 1]);
  assert.deepEqual(unitTokens(null), []);
});

test('cutSpecial keeps a closing template token last, as the binding cuts', () => {
  assert.deepEqual(cutSpecial([1, 0, 0, 0, 1], 3), [1, 0, 1]);
  assert.deepEqual(cutSpecial([1, 0, 0, 0, 0], 3), [1, 0, 0]);
  assert.deepEqual(cutSpecial([1, 0, 1], 3), [1, 0, 1]);
  assert.deepEqual(cutSpecial([1, 0, 0, 1], 1), [1]);
  assert.notDeepEqual(cutSpecial([1, 0, 0, 0, 1], 3), [1, 0, 0], 'negative control: a plain prefix drops [SEP]');
});

test('debateLayer: 0 = the last; beyond the model: the last, with a note', () => {
  assert.deepEqual(debateLayer(0, 5), { index: -1, shown: 5, note: '' });
  assert.deepEqual(debateLayer(2, 5), { index: 1, shown: 2, note: '' });
  assert.deepEqual(debateLayer(5, 5), { index: -1, shown: 5, note: '' });
  const far = debateLayer(9, 5);
  assert.equal(far.index, -1);
  assert.match(far.note, /Layer 9 of the link: this model has 5 attention layers/);
});

test('folded panels round-trip; unknown names are dropped', () => {
  const s = parseClosed('permutation, nope,kendall');
  assert.deepEqual([...s].sort(), ['kendall', 'permutation']);
  assert.equal(closedText(s), 'kendall,permutation');
  assert.equal(closedText(parseClosed('')), '');
});

test('withLabels: a token per unit and the predicted class named; the core row is not changed', () => {
  const row = { predicted: 7, attention: [0.5, 0.5] };
  const out = withLabels(row, { tokens: ['<s>', ' Once', ' upon'], special: [1, 0, 0], classText: (c) => `c${c}` });
  assert.deepEqual(out.tokens, [' Once', ' upon']);
  assert.equal(out.class_names[7], 'c7');
  assert.equal(out.class_names.length, 8);
  assert.equal(out.class_names[0], undefined);
  assert.ok(!('tokens' in row));
  assert.match(flipText({ causal: true }), /greedy next token/);
  assert.match(flipText({ causal: false }), /predicted class/);
});
