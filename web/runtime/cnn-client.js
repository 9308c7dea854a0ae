// cnn-client.js — main-thread wrapper around cnn-worker.js: one promise per request, progress callbacks,
// cancel. No DOM.
//
// Contract:
//   const client = new CnnClient({ workerUrl?, WorkerImpl? })
//   client.train(options, { stepBatches, probesEvery }, onProgress) → { id, promise, cancel() }
//       onProgress(msg): msg.kind 'step' {progress, imagesPerSecond} | 'epoch' {progress, probes}
//       promise → {cancelled, epochsDone, history, seconds, trainSeconds, images, imagesPerSecond}
//   client.probes() / client.metrics(n) / client.erase({k, threshold, n, keep}) / client.download()
//   client.load(configText, weightsBytes) → Promise (see cnn-worker.js)
//   client.terminate()
// Errors reject with an Error carrying the worker's message. If the worker dies, every open request is
// rejected with a readable message and the next call starts a fresh worker (with no model).
import { WorkerChannel } from './worker-channel.js';

const WORKER_URL = new URL('./cnn-worker.js', import.meta.url);

export class CnnClient extends WorkerChannel {
  constructor({ workerUrl = WORKER_URL, WorkerImpl = globalThis.Worker } = {}) {
    super({ workerUrl, WorkerImpl, name: 'attnlab-cnn', what: 'the training worker' });
  }

  train(options, { stepBatches = 2, probesEvery = 'epoch' } = {}, onProgress = null) {
    return this.send('train', { options, stepBatches, probesEvery }, onProgress);
  }

  probes() { return this.send('probes').promise; }
  metrics(n = 0) { return this.send('metrics', { n }).promise; }
  erase({ k = 3, threshold = 0.5, n = 200, keep = 4 } = {}) { return this.send('erase', { k, threshold, n, keep }).promise; }
  download() { return this.send('download').promise; }
  load(config, weights) { return this.send('load', { config, weights }).promise; }

  terminate() {
    this.fail('The training client was closed.');
  }
}
