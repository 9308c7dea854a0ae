// worker.js — the one worker script of the lab runtime: the host (host.js) with the labs' handlers. The page
// starts it through a WorkerChannel (runtime/lab-runtime.js); a data-set run starts more of it (runtime/pool.js).
// A new lab adds its handler module to LAB_MODULES, and its name to lab-runtime.js HOST_LABS for the hosts that serve it.
// A host imports the labs its URL names (`?labs=image,runtime`: lab-runtime hostUrl), or all of them: the image host
// imports 2 of the 10 labs, so a cold open of the Images tab does not wait for the text and training labs' modules.
// The core starts compiling at once, while the labs' modules load; requests that arrive meanwhile wait (startHost).
import { startHost } from './host.js';
import { loadCore, interruptWord } from './core.js';
import { meterOn, meterWorker } from './meter.js';

export const LAB_MODULES = {
  text: () => import('../labs/text.js').then((m) => m.textLab),
  experiments: () => import('../labs/experiments.js').then((m) => m.experimentsLab),
  train: () => import('../labs/train.js').then((m) => m.trainLab),
  image: () => import('../labs/image.js').then((m) => m.imageLab),
  localization: () => import('../labs/localization.js').then((m) => m.localizationLab),
  ownModel: () => import('../labs/own-model.js').then((m) => m.ownModelLab),
  ownText: () => import('../labs/own-text.js').then((m) => m.ownTextLab),
  documents: () => import('../labs/documents.js').then((m) => m.documentsLab),
  globalView: () => import('../labs/global-view.js').then((m) => m.globalViewLab),
  runtime: () => import('../labs/runtime.js').then((m) => m.runtimeLab),
};

// The labs named by the URL's labs=, or every lab. An unknown name makes every request's answer say so (startHost).
export function labNames(search) {
  const asked = new URLSearchParams(search).get('labs');
  return asked ? asked.split(',').filter(Boolean) : Object.keys(LAB_MODULES);
}

if (globalThis.WorkerGlobalScope && globalThis instanceof globalThis.WorkerGlobalScope) {
  if (meterOn()) meterWorker(); // measurement only (meter.js)
  const names = labNames(self.location.search);
  startHost(Promise.all(names.map((n) => (LAB_MODULES[n]
    ? LAB_MODULES[n]()
    : Promise.reject(new Error(`this worker was asked for an unknown lab "${n}"`))))));
  // Start compiling the core at once (errors surface with the first request); once it is in, tell the page where its
  // interrupt word is (worker-channel.js writes it before terminate()).
  loadCore().then((Module) => {
    const interrupt = interruptWord(Module);
    if (interrupt) self.postMessage({ type: 'progress', id: 0, interrupt });
  }).catch(() => {});
}
