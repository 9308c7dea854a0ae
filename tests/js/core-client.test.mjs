// core-client.test.mjs — web/runtime/core-client.js with a fake Worker: per-channel latest-wins (explain and
// live experiments never supersede each other), plain requests never superseded, training with progress and
// cancel, worker failure rejects all.
import test from 'node:test';
import assert from 'node:assert/strict';
import { CoreClient } from '../../web/runtime/core-client.js';

// A fake module worker: records posted messages; the test answers them by hand.
class FakeWorker {
  static last = null;
  constructor() {
    this.posted = [];
    FakeWorker.last = this;
  }
  postMessage(msg) {
    this.posted.push(msg);
  }
  answer(msg, result = { ok: msg.id }) {
    this.onmessage({ data: { type: 'result', id: msg.id, result } });
  }
  terminate() {
    this.terminated = true;
  }
}
globalThis.Worker = FakeWorker;

const tick = () => new Promise((r) => setImmediate(r));

test('explain: a newer call replaces the waiting one; the running one resolves null when superseded', async () => {
  const client = new CoreClient({ workerUrl: 'fake' });
  const a = client.explain({ model: 'm', text: 'a' });
  const b = client.explain({ model: 'm', text: 'b' });
  const c = client.explain({ model: 'm', text: 'c' });
  const w = FakeWorker.last;
  const requests = () => w.posted.filter((m) => m.type !== 'cancel');
  assert.deepEqual(requests().map((m) => m.text), ['a'], 'one in the worker, one waiting');
  // the superseded running request is told to stop (a job stops at its next step; a plain one runs on), once
  assert.deepEqual(w.posted.filter((m) => m.type === 'cancel'), [{ type: 'cancel', target: requests()[0].id }]);
  assert.equal(await b, null, 'b was replaced while waiting');
  w.answer(requests()[0]);
  assert.equal(await a, null, 'a finished after c was asked: stale');
  assert.deepEqual(requests().map((m) => m.text), ['a', 'c']);
  w.answer(requests()[1], { text: 'c' });
  assert.deepEqual(await c, { text: 'c' });
});

test('live experiments have their own channel: they never supersede an explain, nor the other way round', async () => {
  const client = new CoreClient({ workerUrl: 'fake' });
  const e = client.explain({ model: 'm', text: 'x' });
  const x1 = client.experiment({ model: 'm', name: 'adversarial', text: 'x', seed: 3 });
  const w = FakeWorker.last;
  assert.deepEqual(w.posted.map((m) => m.type), ['explain', 'experiment']);
  assert.equal(w.posted[1].seed, 3);
  assert.deepEqual(w.posted[1].params, {});
  const x2 = client.experiment({ model: 'm', name: 'eraser', text: 'x' });
  const requests = () => w.posted.filter((m) => m.type !== 'cancel');
  assert.deepEqual(w.posted.filter((m) => m.type === 'cancel').map((m) => m.target), [w.posted[1].id], 'only the experiment lane');
  w.answer(requests()[0], { explained: true });
  assert.deepEqual(await e, { explained: true });
  w.answer(requests()[1]);
  assert.equal(await x1, null, 'superseded by the waiting eraser request');
  assert.equal(requests()[2].name, 'eraser');
  w.answer(requests()[2], { row: 1 });
  assert.deepEqual(await x2, { row: 1 });
});

test('data-set requests are plain: every one is sent and answered', async () => {
  const client = new CoreClient({ workerUrl: 'fake' });
  const r1 = client.experimentRows({ model: 'm', name: 'kendall', dataset: 'd', start: 0, count: 10, seed: 1 });
  const r2 = client.experimentRows({ model: 'm', name: 'kendall', dataset: 'd', start: 10, count: 10, seed: 1 });
  const s = client.experimentSummary({ model: 'm', name: 'kendall', rows: [1], seed: 1 });
  const w = FakeWorker.last;
  assert.deepEqual(w.posted.map((m) => [m.type, m.start]), [['experimentRows', 0], ['experimentRows', 10], ['experimentSummary', undefined]]);
  for (const m of [...w.posted].reverse()) w.answer(m);
  assert.deepEqual(await r1, { ok: w.posted[0].id });
  assert.deepEqual(await r2, { ok: w.posted[1].id });
  assert.deepEqual(await s, { ok: w.posted[2].id });
  const names = client.experimentNames();
  assert.equal(w.posted.at(-1).type, 'experiments');
  w.onmessage({ data: { type: 'error', id: w.posted.at(-1).id, message: 'nope' } });
  await assert.rejects(names, /nope/);
});

test('a dead worker rejects every open request; the next call starts a fresh worker', async () => {
  const client = new CoreClient({ workerUrl: 'fake' });
  const e = client.explain({ model: 'm', text: 'x' });
  const x = client.experiment({ model: 'm', name: 'adversarial', text: 'x' });
  const r = client.experimentRows({ model: 'm', name: 'kendall', dataset: 'd', start: 0, count: 1 });
  const w = FakeWorker.last;
  w.onerror({ message: 'boom' });
  for (const p of [e, x, r]) await assert.rejects(p, /background worker stopped: boom/);
  assert.equal(w.terminated, true);
  client.manifest();
  await tick();
  assert.notEqual(FakeWorker.last, w);
});

test('train: progress goes to its own callback, the result resolves it; cancelTrain is the protocol\'s cancel of that request', async () => {
  const client = new CoreClient({ workerUrl: 'fake' });
  client.cancelTrain(); // no worker yet: nothing to cancel, no worker started
  assert.equal(client.worker, null);
  const seen = [];
  const t = client.train({ attention: 'uniform', seed: 50, epochs: 1 }, (p) => seen.push(p));
  const e = client.explain({ model: 'm', text: 'x' });
  const w = FakeWorker.last;
  assert.deepEqual(w.posted.map((m) => m.type), ['train', 'explain'], 'an explain is sent while it trains');
  const { id } = w.posted[0];
  assert.deepEqual([w.posted[0].attention, w.posted[0].seed, w.posted[0].epochs], ['uniform', 50, 1]);
  w.onmessage({ data: { type: 'progress', id, progress: { epoch: 1, batch: 3 } } });
  w.answer(w.posted[1], { explained: true });
  assert.deepEqual(await e, { explained: true });
  w.onmessage({ data: { type: 'progress', id, progress: { epoch: 1, batch: 6 } } });
  client.cancelTrain();
  assert.deepEqual(w.posted.at(-1), { type: 'cancel', target: id });
  w.answer(w.posted[0], { cancelled: true, model: null });
  assert.deepEqual(await t, { cancelled: true, model: null });
  assert.deepEqual(seen.map((p) => p.batch), [3, 6]);
  w.onmessage({ data: { type: 'progress', id, progress: { batch: 9 } } }); // after the answer: ignored
  assert.equal(seen.length, 2);
});

test('a dead worker rejects a running training', async () => {
  const client = new CoreClient({ workerUrl: 'fake' });
  const t = client.train({ attention: 'tanh', seed: 1, epochs: 8 });
  FakeWorker.last.onerror({ message: 'out of memory' });
  await assert.rejects(t, /background worker stopped: out of memory/);
});
