// own-text-client.js — the Text tab's "Your model" requests (labs/own-text.js) over a WorkerChannel to a host worker
// of its own (a user's model that exhausts memory or traps takes only this worker down; the shipped text models keep
// theirs). No DOM.
//
// Contract:
//   const client = new OwnTextClient({ channel? })
//   client.load({ model, tokenizer, config, names }) → Promise<{info, name, bytes}> (bytes are cloned, not transferred:
//     the view keeps them to load again after a worker stopped)
//   client.shipped(name = 'stories260K', onProgress) → Promise<{info, name, bytes, shipped, description, license}>
//   client.tokenize(text) → Promise<{ids, tokens, offsets, special, texts}>
//   client.explain(ids, target = 'next') → Promise<{explain, top, maps, pieces, ms} | null> (latest wins: a newer
//     explain makes an older one resolve null)
//   client.loo({ ids, target, p }, onProgress) → { id, promise, cancel() } (a job)
//   client.ig({ ids, target, special }, onProgress) → { id, promise, cancel() } (a job: integrated gradients; special:
//     the explain's, kept in a token baseline)
//   client.mixing({ ids, method: 'value_zeroing' | 'alti' }, onProgress) → { id, promise, cancel() } (a job: one
//     layer a step)
//   client.generate({ ids, steps }, onProgress) → { id, promise, cancel() } (a job)
//   client.experiment({ name, ids, special, params, seed, layer }) → Promise<{row, ms}> (one debate experiment)
//   client.adversarial({ ids, special, params, seed, layer }, onProgress) → { id, promise, cancel() } (a job; progress
//     {stage: 'adversarial', estimate_ms})
//   client.loaded: true while the worker holds a model (false after it was replaced)
//   new OwnTextClient({ name: 'attnlab-own-text-debate' }) is the debate panels' second worker (views/own-text/debate.js)
import { hostChannel, hostUrl, HOST_LABS } from './lab-runtime.js';

export class OwnTextClient {
  constructor({ channel = null, name = 'attnlab-own-text', what = 'the worker of your text model' } = {}) {
    this.channel = channel ?? hostChannel({ name, what, workerUrl: hostUrl(HOST_LABS.ownText) });
    this.loaded = false;
    this.channel.onReplaced(() => { this.loaded = false; });
  }

  async load({ model, tokenizer, config = '', names = {} }) {
    const r = await this.channel.request('ownText.load', { model, tokenizer, config, names });
    this.loaded = true;
    return r;
  }

  async shipped(name = 'stories260K', onProgress = null) {
    const r = await this.channel.request('ownText.shipped', { name }, onProgress);
    this.loaded = true;
    return r;
  }

  tokenize(text) {
    return this.channel.request('ownText.tokenize', { text });
  }

  explain(ids, target = 'next') {
    return this.channel.latest('own-text-explain', 'ownText.explain', { ids, target });
  }

  loo({ ids, target, p }, onProgress = null) {
    return this.channel.send('ownText.loo', { ids, target, p }, onProgress);
  }

  ig({ ids, target, special }, onProgress = null) {
    return this.channel.send('ownText.ig', { ids, target, special }, onProgress);
  }

  mixing({ ids, method }, onProgress = null) {
    return this.channel.send('ownText.mixing', { ids, method }, onProgress);
  }

  generate({ ids, steps }, onProgress = null) {
    return this.channel.send('ownText.generate', { ids, steps }, onProgress);
  }

  experiment({ name, ids, special, params = {}, seed = 1, layer = -1 }) {
    return this.channel.request('ownText.experiment', { name, ids, special, params, seed, layer });
  }

  adversarial({ ids, special, params = {}, seed = 1, layer = -1 }, onProgress = null) {
    return this.channel.send('ownText.adversarial', { ids, special, params, seed, layer }, onProgress);
  }
}
