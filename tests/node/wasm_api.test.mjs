// wasm_api.test.mjs — the wasm module API of issue 9 (docs/DESIGN.md "Binding convention", "wasm module API"),
// loaded from web/gen (or $ATTNLAB_WASM_DIR) with createModule({ wasmBinary }).
// Checks:
//   - Module.catalogue() equals `build/attnlab catalogue` (same JSON, both from core/catalogue);
//   - the error convention: bad arguments of every binding family give a thrown Error with a readable message,
//     and 1,000 failing calls that copy 4 MB each leave the wasm memory (almost) where it was (no leak);
//   - a data set loaded once and run by index ranges in chunks gives the rows of one whole range, two labs
//     splitting the chunks (a pool) give the same rows, and the rows and summary match the native CLI
//     (`attnlab experiment kendall --limit 24`, float tolerance); runSummary = summarizeRows(rows);
//   - one text is tokenized once for explain + live experiments (a different cut is a second tokenization);
//   - ImageLab.renderMap in one call equals the old multi-call pipeline (map → upsampleMap → normalizeMap →
//     overlayMap) byte for byte, a changed opacity / class does not (negative control), recolor reuses the kept
//     map, lab.plan equals the planX functions, setMask gives pointingGame / energyInMask; and the Embind bytes
//     of one map before / after are printed;
//   - TextTraining (options from the catalogue's specs) gives the best epoch and dev metrics of `attnlab train-text`,
//     for a BiLSTM and for a transformer (AdamW, warm-up, dropout: the in-page transformer recipe); a transformer
//     trained with Adam instead (the BiLSTM's optimizer) does not (negative control).
// Skips when web/gen (or, for the CLI comparisons, build/attnlab or models/text/sst2-tanh) is missing.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, SST_TEST, hasModel, hasWasm, loadCore, modelDir } from './parity-lib.mjs';

const haveCli = fs.existsSync(CLI);
const TANH = modelDir('sst2-tanh');
const haveModel = hasModel(TANH);
const S = 224;

function lastJsonLine(stdout) {
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

// The first nTrain SST-2 test sentences as training data and the next ones up to `end` as dev, as TSV text and as
// train.tsv / dev.tsv in a fresh temporary folder (for the CLI).
function trainDevSplit(prefix, nTrain, end) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const lines = fs.readFileSync(SST_TEST, 'utf8').split('\n').filter((l) => l.trim());
  const trainTsv = lines.slice(0, nTrain).join('\n') + '\n', devTsv = lines.slice(nTrain, end).join('\n') + '\n';
  fs.writeFileSync(path.join(dir, 'train.tsv'), trainTsv);
  fs.writeFileSync(path.join(dir, 'dev.tsv'), devTsv);
  return { dir, trainTsv, devTsv };
}

function openLab(M, dir) {
  return new M.TextLab(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'),
    new Uint8Array(fs.readFileSync(path.join(dir, 'model.safetensors'))));
}

