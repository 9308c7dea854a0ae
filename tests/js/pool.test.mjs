// pool.test.mjs — data-set runs over a pool (web/runtime/dataset-run.js with several clients, web/runtime/pool.js):
// the rows equal one worker's, value for value and in index order, whatever the workers' speeds; one
// progress; cancel keeps a contiguous prefix; an error keeps the rows before the failed chunk; pool sizing.
import test from 'node:test';
import assert from 'node:assert/strict';
import { runDataset } from '../../web/runtime/dataset-run.js';
import { WorkerPool, poolSize, MAX_WORKERS } from '../../web/runtime/pool.js';

// A fake core worker: the row of instance i depends only on (seed, i) (as the core's per-instance streams);
// each chunk takes `delay(start)` ms of real time, so workers finish out of order.
function fakeWorker({ total = 200, delay = () => 0, failAt = null, log = [] } = {}) {
  return {
    log,
    warmed: 0,
    async datasetInfo() { this.warmed++; return { total }; },
    async experimentRows({ start, count, seed }) {
      log.push(start);
      await new Promise((r) => setTimeout(r, delay(start)));
      if (failAt !== null && start <= failAt && failAt < start + count) throw new Error(`chunk at ${start} failed`);
      const rows = [];
      for (let i = start; i < Math.min(total, start + count); i++) rows.push({ index: i, v: Math.sin(seed * 1000 + i) });
      return { rows, total, class_names: ['negative', 'positive'] };
    },
    async experimentSummary({ rows }) { return { n: rows.length, sum: rows.reduce((a, r) => a + r.v, 0) }; },
  };
}

const base = { model: 'm', name: 'kendall', dataset: 'd', seed: 7, chunk: { initial: 5, min: 2, max: 9, targetMs: 5 } };

test('rows of a pool equal one worker\'s: same values, same order, same summary', async () => {
  const one = await runDataset({ ...base, client: fakeWorker(), n: 150 });
  for (const k of [2, 3, 4]) {
    // uneven speeds: worker j takes (j + 1) · (start % 3) ms per chunk
    const clients = Array.from({ length: k }, (_, j) => fakeWorker({ delay: (s) => (j + 1) * (s % 3) }));
    const progress = [];
    const res = await runDataset({ ...base, clients, n: 150, onChunk: (p) => progress.push(p.done) });
    assert.deepEqual(res.rows, one.rows, `${k} workers`);
    assert.deepEqual(res.rows.map((r) => r.index), Array.from({ length: 150 }, (_, i) => i));
    assert.deepEqual(res.summary, one.summary);
    assert.equal(res.done, 150);
    assert.equal(res.cancelled, false);
    assert.equal(res.workers, k);
    assert.ok(clients.every((c) => c.log.length > 0), 'every worker ran chunks');
    assert.ok(clients.slice(1).every((c) => c.warmed === 1), 'each pool worker loaded the model and data once');
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i] > progress[i - 1], 'one progress, growing');
    assert.equal(progress.at(-1), 150);
    const starts = clients.flatMap((c) => c.log).sort((a, b) => a - b);
    assert.equal(new Set(starts).size, starts.length, 'no range ran twice');
  }
});

test('cancel on a pool: no new chunk starts, running ones finish, the rows are a contiguous prefix', async () => {
  let chunks = 0;
  const clients = [0, 1, 2].map((j) => fakeWorker({ delay: () => 2 + j }));
  const res = await runDataset({ ...base, clients, n: 200, isCancelled: () => chunks >= 6, onChunk: () => chunks++ });
  assert.equal(res.cancelled, true);
  assert.ok(res.done > 0 && res.done < 200);
  assert.deepEqual(res.rows.map((r) => r.index), Array.from({ length: res.done }, (_, i) => i));
  assert.equal(res.summary.n, res.done);
  const handedOut = clients.reduce((a, c) => a + c.log.length, 0);
  assert.ok(handedOut <= 6 + clients.length, `at most one chunk per worker after the cancel (${handedOut} chunks)`);
});

test('an error on one pool worker stops the run; the rows before the failed chunk are kept, in order', async () => {
  const clients = [0, 1, 2].map(() => fakeWorker({ delay: () => 1, failAt: 40 }));
  const res = await runDataset({ ...base, clients, n: 200 });
  assert.match(res.error, /chunk at \d+ failed/);
  assert.ok(res.rows.length <= 40 + 9);
  assert.deepEqual(res.rows.map((r) => r.index), Array.from({ length: res.rows.length }, (_, i) => i));
  assert.equal(res.done, res.rows.length);
  assert.equal(res.cancelled, false);
});

test('a pool larger than the data set, and N smaller than one chunk', async () => {
  const clients = [fakeWorker({ total: 3 }), fakeWorker({ total: 3 }), fakeWorker({ total: 3 }), fakeWorker({ total: 3 })];
  const res = await runDataset({ ...base, clients, n: 1000 });
  assert.deepEqual(res.rows.map((r) => r.index), [0, 1, 2]);
  assert.equal(res.limit, 3);
  const small = await runDataset({ ...base, clients: [fakeWorker(), fakeWorker()], n: 1 });
  assert.deepEqual(small.rows.map((r) => r.index), [0]);
});

test('poolSize: the URL override, else the cores (1 when unknown), bounded', () => {
  assert.equal(poolSize({ requested: 0, hardwareConcurrency: 2 }), 2);
  assert.equal(poolSize({ requested: 4, hardwareConcurrency: 2 }), 4, 'an override may exceed the cores (benchmarks)');
  assert.equal(poolSize({ requested: 0, hardwareConcurrency: undefined }), 1);
  assert.equal(poolSize({ requested: 99, hardwareConcurrency: 2 }), MAX_WORKERS);
  assert.equal(poolSize({ requested: 0, hardwareConcurrency: 64 }), 8);
});

test('WorkerPool keeps its extra workers between runs and closes the ones a smaller size drops', () => {
  const made = [];
  const main = { trainedModels: new Map([['trained-tanh-seed1', { name: 'trained-tanh-seed1' }]]) };
  const pool = new WorkerPool({
    main,
    create: (i) => {
      const c = { i, closed: false, synced: null, terminate() { this.closed = true; }, syncModels(m) { this.synced = [...m.keys()]; } };
      made.push(c);
      return c;
    },
  });
  assert.deepEqual(pool.clients(1), [main]);
  const three = pool.clients(3);
  assert.equal(three[0], main);
  assert.deepEqual(three.slice(1).map((c) => c.i), [1, 2]);
  assert.deepEqual(three[1].synced, ['trained-tanh-seed1'], 'models trained in the page are registered with pool workers');
  assert.deepEqual(pool.clients(3), three, 'kept for the next run');
  pool.clients(2);
  assert.equal(made[1].closed, true);
  assert.equal(made[0].closed, false);
  pool.close();
  assert.equal(made[0].closed, true);
});
