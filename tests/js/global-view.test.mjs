// global-view.test.mjs — web/analysis/global-view.js (pure): which models get a global view and why not, ranked
// tables, search, the map's sample, equal-score lines (perpendicular to the query: score is constant along them),
// and example sentences with the word's spans.
import test from 'node:test';
import assert from 'node:assert/strict';
import { supportFor, trainDataFor, rankTables, search, mapIndices, contourSegment, contourLevels, scoreAt, findExamples, csvRows } from '../../web/analysis/global-view.js';

const view = {
  texts: ['great', 'bad', 'film', 'the'], score: [3, 1, 0, -2], contextual_score: [2.5, NaN, 0.1, -1],
  count: [4, 0, 9, 20], predicted_class: [1, 0, 1, 0], class_names: ['negative', 'positive'],
  x: [1, 0.5, 0, -1], y: [0, 1, -1, 0], query: [2, 0.5], score_at_mean: 0.5,
};

test('support: tanh and HAN tanh levels yes; dot, uniform, transformer say why in one sentence', () => {
  assert.equal(supportFor({ name: 'sst2-tanh', attention: 'tanh' }), '');
  assert.match(supportFor({ name: 'sst2-dot', attention: 'dot' }), /dot attention/);
  assert.match(supportFor({ name: 'sst2-uniform', attention: 'uniform' }), /uniform/);
  assert.match(supportFor({ name: 't', attention: 'dot', encoder: 'transformer' }), /transformer/);
  const han = { name: 'imdb-han', kind: 'han', word_attention: 'tanh', sentence_attention: 'tanh' };
  assert.equal(supportFor(han, 'sentence'), '');
  assert.match(supportFor({ ...han, sentence_attention: 'uniform' }, 'sentence'), /uniform/);
  assert.match(supportFor({ name: 'sst2-tanh', attention: 'tanh' }, 'sentence'), /no sentence level/);
  assert.equal(trainDataFor({ dataset: 'imdb' }), 'imdb-train-500');
  assert.equal(trainDataFor({ name: 'sst2-tanh' }), 'sst2-train');
  assert.equal(trainDataFor({ dataset: 'agnews' }), null);
});

test('tables, search, CSV rows', () => {
  const r = rankTables(view, 1);
  assert.deepEqual(r.top.map((i) => i.text), ['great']);
  assert.deepEqual(r.bottom.map((i) => i.text), ['the']);
  assert.deepEqual(r.perClass.map((c) => [c.name, c.count, c.top[0].text, c.bottom[0].text]), [['negative', 2, 'bad', 'the'], ['positive', 2, 'great', 'film']]);
  assert.equal(r.top[0].rank, 1);
  assert.deepEqual(search(view, 'FILM').map((i) => [i.rank, i.count]), [[3, 9]]);
  assert.equal(search(view, 'b')[0].contextual_score, null);
  assert.deepEqual(search(view, ''), []);
  assert.deepEqual(csvRows(view)[1], { rank: 2, text: 'bad', score: 1, contextual_score: null, count: 0, predicted_class: 'negative' });
});

test('map sample keeps the extremes and the searched item; contour lines hold one score', () => {
  const big = { ...view, texts: Array.from({ length: 1000 }, (_, i) => `w${i}`) };
  const idx = mapIndices(big, { max: 100, keep: [500] });
  assert.ok(idx.includes(0) && idx.includes(999) && idx.includes(500));
  assert.ok(idx.length <= 101);
  for (const level of contourLevels(view, [0, 1, 2, 3])) {
    const seg = contourSegment(view, level, { x0: -2, x1: 2, y0: -2, y1: 2 });
    if (!seg) continue;
    for (const [x, y] of seg) assert.ok(Math.abs(scoreAt(view, x, y) - level) < 1e-9);
    const [[ax, ay], [bx, by]] = seg;
    assert.ok(Math.abs((bx - ax) * view.query[0] + (by - ay) * view.query[1]) < 1e-9, 'perpendicular to the query');
  }
});

test('examples: whole tokens, case-insensitive, split clitics and hyphens', () => {
  const lines = [{ label: 1, text: 'A Great, well-made film.' }, { label: 0, text: 'greatness is not great' }, { label: 0, text: "it isn't" }];
  const spans = (w) => findExamples(lines, w).map((e) => [e.line, e.spans.map(([a, b]) => e.text.slice(a, b))]);
  assert.deepEqual(spans('great'), [[0, ['Great']], [1, ['great']]]);
  assert.deepEqual(spans('made'), [[0, ['made']]]);
  assert.deepEqual(spans("n't"), [[2, ["n't"]]]);
  assert.equal(findExamples(lines, 'film', 1).length, 1);
});
