// training.test.mjs — web/analysis/training.js: seed / epochs parsing, trained-model names, progress
// arithmetic, the loss / dev history, and the comparison rows; the adversary's choices (kinds, λ, bases),
// names, dev TVD / JSD in the history and the TVD-vs-JSD points (and that state.js offers the same λ).
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  ATTENTIONS, WP_SEEDS, MAX_SEED, MAX_EPOCHS, parseSeed, parseEpochs, trainedName, progressFraction, epochFraction,
  secondsLeft, createHistory, addProgress, comparisonRows, TRAIN_KINDS, LAMBDAS, parseLambda, adversaryBases,
  adversaryName, adversaryPoints, TRANSFORMER_ATTENTIONS, TRANSFORMER_LAYERS, transformerAttention,
  FAITHFUL_KINDS, FAITHFUL_ATTENTIONS, DIVERSITY_LAMBDAS, DECEPTION_LAMBDAS, faithfulAttention, variantName, variantOptions,
} from '../../web/analysis/training.js';
import { SCHEMA, parse, serialize, defaults } from '../../web/state.js';
import { CATALOGUE } from '../../web/catalogue.js';
import { trainedEntry } from '../../web/runtime/labs/train-entries.js';
import { modelKind } from '../../web/analysis/display.js';

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
  assert.equal(trainedName('dot', 7, ['trained-dot-seed7'], 2), 'trained-transformer2-dot-seed7', 'a transformer names its blocks');
  assert.equal(trainedName('uniform', 1, ['trained-transformer1-uniform-seed1'], 1), 'trained-transformer1-uniform-seed1-2');
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

test('adversary choices: two kinds, the λ list (the URL state offers the same), parseLambda', () => {
  assert.deepEqual(TRAIN_KINDS.map((k) => k.value).slice(0, 3), ['model', 'transformer', 'adversary']);
  assert.deepEqual(SCHEMA.trainkind.values, TRAIN_KINDS.map((k) => k.value));
  assert.deepEqual(SCHEMA.lambda.values, [...LAMBDAS]);
  assert.ok(LAMBDAS.includes(SCHEMA.lambda.default));
  for (const l of LAMBDAS) assert.equal(parseLambda(l), Number(l));
  assert.ok(LAMBDAS.includes('0') && LAMBDAS.includes('1'), "the CLI's sweep ends");
  assert.equal(parseLambda(' 0.25 '), 0.25);
  for (const bad of ['', '-1', '1e3', 'abc', 'NaN', 'Infinity', '2000000', null]) assert.equal(parseLambda(bad), null, String(bad));
  // URL: kind, base, λ round-trip; defaults stay out of the link.
  const st = { ...defaults(), view: 'train', trainkind: 'adversary', advbase: 'sst2-dot', lambda: '0.01' };
  assert.equal(serialize(st), '#view=train&trainkind=adversary&advbase=sst2-dot&lambda=0.01');
  const back = parse(serialize(st));
  assert.deepEqual([back.trainkind, back.advbase, back.lambda], ['adversary', 'sst2-dot', '0.01']);
  assert.equal(parse('#lambda=0.3').lambda, SCHEMA.lambda.default, 'a λ not offered takes the default');
});

test('transformer choices: dot or uniform attention (tanh shows as dot), 1 or 2 blocks, in the URL', () => {
  assert.deepEqual(TRANSFORMER_ATTENTIONS.map((a) => a.value), ['dot', 'uniform']);
  assert.deepEqual([...TRANSFORMER_LAYERS], [1, 2]);
  assert.deepEqual(['dot', 'uniform', 'tanh', undefined].map(transformerAttention), ['dot', 'uniform', 'dot', 'dot']);
  assert.equal(SCHEMA.tlayers.min, TRANSFORMER_LAYERS[0]);
  assert.equal(SCHEMA.tlayers.max, TRANSFORMER_LAYERS.at(-1));
  const st = { ...defaults(), view: 'train', trainkind: 'transformer', attention: 'dot', tlayers: 1 };
  assert.equal(serialize(st), '#view=train&attention=dot&trainkind=transformer&tlayers=1');
  const back = parse(serialize(st));
  assert.deepEqual([back.trainkind, back.attention, back.tlayers], ['transformer', 'dot', 1]);
  assert.equal(parse('#tlayers=4').tlayers, SCHEMA.tlayers.default, 'more blocks than offered take the default');
});

