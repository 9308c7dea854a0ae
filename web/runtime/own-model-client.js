// own-model-client.js — "Your model"'s requests (labs/own-model.js) over a WorkerChannel to a host worker of
// its own (a user's model that exhausts memory or traps takes only this worker down). No DOM.
//
// Contract:
//   const client = new OwnModelClient({ channel? })
//   client.load(bytes Uint8Array, inputSize = 0)   → Promise<{summary, runnable, engine 'core' | 'ort' | null, missing,
//                                                     opset, error}> (labs/own-model.js; the bytes are cloned, not
//                                                     transferred: the view keeps them for "Load it again")
//   client.classify({ blob } | { rgba, width, height }, scaling) → Promise<classify result>
//   client.map({ photoId, method, layer, classIndex, options, colormap }) → Promise<map result>
//   client.recolor({ photoId, keys, colormap }) → Promise<{maps: {key: rgba}}> (the maps the worker holds)
//   client.sanity({ photoId, method, layer, classIndex, seed, options, colormap }) → Promise<sanity result>
//   client.runPlan(kind, { photoId, classIndex, params, map, layer, colormap }, onProgress) → { id, promise, cancel() }
//   client.terminate()
// Errors reject with an Error carrying the worker's message; when the worker dies or aborts, every open request
// is rejected and the next call starts a fresh worker, which holds no model (`client.loaded` turns false).
import { hostChannel, hostUrl, HOST_LABS } from './lab-runtime.js';

export class OwnModelClient {
  constructor({ channel = null } = {}) {
    this.channel = channel ?? hostChannel({ name: 'attnlab-own-model', what: 'the worker of your model', workerUrl: hostUrl(HOST_LABS.ownModel) });
    this.loaded = false;
    this.channel.onReplaced(() => { this.loaded = false; });
  }

  async load(bytes, inputSize = 0) {
    const r = await this.channel.request('own.load', { bytes, inputSize }); // structured clone: the view keeps its bytes
    if (r.runnable) this.loaded = true;
    return r;
  }

  classify(source, scaling) {
    const body = source.blob ? { blob: source.blob } : { rgba: source.rgba, width: source.width, height: source.height };
    return this.channel.request('own.classify', { ...body, scaling });
  }

  map({ photoId, method, layer = 'auto', classIndex, options = {}, colormap = 'viridis' }) {
    return this.channel.request('own.map', { photoId, method, layer, classIndex, options, colormap });
  }

  recolor({ photoId, keys, colormap = 'viridis' }) {
    return this.channel.request('own.recolor', { photoId, keys, colormap });
  }

  sanity({ photoId, method, layer = 'auto', classIndex, seed = 1, options = {}, colormap = 'viridis' }) {
    return this.channel.request('own.sanity', { photoId, method, layer, classIndex, seed, options, colormap });
  }

  runPlan(kind, { photoId, classIndex, params = {}, map = null, layer = 'auto', colormap = 'viridis' }, onProgress = null) {
    return this.channel.send('own.plan', { kind, photoId, classIndex, params, layer, colormap, ...(map ? { map } : {}) }, onProgress);
  }

  terminate() {
    this.channel.fail('The client of your model was closed.');
  }
}
