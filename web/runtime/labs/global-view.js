// global-view.js — the Global view's handlers: which words (or sentences) lie closest to an additive attention
// layer's learned query, computed by the core's GlobalViewJob (TextLab / HanLab globalViewStart + globalViewStep,
// wasm/global_view_out.h) on the model's shipped training data (analysis/global-view.js trainDataFor). No DOM.
//
// Requests (protocol: worker-channel.js):
//   globalView {model, level}  (a long job) → the view: {level, query, score_at_mean, explained_variance,
//       count_total, class_names, texts, score, contextual_score, x, y (Float64Array), count, predicted_class
//       (Int32Array)} + model, kind ('text' | 'han'), dataset (the training data set's name, or null: then no
//       contextual scores) and data_n; or {cancelled: true}. Progress {type:'progress', id, stage: 'data' |
//       'global', done, total} after each step (one batch of the core); {type:'cancel', target: id} stops it before
//       its next step. A finished view is kept per (model, level): asking again answers at once (a copy).
//   globalViewExamples {dataset, word, limit} → {examples: [{line, label, text, spans}], dataset}: training texts
//       with the word (analysis/global-view.js findExamples)
// A model without additive attention at that level gets an Error naming why (the core's message).
import { loadManifest, loadSession, loadDocumentSession, loadDataset } from './text-models.js';
import { trainDataFor, findExamples } from '../../analysis/global-view.js';

const views = new Map(); // `${model}|${level}` → the finished view (kept; copies are sent)

const COLUMNS = ['score', 'contextual_score', 'x', 'y', 'count', 'predicted_class'];
const copyOf = (v) => ({ ...v, ...Object.fromEntries(COLUMNS.map((k) => [k, v[k].slice()])) });

async function target(model, level, ctx) {
  const manifest = await loadManifest();
  const doc = (manifest.documents ?? []).find((m) => m.name === model);
  const flat = manifest.models.find((m) => m.name === model);
  if (!doc && !flat) throw new Error(`Unknown model "${model}".`);
  const entry = doc ?? flat;
  const dataset = trainDataFor(entry);
  const onProgress = (p) => ctx.event(p);
  if (doc) {
    const s = await loadDocumentSession(model, onProgress);
    return { kind: 'han', lab: s.lab, dataset };
  }
  if (level !== 'word') throw new Error(`${model} is a flat model: the sentence level needs a HAN model.`);
  const s = await loadSession(model, onProgress);
  return { kind: 'text', lab: s.session.base, dataset };
}

async function globalView(msg, ctx) {
  const model = String(msg.model ?? '');
  const level = msg.level === 'sentence' ? 'sentence' : 'word';
  const key = `${model}|${level}`;
  if (views.has(key)) return copyOf(views.get(key));
  const t = await ctx.step(() => target(model, level, ctx));
  ctx.progress({ stage: 'data', done: 0, total: 1 });
  const data = t.dataset ? await loadDataset(t.dataset) : null;
  if (ctx.cancelled()) return { cancelled: true };
  const start = await ctx.step(() => (t.kind === 'han'
    ? t.lab.globalViewStart(data ? data.lines.map((l) => l.text) : [], level)
    : t.lab.globalViewStart(data ? data.tsv : '')));
  let r = { finished: false, done: 0, total: start.total };
  while (!r.finished) {
    ctx.progress({ stage: 'global', done: r.done, total: r.total });
    await ctx.yield();
    if (ctx.cancelled()) return { cancelled: true }; // the core's job stays until the next start replaces it
    r = await ctx.step(() => t.lab.globalViewStep(2));
  }
  const { finished, done, total, ...view } = r;
  Object.assign(view, { model, kind: t.kind, dataset: t.dataset, data_n: data ? data.lines.length : 0 });
  views.set(key, view);
  return copyOf(view);
}

async function globalViewExamples(msg) {
  const { dataset, word, limit = 5 } = msg;
  if (typeof dataset !== 'string' || !dataset) return { examples: [], dataset: null };
  const data = await loadDataset(dataset);
  return { examples: findExamples(data.lines, String(word ?? ''), Math.min(20, Number(limit) || 5)), dataset };
}

export const globalViewLab = {
  name: 'global',
  handlers: { globalView: { job: globalView }, globalViewExamples },
};
