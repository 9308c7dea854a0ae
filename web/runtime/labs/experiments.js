// experiments.js — the Debate lab's handlers: an experiment over an index range of a data set, and the
// summary of rows. A data set crosses into the core once per session (when the core can keep it: TextSession
// .setDataset), then every chunk names only its range. No DOM.
//
// Requests (protocol: worker-channel.js):
//   datasetInfo {model, dataset}                → {total, model, dataset, class_names}; loads the model and the
//                                                 data set (the pool calls it on every worker before a run)
//   experimentRows {model, name, dataset, start, count, params, seed}
//                                               → {rows, total, model, dataset, class_names} for instances
//                                                 [start, start + count); each row gets `text` (its sentence)
//   experimentSummary {model, name, rows, params, seed} → the experiment's summary object of `rows`
import { parseCore } from '../host/core.js';
import { loadDataset } from './text-models.js';
import { session, seedOf, paramsJson, requireExperiments } from './text.js';

const held = new WeakMap(); // TextSession → name of the data set it holds

// The rows JSON of [start, start + count): by range when the session can hold the data set, else with the TSV.
function rowsJson(s, data, name, start, count, params, seed) {
  if (typeof s.setDataset === 'function' && typeof s.experimentRange === 'function') {
    if (held.get(s) !== data.name) {
      const err = s.setDataset(data.tsv);
      if (err) throw new Error(`The data set ${data.name} cannot be read by the core: ${err}`);
      held.set(s, data.name);
    }
    return s.experimentRange(String(name), start, count, paramsJson(params), seedOf(seed));
  }
  return s.experimentRows(String(name), data.tsv, start, count, paramsJson(params), seedOf(seed));
}

async function datasetInfo(msg, ctx) {
  const [s, data] = await Promise.all([session(msg, ctx), loadDataset(msg.dataset)]);
  return { total: data.lines.length, model: msg.model, dataset: msg.dataset, class_names: s.classNames };
}

async function experimentRows(msg, ctx) {
  const { model, name, dataset, start = 0, count = 10, params, seed } = msg;
  const [s, data] = await Promise.all([session(msg, ctx), loadDataset(dataset)]);
  requireExperiments(s.session);
  const res = parseCore(rowsJson(s.session, data, name, start, count, params, seed));
  const rows = Array.isArray(res.rows) ? res.rows : [];
  for (const row of rows) {
    const line = Number.isInteger(row?.index) ? data.lines[row.index] : undefined;
    if (line) row.text = line.text;
  }
  return { rows, total: res.total, model, dataset, class_names: s.classNames };
}

async function experimentSummary(msg, ctx) {
  const { name, rows, params, seed } = msg;
  const s = await session(msg, ctx);
  requireExperiments(s.session);
  const json = typeof rows === 'string' ? rows : JSON.stringify(Array.isArray(rows) ? rows : []);
  return parseCore(s.session.experimentSummary(String(name), json, paramsJson(params), seedOf(seed)));
}

export const experimentsLab = {
  name: 'debate',
  handlers: { datasetInfo, experimentRows, experimentSummary },
};
