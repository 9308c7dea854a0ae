// train.js — the Train lab's handler: a classifier or a model-consistent adversary trained in the worker with
// the core's TextTraining / AdversaryTraining, as a long job (runtime/train-job.js steps it; every step is
// queued, so explain / experiment requests run between steps). No DOM.
//
// Requests (protocol: worker-channel.js):
//   train {attention, seed, epochs}               → trains a BiLSTM on sst2-train (dev sst2-dev, test sst2-test)
//   train {kind:'transformer', attention, layers, seed, epochs}
//                                                 → a transformer (attention dot | uniform, 1 or 2 blocks; the
//                                                   rest of the shipped sst2-transformer's recipe: the core's
//                                                   catalogue defaults text.training)
//   train {kind:'adversary', base, lambda, seed, epochs}
//   train {kind:'ortho' | 'diversity' | 'deceptive', attention (tanh | dot), lambda, words, seed, epochs}
//                                                 → the debate's fourth round (issue 32): an Orthogonal LSTM, a Diversity
//                                                   LSTM (conicity weight λ) or deceptive attention (weight λ on the
//                                                   attention mass of `words`, a space-separated string), the BiLSTM
//                                                   recipe otherwise; the entry records the kind
//       progress {type:'progress', id, progress} after each step (progress.stage 'data' | 'train' | 'test');
//       result {cancelled, model, config, weights, epochs_done, progress}: model a manifest-style entry
//       (trained: true, now loadable by name), config its config.json text, weights its safetensors bytes; all
//       three null when cancelled before one epoch finished. {type:'cancel', target: id} stops it before its
//       next step. One training at a time per worker (a second one is an error).
import { runTrainingJob } from '../train-job.js';
import {
  trainedName, adversaryName, adversaryBases, MAX_SEED, MAX_EPOCHS, TRANSFORMER_ATTENTIONS, TRANSFORMER_LAYERS,
  FAITHFUL_KINDS, FAITHFUL_ATTENTIONS, variantName, variantOptions,
} from '../../analysis/training.js';
import { loadCore } from '../host/core.js';
import { loadManifest, loadDataset, loadSession, registerTrained, forgetTrained, trained } from './text-models.js';
import { trainedEntry, adversaryEntry, TRAIN_SETS } from './train-entries.js';

const ATTENTION_KINDS = ['uniform', 'tanh', 'dot'];
let training = false;

const MAX_WORDS_CHARS = 200_000;

function trainOptions({ kind, attention, seed, epochs, layers, lambda, words }) {
  const transformer = kind === 'transformer';
  const variant = FAITHFUL_KINDS.includes(kind);
  const kinds = transformer ? TRANSFORMER_ATTENTIONS.map((a) => a.value) : variant ? FAITHFUL_ATTENTIONS.map((a) => a.value) : ATTENTION_KINDS;
  if (!kinds.includes(attention)) {
    throw new Error(`The ${transformer ? "transformer's " : variant ? 'learned ' : ''}attention must be one of ${kinds.join(', ')} (got ${attention}).`);
  }
  if (variant && words !== undefined && (typeof words !== 'string' || words.length > MAX_WORDS_CHARS)) {
    throw new Error(`The impermissible words must be text of at most ${MAX_WORDS_CHARS.toLocaleString('en')} characters.`);
  }
  if (transformer && !TRANSFORMER_LAYERS.includes(Number(layers))) {
    throw new Error(`The transformer's layers must be one of ${TRANSFORMER_LAYERS.join(', ')} (got ${layers}).`);
  }
  const s = Number(seed);
  if (!Number.isSafeInteger(s) || s < 0 || s > MAX_SEED) throw new Error(`The seed must be an integer from 0 to ${MAX_SEED} (got ${seed}).`);
  const e = Number(epochs);
  if (!Number.isSafeInteger(e) || e < 1 || e > MAX_EPOCHS) throw new Error(`The epochs must be an integer from 1 to ${MAX_EPOCHS} (got ${epochs}).`);
  if (variant) return { attention, seed: s, epochs: e, ...variantOptions(kind, { lambda, words }) };
  return transformer ? { encoder: 'transformer', layers: Number(layers), attention, seed: s, epochs: e } : { attention, seed: s, epochs: e };
}

