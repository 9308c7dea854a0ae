// core-client.js — the text, debate and train labs' requests, over one WorkerChannel to a host worker.
//
// Contract (no DOM):
//   const client = new CoreClient({ onProgress, channel?, workerUrl? })   // onProgress({model, stage, loaded, total})
//   client.manifest()                → Promise<manifest>
//   client.experimentNames()         → Promise<[{name, description}]>  ([] for a core without experiments)
//   client.explain({model, text, maxTokens, igSteps})
//                                    → Promise<result | null>. null means "superseded": a newer explain()
//                                      was made before this one's answer arrived, so it must not be shown.
//   client.experiment({model, name, text, params, seed, maxTokens})
//                                    → Promise<row | null>: the live (one-text) experiment row; superseded
//                                      like explain, on its own lane.
//   client.attention({model, text, maxTokens})
//                                    → Promise<maps | null>: a transformer's attention tensors (labs/text.js
//                                      `attention`); superseded like explain, on its own lane.
//   client.documentModels()          → Promise<[entry]>: the manifest's `documents` (HAN models)
//   client.explainDocument({model, text, igSteps}, onProgress)
//                                    → Promise<result | {cancelled: true} | null>: a HAN model's explanation of a
//                                      document (labs/documents.js, = `attnlab explain-text` on it); superseded like
//                                      explain, on its own lane ('document'), and a superseded run stops at its next
//                                      stage; onProgress({stage: 'explain', step, done, total}) before each stage.
//   client.cancelDocument()          stops the running document explanation (it resolves {cancelled: true}).
//   client.globalView({model, level}, onProgress) → { promise: Promise<view | {cancelled: true}>, cancel() }: the
//                                      Global view of a model (labs/global-view.js), a long job; onProgress({stage,
//                                      done, total}) after each of the core's steps
//   client.globalViewExamples({dataset, word, limit}) → Promise<{examples, dataset}>
//   client.datasetInfo({model, dataset}) → Promise<{total, class_names, …}>
//   client.experimentRows({model, name, dataset, start, count, params, seed}) → Promise<{rows, total, …}>
//   client.experimentSummary({model, name, rows, params, seed})           → Promise<summary>
//                                    (plain requests: never superseded; runtime/dataset-run.js chunks them)
//   client.train({attention, seed, epochs}, onProgress)          a BiLSTM classifier
//   client.train({kind: 'transformer', attention, layers, seed, epochs}, onProgress)
//   client.train({kind: 'adversary', base, lambda, seed, epochs}, onProgress)
//   client.train({kind: 'ortho' | 'diversity' | 'deceptive', attention, lambda, words, wordsSource, seed, epochs}, onProgress)
//                                      an Orthogonal LSTM, a Diversity LSTM (λ) or deceptive attention (λ, the
//                                      impermissible words as one space-separated string; wordsSource 'lexicon' when
//                                      they are the shipped strong-sentiment lexicon, recorded in the entry)
//                                    → Promise<{cancelled, model, config, weights, epochs_done, progress}>
//                                      (labs/train.js); onProgress(progress) after every training step.
//   client.cancelTrain()             asks the running training to stop before its next step (the train()
//                                      promise then resolves with cancelled: true).
//   client.syncModels(otherClient.trainedModels)  registers the models trained through another client here
//   client.terminate()
// A model trained here is remembered (its bytes), and registered again with a replacement worker, so a
// worker that aborted or died does not take the user's trained models with it.
import { hostChannel, hostUrl, HOST_LABS } from './lab-runtime.js';

export class CoreClient {
  constructor({ onProgress = () => {}, channel = null, workerUrl } = {}) {
    this.channel = channel ?? hostChannel({ workerUrl: workerUrl ?? hostUrl(HOST_LABS.text) });
    this.channel.onEvent = (msg) => { if (msg?.type === 'progress') onProgress(msg); };
    this.trainJob = null;
    this.trainedModels = new Map(); // name → {name, entry, config, weights}
    this.channel.onReplaced(() => {
      this.trainJob = null;
      this.registered = false;
    });
    this.registered = true;
  }

