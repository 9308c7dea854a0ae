// boot.js — the page's first module (index.html loads it `async`, with its few imports preloaded): on a cold open it
// starts what the first screen waits for while the page's other modules (≈ 100 files) are still loading, and shows
// what is loading, so the page is never dead (docs/BENCHMARKS.md "Cold start" has the timings).
//
// Contract (runs once, on load; exports nothing):
//   Reads the view from the link (state.js parse, as app.js does) and shows that view's section at once.
//   text:  starts the core's host worker (lab-runtime prestartHost 'attnlab-core': the worker's modules, the core's
//          wasm compile) and asks it to preload the model list and the link's model (labs/text.js `preload`); the
//          app's CoreClient takes that channel over. #text-status says what is loading until the view takes over.
//   image: starts the image host worker ('attnlab-image') and its image.load with the backend and threads the view
//          will ask for (the view's request joins that load: labs/image-model.js); #image-load-row shows it.
//   documents, global, debate, train, localization: start the core's host worker (its core compiles) only.
//   Anything that fails here is left to the views: they make the same requests and show their errors.
import { parse } from '../state.js';
import { prestartHost } from './lab-runtime.js';
import { parseBackendOverride } from './ort-backend.js';

const CORE_VIEWS = ['text', 'documents', 'global', 'debate', 'train', 'localization'];

// The status lines say this until the view's own code takes over (its first message replaces it).
const STAGE_TEXT = {
  core: 'Compiling the WebAssembly core…',
  config: 'Loading the model configuration…',
  verify: 'Checking the model files…',
  init: 'Initialising the model…',
};

// When the document is parsed ('interactive'): before the deferred scripts and app.js run (DOMContentLoaded waits
// for them), so the view shows while the page's modules still load.
function whenParsed(fn) {
  if (document.readyState === 'loading') document.addEventListener('readystatechange', fn, { once: true });
  else fn();
}

function mb(bytes) {
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

function boot() {
  let state;
  try {
    state = parse(location.hash);
  } catch {
    return; // app.js reads the link again and says what is wrong
  }
  const view = state.view;
  whenParsed(() => {
    const section = document.querySelector(`main > .view[data-view="${view}"]`);
    if (section) section.hidden = false; // app.js's showView() shows the same section
  });

  if (view === 'image') {
    const channel = prestartHost({ name: 'attnlab-image', what: 'the image worker' });
    const override = state.backend === 'wasm' || state.backend === 'webgpu' ? state.backend : parseBackendOverride(location.search);
    channel.send('image.load', { override, threads: state.threads }, (p) => {
      const text = document.getElementById('image-load-text');
      if (!text || channel.claimed) return; // the view's own load request shows its progress now
      text.parentElement.hidden = false;
      const what = { onnx: 'the image model', head: 'the classifier head', labels: 'the labels' }[p.stage];
      const bar = document.getElementById('image-load-progress');
      if (what && p.total && bar) {
        bar.max = p.total;
        bar.value = p.loaded;
      } else bar?.removeAttribute('value');
      if (what && p.total) text.textContent = `Downloading ${what}: ${mb(p.loaded)} / ${mb(p.total)}…`;
      else if (p.stage === 'core') text.textContent = 'Compiling the WebAssembly core…';
      else if (p.stage === 'session') text.textContent = 'Starting ONNX Runtime…';
    }).promise.then(() => {
      const text = document.getElementById('image-load-text');
      if (text && !channel.claimed) text.textContent = 'The image model is ready; starting the page…';
    }, () => {});
    whenParsed(() => {
      const row = document.getElementById('image-load-row');
      const text = document.getElementById('image-load-text');
      if (row && text && !channel.claimed) {
        row.hidden = false;
        if (!text.textContent) text.textContent = 'Starting the image worker…';
      }
    });
    return;
  }
  if (!CORE_VIEWS.includes(view)) return;
  const channel = prestartHost({ name: 'attnlab-core', what: 'the background worker' });
  if (view !== 'text') {
    channel.send('manifest').promise.catch(() => {}); // starts the worker (and with it the core's compile)
    return;
  }
  // Progress before the app's CoreClient takes the channel over (it sets onEvent itself).
  const status = () => {
    const el = document.getElementById('text-status');
    const section = document.getElementById('view-text');
    return el && section?.dataset.status === 'loading' ? el : null;
  };
  channel.onEvent = (msg) => {
    if (msg?.type !== 'progress') return;
    const el = status();
    if (!el) return;
    if (msg.stage === 'weights' && msg.total > 0) el.textContent = `Loading ${msg.model}: ${Math.round((100 * msg.loaded) / msg.total)} % of ${mb(msg.total)}…`;
    else if (STAGE_TEXT[msg.stage]) el.textContent = STAGE_TEXT[msg.stage];
  };
  channel.send('preload', { model: state.model }).promise.catch(() => {});
  whenParsed(() => {
    const el = status();
    if (el && !el.textContent) el.textContent = 'Starting the WebAssembly core…';
  });
}

boot();
