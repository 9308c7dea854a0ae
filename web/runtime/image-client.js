// image-client.js — main-thread wrapper around image-worker.js: one promise per request, progress callbacks,
// cancel. No DOM.
//
// Contract:
//   const client = new ImageClient({ workerUrl? })
//   client.load({ override, threads }, onProgress)      → Promise<{backend, ep, reason, numThreads, batch, model, classes}>
//   client.classify({ blob } | { rgba, width, height }, { mask: {blob, positiveLabel} }?)
//                                             → Promise<classify result> (see image-worker.js)
//   client.map({ imageId, method, classIndex, seed, colormap })        → Promise<map result>
//   client.runPlan(kind, { imageId, classIndex, params, colormap }, onProgress)
//                                             → { id, promise, cancel() }; promise resolves with the plan's
//                                               result or {cancelled: true}
//   client.erase({ imageId, classIndex, method, steps, threshold, fill, colormap }, onProgress) → { id, promise, cancel() }
//   client.sanity({ imageId, method, classIndex, seed, colormap })      → Promise
//   client.colorize(map01, colormap)          → Promise<{rgba}>
//   client.terminate()
// onProgress({stage, loaded, total, cached}). Errors reject with an Error carrying the worker's message. If the
// worker dies (cannot start, crashes, out of memory), every open request is rejected with a readable message
// and the next call starts a fresh worker (which must be loaded again: `client.loaded` turns false).

import { WorkerChannel } from './worker-channel.js';

const WORKER_URL = new URL('./image-worker.js', import.meta.url);

export class ImageClient extends WorkerChannel {
  constructor({ workerUrl = WORKER_URL, WorkerImpl = globalThis.Worker } = {}) {
    super({ workerUrl, WorkerImpl, name: 'attnlab-image', what: 'the image worker' });
    this.loaded = false;
    this.onFail = () => { this.loaded = false; };
  }

  async load({ override = null, threads = 0 } = {}, onProgress = null) {
    const r = await this.send('load', { override, threads }, onProgress).promise;
    this.loaded = true;
    return r;
  }

  classify(source, { mask = null } = {}) {
    const body = source.blob ? { blob: source.blob } : { rgba: source.rgba, width: source.width, height: source.height };
    return this.send('classify', { ...body, mask }).promise;
  }

  map({ imageId, method, classIndex, seed = 1, colormap = 'viridis' }) {
    return this.send('map', { imageId, method, classIndex, seed, colormap }).promise;
  }

  runPlan(kind, { imageId, classIndex, params = {}, colormap = 'viridis' }, onProgress = null) {
    return this.send('runPlan', { kind, imageId, classIndex, params, colormap }, onProgress);
  }

  erase({ imageId, classIndex, method, steps, threshold, fill, colormap = 'viridis' }, onProgress = null) {
    return this.send('erase', { imageId, classIndex, method, steps, threshold, fill, colormap }, onProgress);
  }

  sanity({ imageId, method, classIndex, seed = 1, colormap = 'viridis' }) {
    return this.send('sanity', { imageId, method, classIndex, seed, colormap }).promise;
  }

  colorize(map01, colormap) {
    return this.send('colorize', { map01, colormap }).promise;
  }

  terminate() {
    this.fail('The image client was closed.');
  }
}
