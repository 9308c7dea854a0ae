// experiments.js — the Debate lab's handlers: an experiment over an index range of a data set, and the
// summary of rows. A data set crosses into the core once per worker (the core's TextLab keeps it; text-core.js),
// then every chunk names only its index range. No DOM.
//
// Requests (protocol: worker-channel.js):
//   datasetInfo {model, dataset}                → {total, model, dataset, class_names}; loads the model and the
//                                                 data set (the pool calls it on every worker before a run)
//   experimentRows {model, name, dataset, start, count, params, seed}
//                                               → {rows, total, model, dataset, class_names} for instances
//                                                 [start, start + count); each row gets `text` (its sentence).
//                                                 An experiment whose catalogue entry needs human rationales
//                                                 (plausibility) reads the data set with its SST trees.
//   experimentSummary {model, name, rows, params, seed} → the experiment's summary object of `rows`
import { loadCore } from '../host/core.js';
import { loadDataset } from './text-models.js';
import { session, seedOf, paramsOf } from './text.js';

// Experiment name → whether its catalogue entry needs human rationales (read once: catalogue() copies the whole
// catalogue, and this is asked for every chunk).
let rationaleNeeds = null;
async function needsRationales(name) {
  if (!rationaleNeeds) {
    const Module = await loadCore();
    rationaleNeeds = new Map(Module.catalogue().experiments.map((e) => [e.name, Boolean(e.needs?.human_rationales)]));
  }
  return rationaleNeeds.get(name) ?? false;
}

async function datasetInfo(msg, ctx) {
  const [s, data] = await Promise.all([session(msg, ctx), loadDataset(msg.dataset)]);
  return { total: data.lines.length, model: msg.model, dataset: msg.dataset, class_names: s.classNames };
}

async function experimentRows(msg, ctx) {
  const { model, name, dataset, start = 0, count = 10, params, seed } = msg;
  const trees = await needsRationales(String(name));
  const [s, data] = await Promise.all([session(msg, ctx), loadDataset(dataset, { trees })]);
  const res = s.session.rows(String(name), data, start, count, paramsOf(params), seedOf(seed));
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
  return s.session.summary(String(name), Array.isArray(rows) ? rows : [], paramsOf(params), seedOf(seed));
}

export const experimentsLab = {
  name: 'debate',
  handlers: { datasetInfo, experimentRows, experimentSummary },
};
