// text.js — the Text lab's handlers: the model list, explanations, the live (one-text) experiments, and
// re-registering a model trained earlier (after a worker was replaced). No DOM.
//
// Requests (protocol: worker-channel.js; sessions: text-models.js):
//   manifest {}                                  → the manifest, trained models after the shipped ones
//   explain {model, text, maxTokens, igSteps}    → the explain JSON (docs/DESIGN.md; the page's form: no attention_layers) + model, class_names
//   experiments {}                               → [{name, description, params}]: the per-instance experiments of
//                                                  the core's catalogue (Module.catalogue())
//   experiment {model, name, text, params, seed, maxTokens}
//                                                → the experiment's row for this text (instance 0) + tokens,
//                                                  unknown, model, class_names; may be {skipped: reason}
//   attention {model, text, maxTokens}          → a transformer's attention tensors for the text (TextLab.attentionMaps:
//                                                  tokens, unknown, truncated, layers, heads, n, shape [L, H, n, n],
//                                                  data / mean / rollout Float32Array, flow [L·T]) + model; an Error
//                                                  naming why for other models
//   registerModel {name, entry, config, weights} → {name}: a model trained in an earlier worker of this page
//                                                  becomes loadable by name here too
// A shared model load reports {type:'progress', id: 0, model, stage, loaded, total} (ctx.event).
// The core's TextLab keeps the last tokenized texts, so an explanation and the five live panels on one sentence
// tokenize it once (text-core.js).
import { loadCore } from '../host/core.js';
import { loadSession, manifestWithTrained, registerTrained } from './text-models.js';

export const seedOf = (seed) => {
  const s = Number(seed ?? 1);
  if (!Number.isSafeInteger(s) || s < 0) throw new Error(`The seed must be a non-negative integer (got ${seed}).`);
  return s;
};

export const paramsOf = (params) => (params && typeof params === 'object' && !Array.isArray(params) ? params : {});

export const session = (msg, ctx) => loadSession(msg.model, (p) => ctx.event(p));

async function explain(msg, ctx) {
  const { model, text, maxTokens, igSteps } = msg;
  const s = await session(msg, ctx);
  const result = s.session.explain(String(text ?? ''), maxTokens, igSteps);
  result.model = model;
  result.class_names = s.classNames;
  return result;
}

async function experimentNames() {
  const Module = await loadCore();
  return Module.catalogue().experiments.filter((e) => e.per_instance)
    .map(({ name, description, params }) => ({ name, description, params }));
}

async function experiment(msg, ctx) {
  const { model, name, text, params, seed, maxTokens } = msg;
  const s = await session(msg, ctx);
  const row = s.session.experiment(String(name), String(text ?? ''), paramsOf(params), seedOf(seed), maxTokens);
  row.model = model;
  row.class_names = s.classNames;
  return row;
}

async function attention(msg, ctx) {
  const { model, text, maxTokens } = msg;
  const s = await session(msg, ctx);
  if (typeof s.session.attentionMaps !== 'function') {
    throw new Error('This build of the WebAssembly core has no attention maps; rebuild it (bash scripts/build-wasm.sh).');
  }
  const result = s.session.attentionMaps(String(text ?? ''), maxTokens);
  result.model = model;
  return result;
}

function registerModel({ name, entry, config, weights }) {
  if (typeof name !== 'string' || typeof config !== 'string' || !(weights instanceof Uint8Array)) {
    throw new Error('registerModel needs {name, entry, config (config.json text), weights (Uint8Array)}.');
  }
  registerTrained(name, { entry, configText: config, weights });
  return { name };
}

export const textLab = {
  name: 'text',
  handlers: {
    manifest: () => manifestWithTrained(),
    explain,
    experiments: () => experimentNames(),
    experiment,
    attention,
    registerModel,
  },
};