function adversaryOptions({ base, lambda, seed, epochs }, manifest) {
  const bases = adversaryBases(manifest.models);
  if (!bases.includes(base)) throw new Error(`The adversary's base model must be one of ${bases.join(', ')} (got ${base}).`);
  const l = Number(lambda);
  if (!(typeof lambda === 'number' || typeof lambda === 'string') || !Number.isFinite(l) || l < 0 || l > 1e6) {
    throw new Error(`λ must be a number from 0 to 1e6 (got ${lambda}).`);
  }
  const { seed: s, epochs: e } = trainOptions({ attention: 'tanh', seed, epochs });
  return { base, lambda: l, seed: s, epochs: e };
}

async function train(msg, ctx) {
  if (training) throw new Error('A model is already being trained in this page; wait for it to finish or cancel it.');
  training = true;
  const post = (progress) => ctx.progress({ progress });
  try {
    const adversary = msg.kind === 'adversary';
    const options = adversary ? adversaryOptions(msg, await loadManifest()) : trainOptions(msg);
    post({ stage: 'data' });
    const [Module, manifest, trainSet, devSet, testSet] = await Promise.all([
      loadCore(), loadManifest(), loadDataset(TRAIN_SETS.train), loadDataset(TRAIN_SETS.dev), loadDataset(TRAIN_SETS.test),
    ]);
    let createTrainer = null;
    if (adversary) {
      // The base is loaded like any model (sha256-checked); the training copies it when it starts.
      const { session } = await ctx.step(() => loadSession(options.base, (p) => ctx.event(p)));
      if (typeof Module.AdversaryTraining !== 'function') {
        throw new Error('This build of the WebAssembly core cannot train an adversary; rebuild it (bash scripts/build-wasm.sh).');
      }
      createTrainer = (M, trainTsv, devTsv, o) => M.AdversaryTraining(session.base, trainTsv, devTsv, o);
    }
    const res = await runTrainingJob({
      Module,
      trainTsv: trainSet.tsv,
      devTsv: devSet.tsv,
      testTsv: testSet.tsv,
      options,
      createTrainer,
      run: (fn) => ctx.step(fn),
      isCancelled: ctx.cancelled,
      onProgress: post,
    });
    if (!res.configText) {
      return { cancelled: true, model: null, config: null, weights: null, epochs_done: res.epochsDone, progress: res.progress };
    }
    const taken = [...manifest.models.map((m) => m.name), ...trained.keys()];
    const variant = FAITHFUL_KINDS.includes(msg.kind) ? msg.kind : null;
    const name = adversary
      ? adversaryName(options.base, options.lambda, options.seed, taken)
      : variant ? variantName(variant, options.attention, options.diversity ?? options.deception, options.seed, taken)
      : trainedName(options.attention, options.seed, taken, options.layers ?? 0);
    const entry = adversary
      ? adversaryEntry(name, options, res.configText, res.weights, res)
      : trainedEntry(name, { ...options, kind: variant ?? undefined, words_source: msg.words_source }, res.configText, res.weights, res, manifest);
    registerTrained(name, { entry, configText: res.configText, weights: res.weights });
    try {
      await ctx.step(() => loadSession(name)); // check it loads; the session is cached for the first explain
    } catch (e) {
      forgetTrained(name);
      throw e;
    }
    // a copy goes to the page (the worker keeps its own bytes for later sessions)
    return {
      cancelled: res.status === 'cancelled', model: entry, config: res.configText, weights: res.weights.slice(),
      epochs_done: res.epochsDone, progress: res.progress,
    };
  } finally {
    training = false;
  }
}

export const trainLab = { name: 'train', handlers: { train: { job: train } } };
