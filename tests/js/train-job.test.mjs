// train-job.test.mjs — web/runtime/train-job.js: with a fake TextTraining (steps, progress, cancel before and
// after the first finished epoch, thrown errors, the training always deleted, a training from createTrainer) and
// with the real wasm core on a few hundred sentences (the result loads into a TextLab and does not depend on
// the step size), for a classifier and for a model-consistent adversary of sst2-tanh.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTrainingJob } from '../../web/runtime/train-job.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// A fake core: `epochs` epochs of `batches` batches; dev accuracy 0.5 + 0.1·epoch.
function fakeModule({ epochs = 2, batches = 10, startError = '', stepErrorAt = -1 } = {}) {
  const log = { steps: [], configJson: [], deleted: 0, started: null };
  class TextTraining {
    constructor(train, dev, options) {
      if (startError) throw new Error(startError); // as the facade does: the core's message, nothing left to delete
      log.started = { train, dev, options };
      this.epoch = 1;
      this.batch = 0;
      this.best = 0;
      this.finished = false;
    }
    step(k) {
      log.steps.push(k);
      if (log.steps.length - 1 === stepErrorAt) throw new Error('out of memory');
      if (this.finished) return { epoch: this.epoch, epochs, batch: 0, batches: 0, done: true, best_epoch: this.best, epoch_done: false, train_loss: 0 };
      if (this.batch === batches) {
        this.epoch++;
        this.batch = 0;
      }
      this.batch = Math.min(batches, this.batch + k);
      const p = { epoch: this.epoch, epochs, batch: this.batch, batches, train_loss: 1 / this.epoch, epoch_done: false, best_epoch: this.best, done: false };
      if (this.batch === batches) {
        this.best = this.epoch;
        Object.assign(p, { epoch_done: true, best_epoch: this.best, dev: { accuracy: 0.5 + 0.1 * this.epoch, f1: 0.5, n: 10 } });
        if (this.epoch === epochs) this.finished = p.done = true;
      }
      return p;
    }
    configJson(test) {
      log.configJson.push(test);
      return JSON.stringify({ attention: log.started.options.attention, metrics: { dev: { accuracy: 0.5 + 0.1 * this.best }, test: { accuracy: 0.6 } } });
    }
    weights() {
      return new Uint8Array([1, 2, 3]);
    }
    delete() {
      log.deleted++;
    }
  }
  return { Module: { TextTraining }, log };
}

// Each step "takes" 10 ms per batch.
function fakeClock(log) {
  let t = 0;
  return () => (t += 10 * (log.steps.at(-1) ?? 1) / 2);
}

const noPause = async () => {};

test('runs every epoch: progress after each step, test metrics at the end, trainer deleted', async () => {
  const { Module, log } = fakeModule({ epochs: 2, batches: 10 });
  const seen = [];
  let calls = 0;
  const res = await runTrainingJob({
    Module, trainTsv: 'TRAIN', devTsv: 'DEV', testTsv: 'TEST', options: { attention: 'uniform', seed: 50, epochs: 2 },
    run: async (fn) => {
      calls++;
      return fn();
    },
    pause: noPause, onProgress: (p) => seen.push(p), now: fakeClock(log), targetMs: 40,
  });
  assert.deepEqual(log.started, { train: 'TRAIN', dev: 'DEV', options: { attention: 'uniform', seed: 50, epochs: 2 } });
  assert.equal(res.status, 'done');
  assert.equal(res.epochsDone, 2);
  assert.deepEqual(Array.from(res.weights), [1, 2, 3]);
  assert.equal(JSON.parse(res.configText).metrics.test.accuracy, 0.6);
  assert.deepEqual(log.configJson, ['TEST']);
  assert.equal(log.deleted, 1);
  assert.equal(log.steps[0], 2, 'the first step is small');
  assert.ok(log.steps.slice(1).every((k) => k >= 1 && k <= 64));
  const train = seen.filter((p) => p.stage === 'train');
  assert.equal(train.length, log.steps.length, 'one progress per step');
  assert.ok(train.every((p, i) => i === 0 || p.seconds >= train[i - 1].seconds));
  assert.deepEqual(train.filter((p) => p.epoch_done).map((p) => p.dev.accuracy), [0.6, 0.7]);
  assert.equal(seen.at(-1).stage, 'test');
  assert.equal(calls, 1 + log.steps.length + 2, 'every core call goes through run(): the constructor, steps, configJson, weights');
});

