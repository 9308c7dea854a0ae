// pool.js — the core workers a data-set run splits its instances over (runtime/dataset-run.js). No DOM.
//
// Contract:
//   poolSize({ requested, hardwareConcurrency }) → integer ≥ 1: `requested` (URL workers=, 1 … MAX_WORKERS)
//     when set (> 0), else hardwareConcurrency (at most MAX_WORKERS; 1 when unknown).
//   new WorkerPool({ main, create })   main: the page's CoreClient (worker 0, which already holds the
//     sessions of the text labs); create(i) → a new CoreClient for pool worker i ≥ 1 (default: its own host
//     worker, named attnlab-pool-i).
//   pool.clients(size) → [main, …] of that size; extra workers are started once and kept (with their loaded
//     model and data set) for the next run; a smaller size closes the extra ones.
//   pool.close() closes the extra workers.
import { CoreClient } from './core-client.js';
import { hostChannel, hostUrl, HOST_LABS } from './lab-runtime.js';

export const MAX_WORKERS = 16;

export function poolSize({ requested = 0, hardwareConcurrency = 1 } = {}) {
  const r = Math.floor(Number(requested));
  if (Number.isFinite(r) && r > 0) return Math.min(MAX_WORKERS, r);
  const h = Math.floor(Number(hardwareConcurrency));
  return Number.isFinite(h) && h > 0 ? Math.min(8, h) : 1;
}

export class WorkerPool {
  constructor({ main, create = (i) => new CoreClient({ channel: hostChannel({ name: `attnlab-pool-${i}`, what: `pool worker ${i}`, workerUrl: hostUrl(HOST_LABS.text) }) }) }) {
    this.main = main;
    this.create = create;
    this.extra = [];
  }

  clients(size) {
    const n = Math.max(1, Math.floor(size));
    while (this.extra.length < n - 1) this.extra.push(this.create(this.extra.length + 1));
    while (this.extra.length > n - 1) this.extra.pop().terminate();
    for (const c of this.extra) c.syncModels?.(this.main.trainedModels ?? new Map());
    return [this.main, ...this.extra];
  }

  close() {
    this.clients(1);
  }
}
