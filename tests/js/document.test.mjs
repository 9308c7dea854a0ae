// document.test.mjs — what the Documents view draws of a HAN explanation (web/analysis/document.js), on a
// hand-made explain-text object: word attention drawn as β·α and normalised by the document's maximum, signed
// heat for integrated gradients, the sentence bars, Kendall τ per level (n/a kept as null), the notices (the
// core's cuts, one sentence, markup), a result without a measure. Run: node --test tests/js/document.test.mjs (< 1 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DOC_MEASURES, documentModel, kendallTable, documentNotices, markupNotice, totalWords, measureOf, documentRows } from '../../web/analysis/document.js';
import { rowsToCsv } from '../../web/analysis/csv.js';
import { DOC_MEASURE_KEYS, SCHEMA, parse, serialize } from '../../web/state.js';

const result = {
  sentences: [['a', 'fine', 'film'], ['dull', '.']],
  unknown: [[false, false, false], [true, false]],
  sentence_attention: [0.75, 0.25],
  word_attention: [[0.2, 0.6, 0.2], [0.9, 0.1]],
  sentence_gradient: [0.4, 0.6],
  word_gradient: [[0.1, 0.2, 0.1], [0.5, 0.1]],
  sentence_leave_one_out: [0.3, 0.1],
  word_leave_one_out: [[0.0, 0.3, 0.1], [0.2, 0.0]],
  sentence_integrated_gradients: [0.5, -0.25],
  word_integrated_gradients: [[0.1, 0.4, 0.0], [-0.2, 0.05]],
  kendall: {
    sentence: { attention_gradient: { tau: -1, p: 0.3, n: 2 }, attention_leave_one_out: { tau: 1, p: 0.3, n: 2 },
      attention_integrated_gradients: { tau: null, p: null, n: 2 } },
    word: { attention_gradient: { tau: 0.4, p: 0.2, n: 5 } },
  },
  notes: ['cut to the first 100 of 10000 sentences (200 of 20000 tokens; limits: 100 sentences)'],
};

test('the measures are the state schema\'s, in order', () => {
  assert.deepEqual(DOC_MEASURES.map((m) => m.key), [...DOC_MEASURE_KEYS]);
  assert.equal(measureOf('nonsense').key, 'attention');
  assert.equal(parse('#docmeasure=gradient').docmeasure, 'gradient');
  assert.equal(parse('#docmeasure=bogus').docmeasure, 'attention');
  assert.equal(serialize({ ...parse(''), view: 'documents', docmeasure: 'leave_one_out' }), '#view=documents&docmeasure=leave_one_out');
  assert.equal(SCHEMA.docmodel.default, 'imdb-han');
});

test('attention: word heat is β·α over the document maximum; value keeps α; bars over the largest β', () => {
  const m = documentModel(result, 'attention');
  assert.equal(m.missing, false);
  assert.equal(totalWords(result), 5);
  const shown = [[0.15, 0.45, 0.15], [0.225, 0.025]];
  m.sentences.forEach((s, i) => s.words.forEach((w, t) => {
    assert.equal(w.value, result.word_attention[i][t]);
    assert.ok(Math.abs(w.heat - shown[i][t] / 0.45) < 1e-12);
  }));
  assert.deepEqual(m.sentences.map((s) => s.bar), [1, 1 / 3]);
  assert.equal(m.sentences[1].words[0].unknown, true);
});

test('integrated gradients: signed heat and signed bars; the completeness check', () => {
  const m = documentModel({ ...result, integrated_gradients_completeness: { word: { sum: 0.35, target: 0.36 }, sentence: { sum: 0.25, target: 0.5 } } },
    'integrated_gradients');
  assert.deepEqual(m.completeness.map((c) => [c.level, c.off]), [['word', false], ['sentence', true]]);
  assert.equal(documentModel(result, 'gradient').completeness, null);
  assert.equal(m.sentences[1].bar, -0.5);
  assert.equal(m.sentences[1].words[0].heat, -0.5);
  assert.equal(m.sentences[0].words[1].heat, 1);
});

test('a result without the measure says so instead of drawing zeros silently', () => {
  const m = documentModel({ ...result, sentence_integrated_gradients: [], word_integrated_gradients: [] }, 'integrated_gradients');
  assert.equal(m.missing, true);
  assert.equal(documentModel({ sentences: [] }, 'gradient').missing, false);
});

test('Kendall τ per level; null stays null; missing pairs count their items', () => {
  const [sent, word] = kendallTable(result);
  assert.equal(sent.level, 'sentence');
  assert.deepEqual(sent.pairs.map((p) => p.tau), [-1, 1, null]);
  assert.equal(word.pairs[0].tau, 0.4);
  assert.equal(word.pairs[1].tau, null);
  assert.equal(word.pairs[1].n, 5);
});

test('notices: the core\'s cuts, one sentence, markup', () => {
  assert.match(documentNotices(result)[0], /^Cut to the first 100 of 10000 sentences .*\.$/);
  assert.match(documentNotices({ sentences: [['one']], notes: [] }).join(' '), /One sentence/);
  assert.match(markupNotice('Good.<br /><br />Bad.'), /paragraph break/);
  assert.match(markupNotice('a <P> b'), /paragraph break/);
  assert.equal(markupNotice('I <3 it, <grin>'), '');
});

test('CSV rows: a row per sentence, then per word, with the explain-text numbers (α and β·α both)', () => {
  const rows = documentRows(result);
  assert.equal(rows.length, 2 + 5);
  assert.deepEqual(rows[1], {
    level: 'sentence', sentence: 1, word: '', text: 'dull .', attention: 0.25, gradient: 0.6, leave_one_out: 0.1,
    integrated_gradients: -0.25,
  });
  assert.deepEqual(rows[5], {
    level: 'word', sentence: 1, word: 0, text: 'dull', attention: 0.9, gradient: 0.5, leave_one_out: 0.2,
    integrated_gradients: -0.2, attention_in_document: 0.25 * 0.9,
  });
  const csv = rowsToCsv(rows, { first: ['level', 'sentence', 'word'], last: ['text'] }).split('\r\n');
  assert.equal(csv[0], 'level,sentence,word,attention,gradient,leave_one_out,integrated_gradients,attention_in_document,text');
  assert.equal(csv[3], 'word,0,0,0.2,0.1,0,0.1,0.15000000000000002,a');
  // a result without integrated gradients: the column is absent, not zeros
  const { sentence_integrated_gradients, word_integrated_gradients, ...noIg } = result;
  assert.ok(documentRows(noIg).every((r) => !('integrated_gradients' in r)));
  assert.deepEqual(documentRows(null), []);
});