test('adversaryBases: shipped SST-2 models with learned attention, in manifest order', () => {
  const models = [
    { name: 'imdb-tanh', dataset: 'imdb', attention: 'tanh' },
    { name: 'sst2-dot', dataset: 'sst2', attention: 'dot' },
    { name: 'sst2-tanh', dataset: 'sst2', attention: 'tanh' },
    { name: 'sst2-uniform', dataset: 'sst2', attention: 'uniform' },
    { name: 'sst2-transformer', dataset: 'sst2', attention: 'dot', encoder: 'transformer' },
    { name: 'trained-tanh-seed1', dataset: 'sst2', attention: 'tanh', trained: true },
    null,
  ];
  assert.deepEqual(adversaryBases(models), ['sst2-dot', 'sst2-tanh']);
  assert.deepEqual(adversaryBases([]), []);
});

test('adversaryName: trained-adversary-BASE-lambdaL-seedS, numbered when taken', () => {
  assert.equal(adversaryName('sst2-tanh', 0.5, 50), 'trained-adversary-sst2-tanh-lambda0.5-seed50');
  const taken = ['trained-adversary-sst2-tanh-lambda1-seed2', 'trained-adversary-sst2-tanh-lambda1-seed2-2'];
  assert.equal(adversaryName('sst2-tanh', 1, 2, taken), 'trained-adversary-sst2-tanh-lambda1-seed2-3');
});

test('addProgress keeps the dev TVD / JSD / KL of an adversary epoch (and adds none for a classifier)', () => {
  const h = createHistory();
  addProgress(h, { epoch: 1, epochs: 2, batch: 217, batches: 217, epoch_done: true, train_loss: -9.9, best_epoch: 1,
    dev: { accuracy: 0.51, f1: 0.67, n: 872, tvd_mean: 0.44, jsd_mean: 0.69, kl_mean: 12.5 } });
  assert.deepEqual(h.epochs[0], { epoch: 1, train_loss: -9.9, dev_accuracy: 0.51, dev_f1: 0.67, dev_n: 872, dev_tvd: 0.44, dev_jsd: 0.69, dev_kl: 12.5 });
  const c = addProgress(createHistory(), { epoch: 1, epochs: 1, batch: 3, batches: 3, epoch_done: true, train_loss: 0.5, best_epoch: 1, dev: { accuracy: 0.8, f1: 0.8, n: 10 } });
  assert.equal('dev_tvd' in c.epochs[0], false);
});

test('adversaryPoints: one per adversary (test numbers, else dev), sorted by base then λ; classifiers skipped', () => {
  const adv = (name, base, lambda, metrics) => ({ name, trained: true, metrics, provenance: { kind: 'adversary', base, lambda, seed: 1, epochs_run: 2 } });
  const m = (tvd, jsd) => ({ tvd_mean: tvd, jsd_mean: jsd, kl_mean: 3, accuracy: 0.7, f1: 0.72 });
  const pts = adversaryPoints([
    adv('a', 'sst2-tanh', 1, { dev: m(0.3, 0.6), test: m(0.31, 0.61) }),
    { name: 'trained-tanh-seed1', trained: true, metrics: { test: { accuracy: 0.8 } }, provenance: { seed: 1 } },
    adv('b', 'sst2-tanh', 0, { dev: m(0.2, 0.4) }),
    adv('c', 'sst2-dot', 2, { test: m(0.5, 0.69) }),
    null,
  ]);
  assert.deepEqual(pts.map((p) => p.name), ['c', 'b', 'a']);
  assert.deepEqual(pts.map((p) => p.split), ['test', 'dev', 'test']);
  assert.deepEqual(pts.map((p) => [p.tvd, p.jsd]), [[0.5, 0.69], [0.2, 0.4], [0.31, 0.61]]);
  assert.equal(pts[2].lambda, 1);
  assert.equal(pts[2].kl, 3);
  assert.ok(Number.isNaN(adversaryPoints([adv('d', 'x', 1, {})])[0].tvd), 'NaN when a number is missing');
});

