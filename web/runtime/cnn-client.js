// cnn-client.js — the Localization lab's requests (labs/localization.js), over a WorkerChannel to a host
// worker. No DOM.
//
// Contract:
//   const client = new CnnClient({ channel?, workerUrl?, WorkerImpl? })   (its own host worker by default)
//   client.train(options, { stepBatches, probesEvery }, onProgress) → { id, promise, cancel() }
//       onProgress(msg): msg.kind 'step' {progress, imagesPerSecond} | 'epoch' {progress, probes}
//       promise → {cancelled, epochsDone, history, seconds, trainSeconds, images, imagesPerSecond}
//   client.probes() / client.metrics(n) / client.erase({k, threshold, n, keep}) / client.download()
//   client.load(configText, weightsBytes) → Promise
//   client.terminate()
// Errors reject with an Error carrying the worker's message. If the worker dies or aborts, every open request
// is rejected with a readable message and the next call starts a fresh worker (with no model).
import { hostChannel, hostUrl, HOST_LABS } from './lab-runtime.js';

export class CnnClient {
  constructor({ channel = null, workerUrl, WorkerImpl } = {}) {
    this.channel = channel ?? hostChannel({ name: 'attnlab-cnn', what: 'the training worker', workerUrl: workerUrl ?? hostUrl(HOST_LABS.text), ...(WorkerImpl ? { WorkerImpl } : {}) });
  }

  train(options, { stepBatches = 2, probesEvery = 'epoch' } = {}, onProgress = null) {
    return this.channel.send('cnn.train', { options, stepBatches, probesEvery }, onProgress);
  }

  probes() { return this.channel.request('cnn.probes'); }
  metrics(n = 0) { return this.channel.request('cnn.metrics', { n }); }
  erase({ k = 3, threshold = 0.5, n = 200, keep = 4 } = {}) { return this.channel.request('cnn.erase', { k, threshold, n, keep }); }
  download() { return this.channel.request('cnn.download'); }
  load(config, weights) { return this.channel.request('cnn.load', { config, weights }); }

  terminate() {
    this.channel.fail('The training client was closed.');
  }
}
