// image-client.js — the Image lab's requests (labs/image*.js), over a WorkerChannel to a host worker. No DOM.
//
// Contract:
//   const client = new ImageClient({ channel?, workerUrl?, WorkerImpl? })   (its own host worker by default)
//   client.load({ override, threads }, onProgress)      → Promise<{backend, ep, reason, numThreads, batch, model, classes}>
//                                             (ep null while ORT's session is being made: client.session() → {ep})
//   client.classify({ blob } | { rgba, width, height }, { mask: {blob, positiveLabel} }?)
//                                             → Promise<classify result> (labs/image.js)
//   client.map({ imageId, method, classIndex, seed, colormap })        → Promise<{key, rgba, peak, pointing?}>
//   client.runPlan(kind, { imageId, classIndex, params, colormap, map }, onProgress)
//                                             → { id, promise, cancel() }; promise resolves with the plan's
//                                               result or {cancelled: true}; a metric plan (deletion |
//                                               insertion | explanationMask) names the map by its key (map)
//   client.erase({ imageId, classIndex, method, steps, threshold, fill, colormap }, onProgress) → { id, promise, cancel() }
//   client.sanity({ imageId, method, classIndex, seed, colormap })      → Promise
//   client.equivalence({ imageId, classIndex })  → Promise<{logit, camMean, bias, camPlusBias, gradcam, …}>
//                                             (labs/image-maps.js: the CAM identity for this photo and class)
//   client.recolor({ imageId, keys, colormap }) → Promise<{maps: {key: rgba}}> (the maps the worker holds)
//   client.terminate()
// onProgress({stage, loaded, total, cached}). Errors reject with an Error carrying the worker's message. If the
// worker dies or aborts, every open request is rejected with a readable message and the next call starts a
// fresh worker (which must be loaded again: `client.loaded` turns false).
import { hostChannel, hostUrl, HOST_LABS } from './lab-runtime.js';

export class ImageClient {
  constructor({ channel = null, workerUrl, WorkerImpl } = {}) {
    // Its own host, importing only the image lab (and the diagnostics): host/worker.js LAB_MODULES.
    this.channel = channel ?? hostChannel({ name: 'attnlab-image', what: 'the image worker', workerUrl: workerUrl ?? hostUrl(HOST_LABS.image), ...(WorkerImpl ? { WorkerImpl } : {}) });
    this.loaded = false;
    this.channel.onReplaced(() => { this.loaded = false; });
  }

  async load({ override = null, threads = 0 } = {}, onProgress = null) {
    const r = await this.channel.request('image.load', { override, threads }, onProgress);
    this.loaded = true;
    return r;
  }

  // → Promise<{ep}> once ONNX Runtime's session is made (load may answer before: ep null, the core classifies meanwhile).
  session() {
    return this.channel.request('image.session', {});
  }

  classify(source, { mask = null } = {}) {
    const body = source.blob ? { blob: source.blob } : { rgba: source.rgba, width: source.width, height: source.height };
    return this.channel.request('image.classify', { ...body, mask });
  }

  map({ imageId, method, classIndex, seed = 1, colormap = 'viridis' }) {
    return this.channel.request('image.map', { imageId, method, classIndex, seed, colormap });
  }

  runPlan(kind, { imageId, classIndex, params = {}, colormap = 'viridis', map = null }, onProgress = null) {
    return this.channel.send('image.plan', { kind, imageId, classIndex, params, colormap, ...(map ? { map } : {}) }, onProgress);
  }

  erase({ imageId, classIndex, method, steps, threshold, fill, colormap = 'viridis' }, onProgress = null) {
    return this.channel.send('image.erase', { imageId, classIndex, method, steps, threshold, fill, colormap }, onProgress);
  }

  sanity({ imageId, method, classIndex, seed = 1, colormap = 'viridis' }) {
    return this.channel.request('image.sanity', { imageId, method, classIndex, seed, colormap });
  }

  equivalence({ imageId, classIndex }) {
    return this.channel.request('image.equivalence', { imageId, classIndex });
  }

  recolor({ imageId, keys, colormap = 'viridis' }) {
    return this.channel.request('image.recolor', { imageId, keys, colormap });
  }

  terminate() {
    this.channel.fail('The image client was closed.');
  }
}