// --- the debate's fourth round (issue 32) ----------------------------------------------------------------------------

test('round four kinds: Orthogonal / Diversity LSTM and deceptive attention, their λ (the papers\' defaults) in the URL', () => {
  assert.deepEqual([...FAITHFUL_KINDS], ['ortho', 'diversity', 'deceptive']);
  for (const k of FAITHFUL_KINDS) assert.ok(TRAIN_KINDS.some((t) => t.value === k), k);
  assert.deepEqual(SCHEMA.divlambda.values, [...DIVERSITY_LAMBDAS]);
  assert.deepEqual(SCHEMA.declambda.values, [...DECEPTION_LAMBDAS]);
  assert.equal(SCHEMA.divlambda.default, '0.5', 'Mohankumar et al.: 0.5');
  assert.equal(SCHEMA.declambda.default, '1', 'Pruthi et al.: 1 (or 0.1)');
  assert.ok(DECEPTION_LAMBDAS.includes('0.1'));
  assert.equal(SCHEMA.impwords.default, '', 'no words of one\'s own: the shipped lexicon');
  assert.deepEqual(FAITHFUL_ATTENTIONS.map((a) => a.value), ['tanh', 'dot']);
  assert.deepEqual(['tanh', 'dot', 'uniform', undefined].map(faithfulAttention), ['tanh', 'dot', 'tanh', 'tanh']);
  const st = { ...defaults(), view: 'train', trainkind: 'deceptive', declambda: '0.1', impwords: 'awful superb' };
  assert.equal(serialize(st), '#view=train&trainkind=deceptive&declambda=0.1&impwords=awful+superb');
  const back = parse(serialize(st));
  assert.deepEqual([back.trainkind, back.declambda, back.impwords, back.divlambda], ['deceptive', '0.1', 'awful superb', '0.5']);
  assert.equal(parse('#divlambda=7').divlambda, '0.5', 'a λ not offered takes the default');
});

test('round four: names, and the options the page sends are the core\'s (catalogue text.training)', () => {
  assert.equal(variantName('ortho', 'tanh', undefined, 50), 'trained-ortho-tanh-seed50');
  assert.equal(variantName('diversity', 'dot', 0.5, 2), 'trained-diversity0.5-dot-seed2');
  assert.equal(variantName('deceptive', 'tanh', 1, 50, ['trained-deceptive1-tanh-seed50']), 'trained-deceptive1-tanh-seed50-2');
  assert.deepEqual(variantOptions('ortho'), { encoder: 'ortho_bilstm' });
  assert.deepEqual(variantOptions('diversity', { lambda: '0.5' }), { diversity: 0.5 });
  assert.deepEqual(variantOptions('deceptive', { lambda: 1, words: ' awful\nsuperb  bad ' }), { deception: 1, impermissible: 'awful superb bad' });
  assert.throws(() => variantOptions('diversity', { lambda: '0' }), /above 0/);
  assert.throws(() => variantOptions('deceptive', { lambda: '1', words: '  ' }), /impermissible words/);
  assert.throws(() => variantOptions('deceptive', { lambda: 'x', words: 'bad' }), /λ/);
  const spec = Object.fromEntries(CATALOGUE.text.training.map((p) => [p.name, p]));
  assert.ok(spec.encoder.values.includes('ortho_bilstm'));
  for (const o of [variantOptions('ortho'), variantOptions('diversity', { lambda: 2 }), variantOptions('deceptive', { lambda: 5, words: 'bad' })]) {
    for (const [k, v] of Object.entries(o)) {
      assert.ok(spec[k], `${k} is a core training option`);
      assert.equal(typeof v, spec[k].type === 'string' ? 'string' : 'number', k);
      if (spec[k].type === 'number') assert.ok(v >= spec[k].min && v <= spec[k].max, `${k} = ${v} in the core's range`);
    }
  }
  for (const l of [...DIVERSITY_LAMBDAS, ...DECEPTION_LAMBDAS]) assert.ok(Number(l) > 0 && Number(l) <= spec.diversity.max, l);
});