  get worker() {
    return this.channel.worker;
  }

  // After a replacement, the new worker first learns the models trained in earlier ones.
  reRegister() {
    if (this.registered) return;
    this.registered = true;
    for (const m of this.trainedModels.values()) this.channel.request('registerModel', m).catch(() => {});
  }

  request(type, body = {}, onProgress = null) {
    this.reRegister();
    return this.channel.request(type, body, onProgress);
  }

  // Makes the models trained through another client (the pool's main one) loadable here too.
  syncModels(models) {
    for (const [name, m] of models) {
      if (this.trainedModels.has(name)) continue;
      this.trainedModels.set(name, m);
      if (this.registered) this.channel.request('registerModel', m).catch(() => {});
    }
  }

  manifest() { return this.request('manifest'); }

  experimentNames() { return this.request('experiments'); }

  explain({ model, text, maxTokens, igSteps }) {
    this.reRegister();
    return this.channel.latest('explain', 'explain', { model, text, maxTokens, igSteps });
  }

  attention({ model, text, maxTokens }) {
    this.reRegister();
    return this.channel.latest('attention', 'attention', { model, text, maxTokens });
  }

  experiment({ model, name, text, params = {}, seed = 1, maxTokens }) {
    this.reRegister();
    return this.channel.latest('experiment', 'experiment', { model, name, text, params, seed, maxTokens });
  }

  // Documents (labs/documents.js): the HAN models of the manifest, and one document's explanation (its own lane).
  documentModels() { return this.request('documentModels'); }

  explainDocument({ model, text, igSteps }, onProgress = null) {
    this.reRegister();
    return this.channel.latest('document', 'explainDocument', { model, text, igSteps }, onProgress);
  }

  cancelDocument() { this.channel.cancelLane('document'); }

  globalView({ model, level }, onProgress = () => {}) {
    this.reRegister();
    return this.channel.send('globalView', { model, level }, (m) => onProgress(m));
  }

  globalViewExamples({ dataset, word, limit }) { return this.request('globalViewExamples', { dataset, word, limit }); }

  datasetInfo({ model, dataset }) { return this.request('datasetInfo', { model, dataset }); }

  experimentRows({ model, name, dataset, start, count, params = {}, seed = 1 }) {
    return this.request('experimentRows', { model, name, dataset, start, count, params, seed });
  }

  experimentSummary({ model, name, rows, params = {}, seed = 1 }) {
    return this.request('experimentSummary', { model, name, rows, params, seed });
  }

  train({ kind = 'model', attention, layers, base, lambda, words, wordsSource, seed, epochs }, onProgress = () => {}) {
    const msg = kind === 'adversary' ? { kind, base, lambda, seed, epochs }
      : kind === 'transformer' ? { kind, attention, layers, seed, epochs }
      : kind === 'ortho' ? { kind, attention, seed, epochs }
      : kind === 'diversity' ? { kind, attention, lambda, seed, epochs }
      : kind === 'deceptive' ? { kind, attention, lambda, words, words_source: wordsSource, seed, epochs } : { attention, seed, epochs };
    this.reRegister();
    const job = this.channel.send('train', msg, (m) => onProgress(m.progress));
    this.trainJob = job;
    return job.promise.then((res) => {
      if (res?.model && typeof res.config === 'string' && res.weights instanceof Uint8Array) {
        this.trainedModels.set(res.model.name, { name: res.model.name, entry: res.model, config: res.config, weights: res.weights.slice() });
      }
      return res;
    }).finally(() => { if (this.trainJob === job) this.trainJob = null; });
  }

  cancelTrain() {
    this.trainJob?.cancel();
  }

  terminate() {
    this.channel.fail('The core client was closed.');
  }
}