test('cancel before the first epoch ends: nothing kept, configJson never called', async () => {
  const { Module, log } = fakeModule({ epochs: 2, batches: 1000 });
  let n = 0;
  const res = await runTrainingJob({
    Module, trainTsv: 'T', devTsv: 'D', testTsv: 'X', options: {}, pause: noPause, now: fakeClock(log),
    onProgress: () => n++, isCancelled: () => n >= 3,
  });
  assert.equal(res.status, 'cancelled');
  assert.equal(res.configText, null);
  assert.equal(res.weights, null);
  assert.equal(res.epochsDone, 0);
  assert.equal(res.progress.epoch, 1);
  assert.equal(log.steps.length, 3);
  assert.deepEqual(log.configJson, []);
  assert.equal(log.deleted, 1);
});

test('cancel after an epoch: the best epoch so far is kept and tested', async () => {
  const { Module, log } = fakeModule({ epochs: 5, batches: 4 });
  let epochs = 0;
  const res = await runTrainingJob({
    Module, trainTsv: 'T', devTsv: 'D', testTsv: 'X', options: {}, pause: noPause,
    onProgress: (p) => {
      if (p.epoch_done) epochs++;
    },
    isCancelled: () => epochs >= 1,
  });
  assert.equal(res.status, 'cancelled');
  assert.equal(res.epochsDone, 1);
  assert.equal(res.progress.best_epoch, 1);
  assert.ok(res.configText);
  assert.deepEqual(log.configJson, ['X']);
  assert.equal(log.deleted, 1);
});

test('errors: start message, step error, no trainer in the build — a started training is still deleted', async () => {
  const a = fakeModule({ startError: 'labels must be 0 or 1' });
  await assert.rejects(runTrainingJob({ Module: a.Module, trainTsv: '', devTsv: '', options: {}, pause: noPause }),
    /Training could not start: labels must be 0 or 1/);
  assert.equal(a.log.deleted, 0, 'the constructor threw: no object to delete');
  const b = fakeModule({ stepErrorAt: 1 });
  await assert.rejects(runTrainingJob({ Module: b.Module, trainTsv: '', devTsv: '', options: {}, pause: noPause }), /Training failed: out of memory/);
  assert.equal(b.log.deleted, 1);
  await assert.rejects(runTrainingJob({ Module: {}, trainTsv: '', devTsv: '', options: {} }), /cannot train; rebuild it/);
});

// The real core on a small slice of SST-2: the result loads, and the step size does not change it.
const WASM = path.join(REPO, 'web/gen/attnlab_core.wasm');
const TRAIN = path.join(REPO, 'models/text/data/sst2-train.tsv');
const DEV = path.join(REPO, 'models/text/data/sst2-dev.tsv');
const skip = !fs.existsSync(WASM) ? 'web/gen is not built (bash scripts/build-wasm.sh)' : !fs.existsSync(TRAIN) ? 'models/text/data/sst2-train.tsv is missing' : false;

test('with the wasm core: 2 epochs on 240 sentences; loads into a TextLab; same model for any step size', { skip, timeout: 120_000 }, async () => {
  const { default: createModule } = await import(path.join(REPO, 'web/gen/attnlab_core.mjs'));
  const Module = await createModule({ wasmBinary: fs.readFileSync(WASM) });
  const head = (file, n) => fs.readFileSync(file, 'utf8').split('\n').slice(0, n).join('\n') + '\n';
  const trainTsv = head(TRAIN, 240);
  const devTsv = head(DEV, 60);
  const options = { attention: 'tanh', seed: 7, epochs: 2 };
  const res = await runTrainingJob({ Module, trainTsv, devTsv, testTsv: devTsv, options, targetMs: 5 });
  assert.equal(res.status, 'done');
  assert.equal(res.epochsDone, 2);
  const config = JSON.parse(res.configText);
  assert.equal(config.attention, 'tanh');
  assert.equal(config.metrics.test.n, 60);
  assert.equal(config.metrics.test.accuracy, config.metrics.dev.accuracy, 'test = dev here (same sentences)');
  const session = new Module.TextLab(res.configText, res.weights);
  const p = session.predict('a gorgeous , witty , seductive movie .');
  assert.ok(p > 0 && p < 1);
  session.delete();

  // The same run in one big step per epoch: identical weights and metrics.
  const t = new Module.TextTraining(trainTsv, devTsv, options);
  while (!t.step(1000).done);
  assert.equal(t.configJson(devTsv), res.configText);
  assert.deepEqual(t.weights(), res.weights);
  t.delete();
});

