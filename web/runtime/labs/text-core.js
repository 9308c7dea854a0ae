// text-core.js — one loaded text model in the core, as the text labs use it: the core's TextLab
// (docs/DESIGN.md "wasm module API"). The model keeps the data sets it has read (a data set crosses into wasm
// once per worker; chunks name an index range) and its last tokenized texts (an explanation and the five live
// panels on one sentence tokenize it once); errors are thrown. No DOM.
//
// Contract:
//   openTextModel(Module, what, configText, weights) → model:
//     explain(text, maxTokens, igSteps) → object (the page's form: a transformer's attention_layers left out,
//       attention_layers_shape instead; attentionMaps has them); experiment(name, text, params, seed, maxTokens) → row object
//     attentionMaps(text, maxTokens) → {tokens, shape, data, mean, rollout, flow, …} (transformers)
//     rows(name, data {name, tsv, trees?}, start, count, params, seed) → {rows, total} (trees: the SST PTB trees that
//       give the data set's sentences human rationales)
//     summary(name, rows, params, seed) → summary object
//     tokenizations() → texts tokenized so far
//     base → the TextLab, what AdversaryTraining takes as its base; delete()
//   Throws an Error with a readable message (what could not be loaded, or the core's message).
//   maxTokens / igSteps left undefined take the catalogue's defaults (the facade fills them in).

export function openTextModel(Module, what, configText, weights) {
  if (typeof Module.TextLab !== 'function') {
    throw new Error('This build of the WebAssembly core is too old for this page; rebuild it (bash scripts/build-wasm.sh).');
  }
  let lab;
  try {
    lab = new Module.TextLab(configText, weights);
  } catch (e) {
    throw new Error(`The core could not load ${what}: ${e.message}`);
  }
  return {
    explain: (text, maxTokens, igSteps) => lab.explain(text, maxTokens, igSteps, false),
    experiment: (name, text, params, seed, maxTokens) => lab.experiment(name, text, params, seed, maxTokens),
    attentionMaps: (text, maxTokens) => lab.attentionMaps(text, maxTokens),
    rows(name, data, start, count, params, seed) {
      if (!lab.hasDataset(data.name)) lab.loadDataset(data.name, data.tsv, data.trees ?? '');
      return lab.experimentRange(name, data.name, start, count, params, seed);
    },
    summary: (name, rows, params, seed) => lab.summarizeRows(name, rows, params, seed),
    tokenizations: () => lab.tokenizations(),
    base: lab,
    delete: () => lab.delete(),
  };
}
