// dataset-run.js — runs one experiment over the first N instances of a data set in chunks, over one client or
// a pool of them (runtime/pool.js), with one progress and one cancel. No DOM (works in Node with fake clients).
//
// Contract:
//   runDataset({ client, clients = [client], model, name, dataset, n, seed, params = {}, isCancelled, onChunk,
//                chunk = { initial: 10, min: 2, max: 25, targetMs: 500 }, now })
//     → Promise<{ rows, requested, limit, total, done, cancelled, summary, error, classNames, seconds, workers }>
//   - The first chunk runs on clients[0] (it tells the data set's size: total; limit = min(n, total)); the
//     other clients are asked to load the model and data set meanwhile (client.datasetInfo, when they have it).
//     Then every client takes the next chunk [start, start + count) of a shared cursor as soon as it is free,
//     with its own chunk size adapted so one chunk takes about targetMs (clamped to [min, max]). Results
//     never depend on the split: each instance has its own random stream from (seed, index), and rows are put
//     back in index order — the rows of a pool equal one worker's, value for value and in the same order.
//   - isCancelled() is checked before every chunk is handed out: when it returns true no new chunk starts,
//     the chunks already in the workers finish, and the rows done so far are kept (cancelled: true).
//   - onChunk({ rows, done, limit, total, classNames, seconds }) after every chunk (rows: every row done so
//     far, in index order; done: their count).
//   - A failing chunk stops the run: error = its message; the rows before the failed chunk are kept (the
//     promise resolves); chunks still running finish first.
//   - At the end (finished or cancelled) the summary of the rows (without their `text`) is asked for with
//     clients[0].experimentSummary;
//     summary is null when no row was done or the summary failed (a failing summary sets error, rows kept).
// `now` (ms clock) is injectable for tests; default performance.now / Date.now.

const DEFAULT_CHUNK = Object.freeze({ initial: 10, min: 2, max: 25, targetMs: 500 });

export function nextChunkSize(count, elapsedMs, { min, max, targetMs }) {
  const scaled = Math.round((count * targetMs) / Math.max(elapsedMs, 1));
  // Grow at most ×2 per step, so one quick chunk does not jump straight to a very long one.
  return Math.min(max, Math.max(min, Math.min(scaled, count * 2)));
}

export async function runDataset({
  client, clients = [client], model, name, dataset, n, seed, params = {},
  isCancelled = () => false,
  onChunk = () => {},
  chunk = DEFAULT_CHUNK,
  now = () => (globalThis.performance?.now ? performance.now() : Date.now()),
}) {
  const opts = { ...DEFAULT_CHUNK, ...chunk };
  const t0 = now();
  const first = Math.min(opts.max, Math.max(opts.min, opts.initial));
  const done = new Map(); // start → rows of that chunk
  let limit = Math.max(0, Math.floor(n));
  let total = null;
  let cursor = 0;
  let doneCount = 0;
  let classNames = null;
  let error = null;
  let failedAt = Infinity;

  const ordered = () => [...done.keys()].sort((a, b) => a - b).filter((s) => s < failedAt).flatMap((s) => done.get(s));

  async function runChunk(c, start, size) {
    const t = now();
    const res = await c.experimentRows({ model, name, dataset, start, count: size, params, seed });
    if (Number.isInteger(res?.total)) {
      total = res.total;
      limit = Math.min(limit, total);
    }
    classNames = res?.class_names ?? classNames;
    const got = Array.isArray(res?.rows) ? res.rows : [];
    if (got.length === 0 && total === null) throw new Error('The core returned no rows and no data set size.');
    done.set(start, got);
    doneCount += Math.min(size, Math.max(0, limit - start));
    onChunk({ rows: ordered(), done: Math.min(doneCount, limit), limit, total, classNames, seconds: (now() - t0) / 1000 });
    return nextChunkSize(size, now() - t, opts);
  }

  // One worker's loop: take the next range until the limit, a cancel or an error.
  async function worker(c, count) {
    while (error === null && cursor < limit && !isCancelled()) {
      const start = cursor;
      const size = Math.min(count, limit - start);
      cursor += size;
      try {
        count = await runChunk(c, start, size);
      } catch (e) {
        if (start < failedAt) {
          failedAt = start;
          error = e?.message ?? String(e);
        }
      }
    }
  }

  const warm = clients.slice(1).map((c) => (typeof c.datasetInfo === 'function'
    ? c.datasetInfo({ model, dataset }).catch(() => {}) : Promise.resolve()));
  if (limit > 0 && !isCancelled()) {
    const size = Math.min(first, limit);
    cursor = size;
    let count = first;
    try {
      count = await runChunk(clients[0], 0, size);
    } catch (e) {
      failedAt = 0;
      error = e?.message ?? String(e);
    }
    // the warm-up of a pool worker must not hold the run: it joins when it is ready
    await Promise.all([worker(clients[0], count), ...clients.slice(1).map((c, i) => warm[i].then(() => worker(c, first)))]);
  }
  const rows = ordered();
  const doneN = error !== null ? rows.length : Math.min(doneCount, limit);
  const cancelled = error === null && doneN < limit;

  let summary = null;
  if (rows.length > 0) {
    try {
      // the rows go back without their sentences (the summary does not read them)
      const bare = rows.map((r) => { if (!r || typeof r !== 'object' || !('text' in r)) return r; const { text, ...rest } = r; return rest; });
      summary = await clients[0].experimentSummary({ model, name, rows: bare, params, seed });
    } catch (e) {
      error ??= `The summary failed: ${e?.message ?? e}`;
    }
  }
  return {
    rows, requested: n, limit, total, done: doneN, cancelled, summary, error, classNames,
    seconds: (now() - t0) / 1000, workers: clients.length,
  };
}
