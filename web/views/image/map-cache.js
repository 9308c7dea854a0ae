// map-cache.js — the Image view's maps of the current photo and class: a cache keyed by class, method and
// parameters; fast maps (one request each, shared while in flight), the slow perturbation maps as jobs with
// progress and Cancel, recolouring the maps it holds, and drawing the main overlay. Part of views/image-view.js
// (installMapCache(v) adds paramKey, mapKey, fastMap, slowParams, passesOf, computeSlow, mapFor, redrawMain,
// redrawCanvases, labelOf to the view context v).
import { drawOverlay } from '../../render/image-canvas.js';
import { METHOD } from './methods.js';

export function installMapCache(v) {
  const { canvas, opacityText } = v.ui;
  // ------------------------------------------------------------ maps
  const labelOf = (i) => v.info?.labels?.[i] ?? `class ${i}`;

  function paramKey(method) {
    if (method === 'rise') return `n${v.st.risen}s${v.st.seed}`;
    if (method === 'random') return `s${v.st.seed}`;
    return '';
  }
  const mapKey = (method) => `${v.classIndex}|${method}|${v.paramKey(method)}`;

  function fastMap(method) {
    const key = v.mapKey(method);
    if (v.maps.has(key)) return Promise.resolve(v.maps.get(key));
    if (v.inflight.has(key)) return v.inflight.get(key);
    const p = v.photo;
    const req = v.client.map({ imageId: p.res.imageId, method, classIndex: v.classIndex, seed: v.st.seed, colormap: v.st.colormap }).then((r) => {
      if (p !== v.photo) return null;
      v.maps.set(key, r);
      return r;
    }).finally(() => v.inflight.delete(key));
    v.inflight.set(key, req);
    return req;
  }

  function slowParams(method) {
    const p = { ...METHOD[method].params }; // the catalogue's defaults, then what the URL sets
    if (method === 'rise') Object.assign(p, { n: v.st.risen, seed: v.st.seed });
    return p;
  }
  // Network passes, by the catalogue's rule: a parameter's value (RISE: n) or the count at the defaults.
  function passesOf(method) {
    const m = METHOD[method];
    const p = v.slowParams(method);
    return Number.isFinite(p[m.passes]) ? p[m.passes] : m.passesDefault;
  }

  function computeSlow(method) {
    if (v.job || !v.photo) return;
    const key = v.mapKey(method);
    const p = v.photo;
    const h = v.client.runPlan(method, { imageId: p.res.imageId, classIndex: v.classIndex, params: v.slowParams(method), colormap: v.st.colormap },
      (m) => v.jobProgress(m, `${METHOD[method].label}: network passes`));
    v.startJob(METHOD[method].label, [h], method);
    h.promise.then((r) => {
      v.endJob();
      if (p !== v.photo || r.cancelled) return;
      v.maps.set(key, r);
      v.renderMain();
      v.renderGrid();
    }, (e) => {
      v.endJob();
      v.showMessage(`${METHOD[method].label} failed: ${e.message}`);
    });
  }

  async function mapFor(method) {
    const key = v.mapKey(method);
    if (v.maps.has(key)) return v.maps.get(key);
    if (METHOD[method].fast) return v.fastMap(method);
    return null;
  }

  function redrawMain() {
    if (!v.photo) return;
    const r = v.maps.get(v.mapKey(v.st.method));
    drawOverlay(canvas, v.photo.res.display, r?.rgba ?? null, v.st.opacity / 100);
  }

  function redrawCanvases() {
    opacityText.textContent = `${v.st.opacity} %`;
    v.redrawMain();
    v.renderGrid();
  }
  Object.assign(v, { labelOf, paramKey, mapKey, fastMap, slowParams, passesOf, computeSlow, mapFor, redrawMain, redrawCanvases });
}