test('wasm api: Module.catalogue() equals `attnlab catalogue`', { skip: (!hasWasm() && 'no web/gen') || (!haveCli && 'no build/attnlab') }, async () => {
  const M = await loadCore();
  const r = spawnSync(CLI, ['catalogue'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const cli = lastJsonLine(r.stdout);
  assert.deepEqual(M.catalogue(), cli);
  assert.equal(cli.text.explain.find((p) => p.name === 'ig_steps').default, 50);
  assert.equal(M.imagePasses('occlusion', { window: 32, stride: 16 }), 170);
  assert.equal(M.imagePasses('scorecam'), 1280);
  assert.equal(M.imagePasses('rise', { n: 500 }), 500);
});

test('wasm api: errors are thrown Errors with messages, and failing calls leak nothing', { skip: !hasWasm() && 'no web/gen' }, async () => {
  const M = await loadCore();
  assert.throws(() => new M.TextLab('{}', new Uint8Array(8)), (e) => e instanceof Error && e.message.length > 5);
  assert.throws(() => new M.TextLab('{}', [1, 2]), /weights must be a Uint8Array/);
  assert.throws(() => M.imagePasses('lime'), /unknown image method 'lime'/);
  assert.throws(() => M.imagePasses('rise', { n: 1 }), /n must be a number in \[50, 8000\]/);
  assert.throws(() => new M.TextTraining('x', 'y', { epochs: 0 }), /epochs must be a number in \[1, 1000\]|training data/);
  assert.throws(() => new M.TextTraining('1\ta\n', '0\tb\n', { attention: 'mlp' }), /attention must be uniform, tanh or dot, got 'mlp'/);
  assert.throws(() => new M.CnnTrainer({ head: 'avg' }), /head must be gap, gmp or lse, got 'avg'/);
  const K = 8;
  const lab = new M.ImageLab(new Float32Array(2 * K), new Float32Array(2), 2, K);
  try {
    assert.throws(() => lab.renderMap('cam', 0), /no photo/);
    assert.throws(() => lab.setPhoto(new Float32Array(10), new Float32Array(K * 4), 2, 2), /image must have 3·224·224 = 150528 values, got 10/);
    lab.setPhoto(new Float32Array(3 * S * S), new Float32Array(K * 4), 2, 2);
    assert.throws(() => lab.renderMap('lime', 0), /unknown map method 'lime'/);
    assert.throws(() => lab.renderMap('cam', 5), /classIndex must be in 0..1, got 5/);
    assert.throws(() => lab.renderMap('cam', 0, 1, 'rainbow'), /unknown colormap 'rainbow'/);
    assert.throws(() => lab.recolor('gradcam'), /no kept map 'gradcam'/);
    assert.throws(() => lab.plan('deletion', 0, {}), /needs params.map/);
    assert.throws(() => lab.plan('cam', 0, {}), /unknown plan 'cam'/);
    // No leak: each failing call copies a 4 MB array into the heap before failing on another argument.
    const big = new Float32Array(1 << 20);
    for (let i = 0; i < 3; i++) assert.throws(() => lab.map('cam', big, 2, 2, 9, 0));
    const before = (M.wasmMemory ?? M.HEAPU8).buffer.byteLength;
    for (let i = 0; i < 1000; i++) {
      assert.throws(() => lab.logits(big, 1, 2, 2), /features must have N·K·h·w = 32 values/);
      assert.throws(() => M.upsampleMap(big, 2, 2, 4, 4), /map must have h·w = 4 values/);
    }
    const after = (M.wasmMemory ?? M.HEAPU8).buffer.byteLength;
    assert.ok(after - before <= 16 << 20, `wasm memory grew by ${after - before} bytes over 2,000 failing 4 MB calls`);
    assert.equal(lab.classes(), 2, 'the module keeps working');
  } finally {
    lab.delete();
  }
  assert.throws(() => lab.classes(), /deleted/);
});

test('wasm api: a data set loaded once, run by ranges, in a pool, equals one range and the CLI', { skip: (!hasWasm() && 'no web/gen') || (!haveModel && 'no models/text/sst2-tanh') }, async (t) => {
  const M = await loadCore();
  const N = 24;
  const tsv = fs.readFileSync(SST_TEST, 'utf8');
  const a = openLab(M, TANH), b = openLab(M, TANH);
  try {
    const loaded = a.loadDataset('test', tsv);
    assert.equal(loaded.total, 1821);
    assert.ok(a.hasDataset('test') && !a.hasDataset('dev'));
    b.loadDataset('test', tsv);
    const whole = a.experimentRange('kendall', 'test', 0, N, {}, 1);
    assert.equal(whole.total, 1821);
    assert.equal(whole.rows.length, N);
    // chunks on one lab, and the same chunks split over two labs (a pool of two workers)
    const chunks = [[0, 5], [5, 2], [7, 10], [17, 7]];
    const one = chunks.flatMap(([s, c]) => a.experimentRange('kendall', 'test', s, c, {}, 1).rows);
    const pool = chunks.flatMap(([s, c], i) => (i % 2 ? b : a).experimentRange('kendall', 'test', s, c, {}, 1).rows);
    assert.deepEqual(one, whole.rows);
    assert.deepEqual(pool, whole.rows);
    assert.deepEqual(one.map((r) => r.index), [...Array(N).keys()]);
    // the summary of the rows a lab kept equals the summary of rows sent back (the pool's path)
    const kept = a.runSummary('kendall', 'test', {}, 1);
    assert.deepEqual(kept, a.summarizeRows('kendall', pool, {}, 1));
    assert.equal(kept.n, N);
    assert.throws(() => b.runSummary('kendall', 'test', {}, 2), /no rows of kendall on test/);
    assert.throws(() => a.experimentRange('kendall', 'dev', 0, 3), /data set 'dev' is not loaded/);
    assert.throws(() => a.experimentRange('permutation', 'test', 0, 3, { permutations: 0 }), /permutations must be a number in \[1, 10000\]/);
    if (!haveCli) return t.diagnostic('no build/attnlab: CLI comparison skipped');
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-range-')), 'rows.json');
    const r = spawnSync(CLI, ['experiment', 'kendall', '--model', TANH, '--data', SST_TEST, '--out', out, '--limit', String(N), '--seed', '1'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const native = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.equal(native.rows.length, N);
    let maxDiff = 0;
    native.rows.forEach((nr, i) => {
      assert.equal(whole.rows[i].index, nr.index);
      for (const k of ['tau_gradient', 'tau_loo']) {
        const x = whole.rows[i][k], y = nr[k];
        if (typeof y === 'number') maxDiff = Math.max(maxDiff, Math.abs(x - y));
      }
    });
    t.diagnostic(`max |Δτ| wasm vs native over ${N} rows: ${maxDiff}`);
    assert.ok(maxDiff <= 0.1, 'kendall rows agree with the CLI (τ may step on near ties)');
    assert.equal(kept.n, native.summary.n);
  } finally {
    a.delete();
    b.delete();
  }
});

test('wasm api: one text is tokenized once for explain and the live experiments', { skip: (!hasWasm() && 'no web/gen') || (!haveModel && 'no models/text/sst2-tanh') }, async () => {
  const M = await loadCore();
  const lab = openLab(M, TANH);
  try {
    const text = 'the acting is superb but the plot is a mess';
    const e = lab.explain(text);
    assert.equal(e.tokens.length, 10);
    for (const name of ['adversarial', 'permutation', 'erase-max', 'erase-until-flip', 'eraser']) {
      const params = name === 'adversarial' ? { steps: 20 } : {};
      const row = lab.experiment(name, text, params, 1);
      assert.deepEqual(row.tokens, e.tokens);
    }
    assert.equal(lab.tokenizations(), 1);
    lab.experiment('kendall', text, {}, 1, 5); // another cut is another prepared text (negative control)
    assert.equal(lab.tokenizations(), 2);
    assert.throws(() => lab.experiment('kendall', ' ', {}, 1), /no tokens in the text/);
    assert.throws(() => lab.experiment('nope', text), /unknown experiment 'nope'/);
  } finally {
    lab.delete();
  }
});

function randomArray(n, seed, scale = 1) {
  const a = new Float32Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    a[i] = (x / 2 ** 32) * scale;
  }
  return a;
}

test('wasm api: ImageLab renders a finished overlay in one call, equal to the old pipeline', { skip: !hasWasm() && 'no web/gen' }, async (t) => {
  const M = await loadCore();
  const K = 1280, C = 10, h = 7, w = 7;
  const weight = randomArray(C * K, 1, 0.02), bias = randomArray(C, 2);
  const image = randomArray(3 * S * S, 3, 255), features = randomArray(K * h * w, 4, 4);
  const lab = new M.ImageLab(weight, bias, C, K);
  // bytes crossing Embind (typed-array arguments and results) for one map, old pipeline vs renderMap
  let bytes = 0;
  const count = (v) => { if (ArrayBuffer.isView(v)) bytes += v.byteLength; return v; };
  const counted = (f) => (...args) => { args.forEach(count); return count(f(...args)); };
  try {
    bytes = 0;
    const raw = counted((...a) => lab.map(...a))('gradcam', features, h, w, 3, 1);
    const up = counted(M.upsampleMap)(raw, h, w, S, S);
    const map01 = counted(M.normalizeMap)(up);
    const mapBytes = bytes;
    counted(M.colorizeMap)(map01, S, S, 'inferno');
    const workerBytes = bytes; // what web/runtime/image-worker.js sends per map today: map, upsample, normalise, colourise
    bytes = mapBytes;
    const old = counted(M.overlayMap)(image, map01, S, S, 0.6, 'inferno');
    const oldBytes = bytes;
    lab.setPhoto(image, features, h, w);
    bytes = 0;
    const r = lab.renderMap('gradcam', 3, 1, 'inferno', 0.6);
    count(r.map01); count(r.rgba);
    const newBytes = bytes;
    t.diagnostic(`Embind bytes for one map: map+upsample+normalize+colorize ${workerBytes}, map+upsample+normalize+overlay ${oldBytes}, renderMap ${newBytes} (+ ${image.byteLength + features.byteLength} once per photo in setPhoto)`);
    assert.ok(r.rgba instanceof Uint8ClampedArray && r.map01 instanceof Float32Array);
    assert.deepEqual(r.map01, map01);
    assert.deepEqual(r.rgba, old);
    let p = 0;
    for (let i = 1; i < map01.length; i++) if (map01[i] > map01[p]) p = i;
    assert.deepEqual(r.peak, { x: p % S, y: Math.floor(p / S) });
    assert.ok(newBytes < oldBytes / 2);
    // negative controls: another opacity or class gives another picture
    assert.notDeepEqual(lab.renderMap('gradcam', 3, 1, 'inferno', 0.3).rgba, old);
    assert.notDeepEqual(lab.renderMap('gradcam', 4, 1, 'inferno', 0.6).rgba, old);
    // recolour from the kept map: equals overlayMap on it, nothing recomputed
    assert.deepEqual(lab.recolor('gradcam', 'jet', 1), M.overlayMap(image, lab.renderMap('gradcam', 4).map01, S, S, 1, 'jet'));
    // a plan's map kept under its name
    const put = lab.putMap('rise', up, 'viridis', 0.5);
    assert.deepEqual(put.map01, map01);
    assert.deepEqual(lab.recolor('rise', 'viridis', 0.5), put.rgba);
    // plans on the kept photo equal the planX functions
    const a = lab.plan('occlusion', 2, { window: 112, stride: 112 });
    const b = M.planOcclusion(image, 2, 112, 112);
    assert.equal(a.count(), 5);
    assert.deepEqual(a.inputs(0, 5), b.inputs(0, 5));
    a.delete(); b.delete();
    const c = lab.plan('deletion', 2, { map: 'rise', steps: 4 });
    const d = M.planDeletion(image, map01, 2, 4);
    assert.equal(c.count(), 5);
    assert.deepEqual(c.inputs(0, 5), d.inputs(0, 5));
    c.delete(); d.delete();
    const sc = lab.plan('scorecam', 1);
    assert.equal(sc.count(), K);
    sc.delete();
    // a mask: renderMap also scores the pointing game and the energy
    const mask = new Uint8Array(S * S).map((_, i) => ((i % S) < 112 ? 1 : 0));
    lab.setMask(mask, 1, 15);
    const m = lab.renderMap('cam', 0);
    assert.deepEqual(m.pointing, { hit: M.pointingGame(m.map01, mask, 1, 15), energy: M.energyInMask(m.map01, mask, 1) });
    // randomized() keeps the photo: its maps differ from the trained head's
    const rnd = lab.randomized(5);
    assert.notDeepEqual(rnd.renderMap('cam', 0).map01, m.map01);
    rnd.delete();
  } finally {
    lab.delete();
  }
});

test('wasm api: TextTraining gives the dev metrics of `attnlab train-text` (same data, seed, recipe)', { skip: (!hasWasm() && 'no web/gen') || (!haveCli && 'no build/attnlab') }, async () => {
  const M = await loadCore();
  const { dir, trainTsv, devTsv } = trainDevSplit('attnlab-train-', 96, 136);
  const r = spawnSync(CLI, ['train-text', '--train', path.join(dir, 'train.tsv'), '--dev', path.join(dir, 'dev.tsv'), '--out', path.join(dir, 'm'),
    '--attention', 'dot', '--seed', '3', '--epochs', '2', '--embedding-dim', '16', '--hidden-dim', '8', '--min-count', '1', '--storage', 'f32'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const native = lastJsonLine(r.stdout);
  const t = new M.TextTraining(trainTsv, devTsv, { attention: 'dot', seed: 3, epochs: 2, embedding_dim: 16, hidden_dim: 8 });
  try {
    let p;
    do p = t.step(50); while (!p.done);
    const config = JSON.parse(t.configJson());
    assert.equal(config.training.best_epoch, native.best_epoch);
    assert.equal(config.metrics.dev.accuracy, native.metrics.dev.accuracy);
    assert.equal(config.metrics.dev.f1, native.metrics.dev.f1);
    assert.ok(t.weights() instanceof Uint8Array);
  } finally {
    t.delete();
  }
});

// The debate's fourth round (issue 32): the Orthogonal LSTM trained with the diversity and deception penalties gives
// the same run in the page's core as in the CLI (the wasm cell path orthogonalises after its own fused cell), and the
// explanation's conicity is the same on both sides; the CLI says what is wrong with a penalty it cannot apply.
test('wasm api: an Orthogonal LSTM with diversity and deception penalties trains as `attnlab train-text` does', { skip: (!hasWasm() && 'no web/gen') || (!haveCli && 'no build/attnlab') }, async () => {
  const M = await loadCore();
  const { dir, trainTsv, devTsv } = trainDevSplit('attnlab-train-r4-', 96, 136);
  const words = 'good bad best worst funny dull';
  fs.writeFileSync(path.join(dir, 'words.txt'), words.replaceAll(' ', '\n'));
  const train = (extra) => spawnSync(CLI, ['train-text', '--train', path.join(dir, 'train.tsv'), '--dev', path.join(dir, 'dev.tsv'),
    '--out', path.join(dir, 'm'), '--attention', extra.includes('transformer') ? 'dot' : 'tanh', '--seed', '3', '--epochs', '2', '--embedding-dim', '16', '--hidden-dim', '8',
    '--min-count', '1', '--storage', 'f32', ...extra], { encoding: 'utf8' });
  const r = train(['--encoder', 'ortho_bilstm', '--diversity', '0.5', '--deception', '1', '--impermissible', path.join(dir, 'words.txt')]);
  assert.equal(r.status, 0, r.stderr);
  const native = lastJsonLine(r.stdout);
  const saved = JSON.parse(fs.readFileSync(path.join(dir, 'm', 'config.json'), 'utf8'));
  assert.equal(saved.encoder, 'ortho_bilstm');
  assert.equal(saved.training.deception, 1);
  const t = new M.TextTraining(trainTsv, devTsv, { attention: 'tanh', seed: 3, epochs: 2, embedding_dim: 16, hidden_dim: 8,
    encoder: 'ortho_bilstm', diversity: 0.5, deception: 1, impermissible: words });
  try {
    let p;
    do p = t.step(50); while (!p.done);
    const config = JSON.parse(t.configJson());
    assert.equal(config.encoder, 'ortho_bilstm');
    assert.equal(config.training.best_epoch, native.best_epoch);
    assert.ok(Math.abs(config.metrics.dev.accuracy - native.metrics.dev.accuracy) < 1e-12);
  } finally {
    t.delete();
  }
  // explain-text's conicity: the CLI's and the wasm TextLab's on the CLI-trained model
  const text = 'a good , funny film with a dull end';
  const cliExplain = lastJsonLine(spawnSync(CLI, ['explain-text', '--model', path.join(dir, 'm'), '--text', text], { encoding: 'utf8' }).stdout);
  assert.ok(cliExplain.conicity > 0 && cliExplain.conicity <= 1, `conicity ${cliExplain.conicity}`);
  const lab = openLab(M, path.join(dir, 'm'));
  try {
    const w = lab.explain(text);
    assert.ok(Math.abs(w.conicity - cliExplain.conicity) < 1e-5, `${w.conicity} vs ${cliExplain.conicity}`);
  } finally {
    lab.delete();
  }
  // what a penalty needs, said
  const bad = [[['--deception', '1'], /--impermissible/], [['--impermissible', path.join(dir, 'words.txt')], /--deception > 0/],
    [['--encoder', 'transformer', '--diversity', '0.5'], /not a transformer/]];
  for (const [extra, message] of bad) {
    const b = train(extra);
    assert.notEqual(b.status, 0, extra.join(' '));
    assert.match(b.stderr, message);
  }
});

test('wasm api: a transformer TextTraining gives the dev metrics of `attnlab train-text --encoder transformer`', { skip: (!hasWasm() && 'no web/gen') || (!haveCli && 'no build/attnlab') }, async () => {
  const M = await loadCore();
  const { dir, trainTsv, devTsv } = trainDevSplit('attnlab-train-tf-', 160, 260);
  const shape = ['--encoder', 'transformer', '--layers', '1', '--heads', '2', '--embedding-dim', '16', '--ffn-dim', '32',
    '--max-len', '64', '--attention', 'dot', '--lr', '1e-3', '--seed', '3', '--epochs', '3', '--min-count', '1', '--storage', 'f32'];
  const cli = (extra) => {
    const r = spawnSync(CLI, ['train-text', '--train', path.join(dir, 'train.tsv'), '--dev', path.join(dir, 'dev.tsv'),
      '--out', path.join(dir, `m${extra.length}`), ...shape, ...extra], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return lastJsonLine(r.stdout);
  };
  const native = cli(['--optimizer', 'adamw', '--weight-decay', '0.01', '--warmup', '0.1', '--dropout', '0.1']);
  const t = new M.TextTraining(trainTsv, devTsv, {
    encoder: 'transformer', layers: 1, heads: 2, embedding_dim: 16, ffn_dim: 32, attention: 'dot', seed: 3, epochs: 3,
  });
  let config;
  const perEpoch = [];
  try {
    let p;
    do {
      p = t.step(50);
      if (p.epoch_done) perEpoch.push(p.dev.accuracy);
    } while (!p.done);
    config = JSON.parse(t.configJson());
  } finally {
    t.delete();
  }
  assert.equal(config.encoder, 'transformer');
  assert.deepEqual([config.layers, config.heads, config.ffn_dim, config.max_len], [1, 2, 32, 64]);
  assert.match(config.training.optimizer, /^adamw, linear warm-up 0\.1/);
  assert.equal(config.training.dropout, 0.1);
  assert.equal(config.training.best_epoch, native.best_epoch);
  assert.equal(config.metrics.dev.accuracy, native.metrics.dev.accuracy);
  assert.equal(config.metrics.dev.f1, native.metrics.dev.f1);
  // Negative control: the same shape trained with Adam (no warm-up, no dropout) ends elsewhere.
  const adam = cli(['--optimizer', 'adam', '--dropout', '0']);
  const nativeTrace = JSON.parse(fs.readFileSync(path.join(dir, 'm8', 'config.json'), 'utf8')).training.per_epoch.map((e) => e.dev.accuracy);
  const adamTrace = JSON.parse(fs.readFileSync(path.join(dir, 'm4', 'config.json'), 'utf8')).training.per_epoch.map((e) => e.dev.accuracy);
  assert.deepEqual(perEpoch, nativeTrace, 'every epoch\'s dev accuracy equals the CLI\'s');
  assert.notDeepEqual(adamTrace, nativeTrace, 'Adam instead of AdamW must change the run');
  assert.ok(adam.metrics.dev.n === native.metrics.dev.n);
});
