// dataset-run.test.mjs — web/runtime/dataset-run.js with a fake client: chunking, progress, the N limit,
// cancel between chunks (partial result), chunk errors and summary; and web/runtime/dataset-lines.js.
import test from 'node:test';
import assert from 'node:assert/strict';
import { runDataset, nextChunkSize } from '../../web/runtime/dataset-run.js';
import { datasetLines } from '../../web/runtime/dataset-lines.js';

function fakeClient({ total = 50, failAt = -1, summaryFails = false } = {}) {
  const calls = [];
  return {
    calls,
    async experimentRows({ start, count, seed }) {
      calls.push({ start, count });
      if (calls.length - 1 === failAt) throw new Error('boom');
      const rows = [];
      for (let i = start; i < Math.min(total, start + count); i++) rows.push({ index: i, seed, v: i * 2 });
      return { rows, total, class_names: ['negative', 'positive'] };
    },
    async experimentSummary({ rows }) {
      calls.push({ summary: rows.length });
      if (summaryFails) throw new Error('no summary');
      return { n: rows.length };
    },
  };
}

// A clock where every chunk "takes" 100 ms.
function clock() {
  let t = 0;
  return () => (t += 50);
}

test('runs the first N instances in chunks, in order, then summarises', async () => {
  const client = fakeClient({ total: 50 });
  const progress = [];
  const res = await runDataset({ client, model: 'm', name: 'e', dataset: 'd', n: 23, seed: 7, now: clock(),
    chunk: { initial: 5, min: 2, max: 25, targetMs: 100 }, onChunk: (p) => progress.push(p.done) });
  assert.equal(res.rows.length, 23);
  assert.deepEqual(res.rows.map((r) => r.index), Array.from({ length: 23 }, (_, i) => i));
  assert.ok(res.rows.every((r) => r.seed === 7));
  assert.equal(res.done, 23);
  assert.equal(res.limit, 23);
  assert.equal(res.total, 50);
  assert.equal(res.cancelled, false);
  assert.equal(res.error, null);
  assert.deepEqual(res.summary, { n: 23 });
  assert.deepEqual(res.classNames, ['negative', 'positive']);
  assert.equal(progress.at(-1), 23);
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i] > progress[i - 1]);
  const chunks = client.calls.filter((c) => 'start' in c);
  for (const c of chunks) assert.ok(c.count >= 2 && c.count <= 25, `chunk of ${c.count}`);
});

test('N larger than the data set stops at its size', async () => {
  const res = await runDataset({ client: fakeClient({ total: 12 }), model: 'm', name: 'e', dataset: 'd', n: 1000, seed: 1, now: clock() });
  assert.equal(res.rows.length, 12);
  assert.equal(res.limit, 12);
  assert.equal(res.cancelled, false);
});

test('cancel between chunks keeps the partial rows and summarises them', async () => {
  const client = fakeClient({ total: 100 });
  let chunks = 0;
  const res = await runDataset({ client, model: 'm', name: 'e', dataset: 'd', n: 100, seed: 1, now: clock(),
    chunk: { initial: 10, min: 10, max: 10 }, isCancelled: () => chunks >= 2, onChunk: () => chunks++ });
  assert.equal(res.cancelled, true);
  assert.equal(res.rows.length, 20);
  assert.equal(res.done, 20);
  assert.deepEqual(res.summary, { n: 20 });
});

test('cancel before the first chunk: no rows, no summary', async () => {
  const client = fakeClient();
  const res = await runDataset({ client, model: 'm', name: 'e', dataset: 'd', n: 10, seed: 1, isCancelled: () => true });
  assert.equal(res.rows.length, 0);
  assert.equal(res.summary, null);
  assert.equal(res.cancelled, true);
  assert.equal(client.calls.length, 0);
});

test('a failing chunk stops the run with its message and keeps the rows before it', async () => {
  const res = await runDataset({ client: fakeClient({ failAt: 1 }), model: 'm', name: 'e', dataset: 'd', n: 40, seed: 1,
    chunk: { initial: 10, min: 10, max: 10 }, now: clock() });
  assert.equal(res.error, 'boom');
  assert.equal(res.rows.length, 10);
  assert.equal(res.cancelled, false);
  assert.deepEqual(res.summary, { n: 10 });
  const s = await runDataset({ client: fakeClient({ summaryFails: true }), model: 'm', name: 'e', dataset: 'd', n: 5, seed: 1 });
  assert.match(s.error, /summary failed: no summary/);
  assert.equal(s.rows.length, 5);
});

test('chunk size adapts toward the target time, within [min, max], growing at most ×2', () => {
  const o = { min: 2, max: 25, targetMs: 500 };
  assert.equal(nextChunkSize(10, 1000, o), 5);
  assert.equal(nextChunkSize(10, 100, o), 20);
  assert.equal(nextChunkSize(20, 10, o), 25);
  assert.equal(nextChunkSize(2, 60_000, o), 2);
});

test('datasetLines numbers instances like the core: empty lines skipped, CRLF, tabs in the text', () => {
  const tsv = '1\ta fine film\r\n\n0\tbad\tvery bad\n\r\n1\t\n';
  assert.deepEqual(datasetLines(tsv), [
    { label: 1, text: 'a fine film' },
    { label: 0, text: 'bad\tvery bad' },
    { label: 1, text: '' },
  ]);
  assert.throws(() => datasetLines('1 no tab\n'), /line 1: no tab/);
  assert.throws(() => datasetLines('x\ttext\n'), /line 1: label 'x'/);
  assert.deepEqual(datasetLines(''), []);
});

test('datasetLines skips a UTF-8 byte-order mark at the start (a spreadsheet export), as the core does', () => {
  // The mark decoded into the string (U+FEFF: a TextDecoder with ignoreBOM, a File's text() keeps it in some
  // browsers) is not part of line 1's label.
  assert.deepEqual(datasetLines('\uFEFF0\tbad\r\n1\tgood\r\n'), [
    { label: 0, text: 'bad' },
    { label: 1, text: 'good' },
  ]);
  assert.deepEqual(datasetLines('\uFEFF'), []);
  // Only at the very start: a mark inside the file is still a bad label, and the message shows it.
  assert.throws(() => datasetLines('0\tbad\n\uFEFF1\tgood\n'), /line 2: label '<U\+FEFF>1' is not a non-negative integer/);
  // Invisible characters in a bad label are written out, as the CLI writes them (escape_invisible).
  assert.throws(() => datasetLines('\u200B1\tx\n'), /line 1: label '<U\+200B>1'/);
  assert.throws(() => datasetLines('1\u00A0\tx\n'), /line 1: label '1<U\+00A0>'/);
  assert.throws(() => datasetLines('1\r2\tx\n'), /line 1: label '1\\r2'/);
});
