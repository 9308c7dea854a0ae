// text-core.js — one loaded text model in the core, as the text labs use it. With the core's TextLab
// (docs/DESIGN.md "wasm module API"): the model keeps the data sets it has read (a data set crosses into wasm
// once per worker; chunks name an index range) and its last tokenized texts (an explanation and the five live
// panels on one sentence tokenize it once); errors are thrown. An older core (TextSession, JSON strings with an
// "error" field) is still driven the old way. No DOM.
//
// Contract:
//   openTextModel(Module, what, configText, weights) → model:
//     explain(text, maxTokens, igSteps) → object; experiment(name, text, params, seed, maxTokens) → row object
//     attentionMaps(text, maxTokens) → {tokens, shape, data, mean, rollout, flow, …} (transformers; TextLab only)
//     rows(name, data {name, tsv}, start, count, params, seed) → {rows, total}
//     summary(name, rows, params, seed) → summary object
//     tokenizations() → texts tokenized so far (NaN on an older core)
//     base → what AdversaryTrainer takes as its base; delete()
//   Throws an Error with a readable message (what could not be loaded, or the core's message).
import { parseCore } from '../host/core.js';

export function openTextModel(Module, what, configText, weights) {
  if (typeof Module.TextLab === 'function') {
    let lab;
    try {
      lab = new Module.TextLab(configText, weights);
    } catch (e) {
      throw new Error(`The core could not load ${what}: ${e.message}`);
    }
    return {
      explain: (text, maxTokens, igSteps) => lab.explain(text, maxTokens, igSteps),
      experiment: (name, text, params, seed, maxTokens) => lab.experiment(name, text, params, seed, maxTokens),
      attentionMaps: (text, maxTokens) => lab.attentionMaps(text, maxTokens),
      rows(name, data, start, count, params, seed) {
        if (!lab.hasDataset(data.name)) lab.loadDataset(data.name, data.tsv);
        return lab.experimentRange(name, data.name, start, count, params, seed);
      },
      summary: (name, rows, params, seed) => lab.summarizeRows(name, rows, params, seed),
      tokenizations: () => lab.tokenizations(),
      base: { _lab: lab }, // the compat AdversaryTrainer reads the TextLab from here
      delete: () => lab.delete(),
    };
  }
  const s = new Module.TextSession();
  const err = s.load(configText, weights);
  if (err) {
    s.delete();
    throw new Error(`The core could not load ${what}: ${err}`);
  }
  if (typeof s.experiment !== 'function') {
    const no = () => { throw new Error('This build of the WebAssembly core has no experiments; rebuild it (bash scripts/build-wasm.sh).'); };
    Object.assign(s, { experiment: no, experimentRows: no, experimentSummary: no });
  }
  const json = (p) => JSON.stringify(p ?? {});
  return {
    explain: (text, maxTokens, igSteps) => parseCore(s.explain(text, maxTokens, igSteps)),
    experiment: (name, text, params, seed, maxTokens) => parseCore(s.experiment(name, text, json(params), seed, maxTokens)),
    rows: (name, data, start, count, params, seed) => parseCore(s.experimentRows(name, data.tsv, start, count, json(params), seed)),
    summary: (name, rows, params, seed) => parseCore(s.experimentSummary(name, JSON.stringify(rows), json(params), seed)),
    tokenizations: () => NaN,
    base: s,
    delete: () => s.delete(),
  };
}
