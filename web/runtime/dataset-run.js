// dataset-run.js — runs one experiment over the first N instances of a data set in chunks, through a
// CoreClient, with progress and cancel between chunks. No DOM (works in Node with a fake client).
//
// Contract:
//   runDataset({ client, model, name, dataset, n, seed, params = {}, isCancelled, onChunk,
//                chunk = { initial: 10, min: 2, max: 25, targetMs: 500 }, now })
//     → Promise<{ rows, requested, limit, total, done, cancelled, summary, error, classNames, seconds }>
//   - Calls client.experimentRows for [start, start + count) until `limit` = min(n, total) instances are
//     done (total = the data set's size, known after the first chunk). The chunk size adapts so one chunk
//     takes about targetMs (clamped to [min, max]); results never depend on it (each instance has its own
//     random stream from (seed, index)).
//   - isCancelled() is checked before every chunk: when it returns true the run stops there, keeping the
//     rows done so far (cancelled: true). A chunk already in the worker finishes first.
//   - onChunk({ rows, done, limit, total, classNames, seconds }) after every chunk (rows is the growing array).
//   - At the end (finished or cancelled) the summary of the rows done is asked for with
//     client.experimentSummary; summary is null when no row was done or the summary failed.
//   - A failing chunk stops the run: error = its message; the rows before it are kept (the promise resolves).
//     A failing summary sets error too, with the rows kept.
// `now` (ms clock) is injectable for tests; default performance.now / Date.now.

const DEFAULT_CHUNK = Object.freeze({ initial: 10, min: 2, max: 25, targetMs: 500 });

export function nextChunkSize(count, elapsedMs, { min, max, targetMs }) {
  const scaled = Math.round((count * targetMs) / Math.max(elapsedMs, 1));
  // Grow at most ×2 per step, so one quick chunk does not jump straight to a very long one.
  return Math.min(max, Math.max(min, Math.min(scaled, count * 2)));
}

export async function runDataset({
  client, model, name, dataset, n, seed, params = {},
  isCancelled = () => false,
  onChunk = () => {},
  chunk = DEFAULT_CHUNK,
  now = () => (globalThis.performance?.now ? performance.now() : Date.now()),
}) {
  const opts = { ...DEFAULT_CHUNK, ...chunk };
  const t0 = now();
  const rows = [];
  let limit = Math.max(0, Math.floor(n));
  let total = null;
  let done = 0;
  let count = Math.min(opts.max, Math.max(opts.min, opts.initial));
  let classNames = null;
  let error = null;

  while (done < limit && !isCancelled()) {
    const size = Math.min(count, limit - done);
    const t = now();
    let res;
    try {
      res = await client.experimentRows({ model, name, dataset, start: done, count: size, params, seed });
    } catch (e) {
      error = e?.message ?? String(e);
      break;
    }
    if (Number.isInteger(res?.total)) {
      total = res.total;
      limit = Math.min(limit, total);
    }
    classNames = res?.class_names ?? classNames;
    const got = Array.isArray(res?.rows) ? res.rows : [];
    rows.push(...got);
    done += size;
    if (got.length === 0 && total === null) {
      error = 'The core returned no rows and no data set size.';
      break;
    }
    count = nextChunkSize(size, now() - t, opts);
    onChunk({ rows, done: Math.min(done, limit), limit, total, classNames, seconds: (now() - t0) / 1000 });
  }
  done = Math.min(done, limit);
  const cancelled = !error && done < limit;

  let summary = null;
  if (rows.length > 0) {
    try {
      summary = await client.experimentSummary({ model, name, rows, params, seed });
    } catch (e) {
      error ??= `The summary failed: ${e?.message ?? e}`;
    }
  }
  return { rows, requested: n, limit, total, done, cancelled, summary, error, classNames, seconds: (now() - t0) / 1000 };
}
