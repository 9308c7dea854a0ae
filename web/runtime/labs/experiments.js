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
// A document (HAN) model (manifest `documents`) runs the experiments that run on a HAN (catalogue.han_experiments;
// params.level 'sentence' | 'word'; the same rows as a flat model's) with the same requests: its HanLab (loadDocumentSession, the Documents lab's loader) keeps
// the data set and runs index ranges, as TextLab does for the flat models.
import { loadCore } from '../host/core.js';
import { loadDataset, documentModels, loadDocumentSession } from './text-models.js';
import { session, seedOf, paramsOf } from './text.js';

const isDocumentModel = async (name) => (await documentModels()).some((m) => m?.name === name);

// The HanLab of a document model with the data set loaded: { lab, classNames, data }.
async function documentSession(msg, ctx) {
  const [s, data] = await Promise.all([loadDocumentSession(msg.model, (p) => ctx.event(p)), loadDataset(msg.dataset)]);
  if (!s.lab.hasDataset(data.name)) s.lab.loadDataset(data.name, data.tsv);
  return { lab: s.lab, classNames: s.classNames, data };
}

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
  if (await isDocumentModel(msg.model)) {
    const d = await documentSession(msg, ctx);
    return { total: d.data.lines.length, model: msg.model, dataset: msg.dataset, class_names: d.classNames };
  }
  const [s, data] = await Promise.all([session(msg, ctx), loadDataset(msg.dataset)]);
  return { total: data.lines.length, model: msg.model, dataset: msg.dataset, class_names: s.classNames };
}

async function experimentRows(msg, ctx) {
  const { model, name, dataset, start = 0, count = 10, params, seed } = msg;
  if (await isDocumentModel(model)) {
    const d = await documentSession(msg, ctx);
    const res = d.lab.experimentRange(String(name), d.data.name, start, count, paramsOf(params), seedOf(seed));
    const rows = Array.isArray(res.rows) ? res.rows : [];
    for (const row of rows) {
      const line = Number.isInteger(row?.index) ? d.data.lines[row.index] : undefined;
      if (line) row.text = line.text;
    }
    return { rows, total: res.total, model, dataset, class_names: d.classNames };
  }
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
  if (await isDocumentModel(msg.model)) {
    const s = await loadDocumentSession(msg.model, (p) => ctx.event(p));
    return s.lab.summarizeRows(String(name), Array.isArray(rows) ? rows : [], paramsOf(params), seedOf(seed));
  }
  const s = await session(msg, ctx);
  return s.session.summary(String(name), Array.isArray(rows) ? rows : [], paramsOf(params), seedOf(seed));
}

export const experimentsLab = {
  name: 'debate',
  handlers: { datasetInfo, experimentRows, experimentSummary },
};