test('round four: a trained entry records its kind (as the shipped entries) and the CLI command that gives it', () => {
  const config = (training) => JSON.stringify({ attention: 'tanh', vocab: ['<pad>', '<unk>', 'bad'], metrics: { test: { accuracy: 0.8, f1: 0.8 } },
    training: { best_epoch: 1, epochs_run: 1, ...training } });
  const res = { status: 'done' };
  const weights = new Uint8Array(8);
  const base = { attention: 'tanh', seed: 50, epochs: 1 };
  const ortho = trainedEntry('trained-ortho-tanh-seed50', { ...base, kind: 'ortho', encoder: 'ortho_bilstm' }, config({ encoder: 'ortho_bilstm' }), weights, res, {});
  assert.equal(ortho.encoder, 'ortho_bilstm');
  assert.equal(ortho.provenance.kind, 'ortho');
  assert.match(ortho.description, /Orthogonal LSTM/);
  assert.match(ortho.provenance.same_as, / --attention tanh --encoder ortho_bilstm --seed 50 /);
  assert.equal(modelKind(ortho), 'Orthogonal LSTM + tanh attention');
  const div = trainedEntry('d', { ...base, kind: 'diversity', diversity: 0.5 }, config({ diversity: 0.5 }), weights, res, {});
  assert.equal(div.diversity, 0.5);
  assert.equal(div.provenance.kind, 'diversity');
  assert.match(div.provenance.same_as, / --diversity 0\.5 /);
  assert.equal(modelKind(div), 'Diversity LSTM + tanh attention');
  const dec = trainedEntry('x', { ...base, kind: 'deceptive', deception: 1, impermissible: 'awful bad superb', words_source: 'lexicon' },
    config({ deception: 1 }), weights, res, {});
  assert.equal(dec.deception, 1);
  assert.deepEqual(dec.impermissible, { words: 3, source: 'models/text/data/sst2-strong-lexicon.txt' });
  assert.equal(dec.provenance.kind, 'deceptive');
  assert.match(dec.description, /deceptive attention \(Pruthi et al\. 2020/);
  assert.match(dec.provenance.same_as, / --deception 1 --impermissible models\/text\/data\/sst2-strong-lexicon\.txt /);
  assert.equal(modelKind(dec), 'BiLSTM + tanh attention · deceptive (Pruthi et al.)');
  const own = trainedEntry('y', { ...base, kind: 'deceptive', deception: 0.1, impermissible: 'plot', words_source: 'own' }, config({}), weights, res, {});
  assert.equal(own.impermissible.source, 'your list');
  assert.match(own.provenance.same_as, /--impermissible WORDS\.txt/);
  // a plain BiLSTM entry is unchanged: no kind, no variant fields
  const plain = trainedEntry('p', base, config({}), weights, res, {});
  assert.equal(plain.provenance.kind, undefined);
  assert.deepEqual(['encoder', 'diversity', 'deception'].filter((k) => k in plain), []);
  // the comparison table names the variant
  assert.deepEqual(comparisonRows([ortho, div, dec, plain]).map((r) => r.attention),
    ['tanh (Orthogonal LSTM)', 'tanh (Diversity LSTM, λ 0.5)', 'tanh (deceptive, λ 1)', 'tanh']);
});
