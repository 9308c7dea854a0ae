// training.test.mjs — web/analysis/training.js: seed / epochs parsing, trained-model names, progress
// arithmetic, the loss / dev history, and the comparison rows.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  ATTENTIONS, WP_SEEDS, MAX_SEED, MAX_EPOCHS, parseSeed, parseEpochs, trainedName, progressFraction, epochFraction,
  secondsLeft, createHistory, addProgress, comparisonRows,
} from '../../web/analysis/training.js';

test('the offered choices: three attentions (uniform first) and the eight W&P seeds', () => {
  assert.deepEqual(ATTENTIONS.map((a) => a.value), ['uniform', 'tanh', 'dot']);
  assert.match(ATTENTIONS[0].label, /Wiegreffe & Pinter/);
  assert.deepEqual(WP_SEEDS, [50, 257, 500231, 100078, 12504, 90754789, 8988812, 2]);
  for (const s of WP_SEEDS) assert.equal(parseSeed(String(s)), s);
});

test('parseSeed: whole numbers 0 … 2^31 − 1 only', () => {
  assert.equal(parseSeed('0'), 0);
  assert.equal(parseSeed(' 42 '), 42);
  assert.equal(parseSeed(String(MAX_SEED)), MAX_SEED);
  for (const bad of ['', '-1', '1.5', '1e3', 'abc', String(MAX_SEED + 1), '99999999999999999', null, undefined]) {
    assert.equal(parseSeed(bad), null, String(bad));
  }
});

test('parseEpochs: 1 … MAX_EPOCHS', () => {
  assert.equal(parseEpochs('1'), 1);
  assert.equal(parseEpochs('8'), 8);
  assert.equal(parseEpochs(String(MAX_EPOCHS)), MAX_EPOCHS);
  for (const bad of ['0', String(MAX_EPOCHS + 1), '2.5', '', 'x']) assert.equal(parseEpochs(bad), null, bad);
});

test('trainedName: attention and seed, made unique against the names taken', () => {
  assert.equal(trainedName('uniform', 50), 'trained-uniform-seed50');
  assert.equal(trainedName('tanh', 2, ['sst2-tanh']), 'trained-tanh-seed2');
  assert.equal(trainedName('dot', 7, ['trained-dot-seed7']), 'trained-dot-seed7-2');
  assert.equal(trainedName('dot', 7, new Set(['trained-dot-seed7', 'trained-dot-seed7-2'])), 'trained-dot-seed7-3');
});

test('progress fractions: within the epoch and over all epochs', () => {
  const p = { epoch: 2, epochs: 4, batch: 50, batches: 200, epoch_done: false, done: false };
  assert.equal(epochFraction(p), 0.25);
  assert.equal(progressFraction(p), (1 + 0.25) / 4);
  assert.equal(progressFraction({ ...p, batch: 200, epoch_done: true }), 2 / 4);
  assert.equal(progressFraction({ ...p, epoch: 4, batch: 200, epoch_done: true, done: true }), 1);
  assert.equal(progressFraction(null), 0);
  assert.equal(progressFraction({ epoch: 0, epochs: 0 }), 0);
  assert.equal(epochFraction({ batch: 3, batches: 0 }), 0);
  assert.equal(secondsLeft(p, 10), (10 / (1.25 / 4)) * (1 - 1.25 / 4));
  assert.ok(Number.isNaN(secondsLeft({ epoch: 1, epochs: 2, batch: 0, batches: 10 }, 3)));
});

test('history: loss points in order, one record per finished epoch, the best epoch', () => {
  const h = createHistory();
  addProgress(h, { epoch: 1, epochs: 2, batch: 5, batches: 10, train_loss: 0.7, best_epoch: 0 });
  addProgress(h, { epoch: 1, epochs: 2, batch: 5, batches: 10, train_loss: 0.7, best_epoch: 0 }); // repeated: ignored
  addProgress(h, { epoch: 1, epochs: 2, batch: 10, batches: 10, train_loss: 0.6, epoch_done: true, best_epoch: 1, dev: { accuracy: 0.7, f1: 0.69, n: 872 } });
  addProgress(h, { epoch: 2, epochs: 2, batch: 4, batches: 10, train_loss: 0.5, best_epoch: 1 });
  addProgress(h, { epoch: 2, epochs: 2, batch: 10, batches: 10, train_loss: 0.45, epoch_done: true, done: true, best_epoch: 2, dev: { accuracy: 0.75, f1: 0.74, n: 872 } });
  addProgress(h, { stage: 'test' }); // no epoch: ignored
  assert.deepEqual(h.loss.map((p) => [p.x, p.loss]), [[0.5, 0.7], [1, 0.6], [1.4, 0.5], [2, 0.45]]);
  assert.deepEqual(h.epochs, [
    { epoch: 1, train_loss: 0.6, dev_accuracy: 0.7, dev_f1: 0.69, dev_n: 872 },
    { epoch: 2, train_loss: 0.45, dev_accuracy: 0.75, dev_f1: 0.74, dev_n: 872 },
  ]);
  assert.equal(h.best_epoch, 2);
});

test('comparisonRows: trained models first, then the shipped ones; missing numbers are NaN', () => {
  const shipped = [
    { name: 'sst2-tanh', attention: 'tanh', metrics: { dev: { accuracy: 0.84, f1: 0.85 }, test: { accuracy: 0.843, f1: 0.85, n: 1821 } } },
    { name: 'trained-old', trained: true, attention: 'dot', metrics: {} },
  ];
  const mine = { name: 'trained-uniform-seed50', attention: 'uniform', trained: true, metrics: { dev: { accuracy: 0.7, f1: 0.69 }, test: { accuracy: 0.67, f1: 0.66, n: 1821 } } };
  const rows = comparisonRows(mine, shipped);
  assert.deepEqual(rows.map((r) => [r.name, r.trained]), [['trained-uniform-seed50', true], ['sst2-tanh', false]]);
  assert.equal(rows[0].test_f1, 0.66);
  assert.equal(rows[1].test_n, 1821);
  assert.match(rows[0].training, /in this page/);
  const two = comparisonRows([mine, { name: 'trained-tanh-seed2', attention: 'tanh' }], shipped);
  assert.deepEqual(two.map((r) => r.name), ['trained-uniform-seed50', 'trained-tanh-seed2', 'sst2-tanh']);
  assert.ok(Number.isNaN(two[1].dev_accuracy));
  assert.deepEqual(comparisonRows(null, shipped).map((r) => r.name), ['sst2-tanh']);
});

test('comparisonRows leaves out shipped models of other data sets (their test set is not SST-2)', () => {
  const rows = comparisonRows({ name: 'trained-uniform-seed50', metrics: {} }, [
    { name: 'sst2-tanh', dataset: 'sst2', metrics: {} },
    { name: 'imdb-tanh', dataset: 'imdb', metrics: {} },
  ]);
  assert.deepEqual(rows.map((r) => r.name), ['trained-uniform-seed50', 'sst2-tanh']);
});