test('createTrainer: the loop drives the trainer it returns (the adversary path) and deletes it', async () => {
  const { Module, log } = fakeModule({ epochs: 1, batches: 3 });
  let made = 0;
  const res = await runTrainingJob({
    Module: {}, trainTsv: 'T', devTsv: 'D', testTsv: 'X', options: { lambda: 1, base: 'sst2-tanh' }, pause: noPause,
    createTrainer: (M, train, dev, o) => {
      made++;
      assert.deepEqual(M, {}, 'gets the Module passed in');
      return new Module.TextTraining(train, dev, o);
    },
  });
  assert.equal(made, 1);
  assert.equal(res.status, 'done');
  assert.deepEqual(log.started.options, { lambda: 1, base: 'sst2-tanh' });
  assert.equal(log.deleted, 1);
});

const BASE = path.join(REPO, 'models/text/sst2-tanh');
const skipAdv = skip || (!fs.existsSync(path.join(BASE, 'model.safetensors')) ? 'models/text/sst2-tanh is missing' : false);

test('with the wasm core: an adversary of sst2-tanh, 2 epochs on 240 sentences; TVD / JSD per epoch; loads; same for any step size', { skip: skipAdv, timeout: 180_000 }, async () => {
  const { default: createModule } = await import(path.join(REPO, 'web/gen/attnlab_core.mjs'));
  const Module = await createModule({ wasmBinary: fs.readFileSync(WASM) });
  const head = (file, n) => fs.readFileSync(file, 'utf8').split('\n').slice(0, n).join('\n') + '\n';
  const trainTsv = head(TRAIN, 240);
  const devTsv = head(DEV, 60);
  const base = new Module.TextLab(fs.readFileSync(path.join(BASE, 'config.json'), 'utf8'), new Uint8Array(fs.readFileSync(path.join(BASE, 'model.safetensors'))));
  const options = { lambda: 1, seed: 7, epochs: 2, base: 'sst2-tanh' };
  const seen = [];
  const res = await runTrainingJob({
    Module, trainTsv, devTsv, testTsv: devTsv, options, targetMs: 5,
    createTrainer: (M, train, dev, o) => M.AdversaryTraining(base, train, dev, o), onProgress: (p) => seen.push(p),
  });
  assert.equal(res.status, 'done');
  assert.equal(res.epochsDone, 2);
  const ends = seen.filter((p) => p.stage === 'train' && p.epoch_done);
  assert.equal(ends.length, 2);
  for (const p of ends) {
    assert.equal(p.dev.n, 60);
    assert.ok(p.dev.tvd_mean > 0 && p.dev.tvd_mean < 1, `TVD ${p.dev.tvd_mean}`);
    assert.ok(p.dev.jsd_mean > 0 && p.dev.jsd_mean <= Math.log(2), `JSD ${p.dev.jsd_mean}`);
    assert.ok(p.dev.f1 >= 0 && p.dev.f1 <= 1);
    assert.equal(p.lambda, 1);
  }
  const config = JSON.parse(res.configText);
  assert.equal(config.attention, 'tanh', "the base's architecture");
  assert.equal(config.vocab.length, 15695, "the base's vocabulary");
  assert.equal(config.training.lambda, 1);
  assert.equal(config.training.base, 'sst2-tanh');
  assert.equal(config.training.best_epoch, 2, 'the last epoch is kept');
  assert.deepEqual(config.metrics.test, config.metrics.dev, 'test = dev here (same sentences, last epoch)');
  assert.equal(config.metrics.dev.tvd_mean, ends[1].dev.tvd_mean);
  // The adversary loads like any model.
  const adv = new Module.TextLab(res.configText, res.weights);
  const p = adv.predict('a gorgeous , witty , seductive movie .');
  assert.ok(p > 0 && p < 1);
  adv.delete();

  // The training copied the base: it trains the same after the base model is gone, in one big step per epoch.
  const t = Module.AdversaryTraining(base, trainTsv, devTsv, options);
  base.delete();
  while (!t.step(1000).done);
  assert.equal(t.configJson(devTsv), res.configText);
  assert.deepEqual(t.weights(), res.weights);
  t.delete();

  // Bad input: a clear message, no abort.
  const uni = path.join(REPO, 'models/text/sst2-uniform');
  const u = new Module.TextLab(fs.readFileSync(path.join(uni, 'config.json'), 'utf8'), new Uint8Array(fs.readFileSync(path.join(uni, 'model.safetensors'))));
  assert.throws(() => Module.AdversaryTraining(u, trainTsv, devTsv, {}), /learned attention/);
  u.delete();
  assert.throws(() => Module.AdversaryTraining(u, trainTsv, devTsv, {}), /must be a loaded TextLab/, 'a deleted base');
  assert.throws(() => Module.AdversaryTraining(null, trainTsv, devTsv, {}), /must be a loaded TextLab/);
});
