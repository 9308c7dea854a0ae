// jobs.js — the one long job at a time (progress, Cancel): the perturbation maps, deletion / insertion and ROAD, and
// their chart. Part of views/own-model-view.js (installJobs(v) adds startJob, jobProgress, endJob, cancelJob,
// runJob, computePlan, runCurves, keepCurves, drawCurves, curveSteps to v). A curve remembers its map (`map`: the worker's key), so
// "Which method?" (which-method.js) reuses it only for the same map.
import { el } from '../../render/dom.js';
import { renderCurves } from '../../render/image-curves.js';
import { widthOf } from '../../render/plot-lib.js';
import { METHOD } from './methods.js';
import { etaText } from '../../analysis/eta.js';

export function installJobs(v) {
  const { ui } = v;
  // ------------------------------------------------------------ jobs
  function startJob(label, handle) {
    v.job = { label, handle };
    ui.job.hidden = false;
    ui.jobBar.removeAttribute('value');
    ui.jobText.textContent = `${label}: starting…`;
    ui.cancel.disabled = false;
    ui.curvesRun.disabled = true;
    ui.whichRun.disabled = true;
    v.setStatus('busy');
  }
  // A part of a job that has run over 5 s says its time left, from its rate so far (analysis/eta.js).
  function jobProgress(m) {
    if (!v.job || !m.total) return;
    ui.jobBar.max = m.total;
    ui.jobBar.value = m.loaded;
    const now = performance.now();
    if (v.job.part !== v.job.label || m.loaded < (v.job.partDone ?? 0)) Object.assign(v.job, { part: v.job.label, partT0: now, partStart: m.loaded });
    v.job.partDone = m.loaded;
    const left = etaText((now - v.job.partT0) / 1000, m.loaded - v.job.partStart, m.total - v.job.partStart);
    ui.jobText.textContent = `${v.job.label}: ${m.loaded.toLocaleString('en')} / ${m.total.toLocaleString('en')} network passes${left ? ` · ${left}` : ''}`;
    ui.jobText.dataset.eta = left;
  }
  function endJob() {
    v.job = null;
    ui.job.hidden = true;
    ui.curvesRun.disabled = false;
    ui.whichRun.disabled = false;
    v.setStatus(v.model ? 'ready' : 'empty');
  }
  function cancelJob() {
    if (!v.job) return;
    v.job.cancelled = true;
    v.job.handle?.cancel();
    ui.jobText.textContent = `${v.job.label}: cancelling…`;
    ui.cancel.disabled = true;
  }

  async function runJob(label, kind, body) {
    const h = v.client.runPlan(kind, { photoId: v.res.photoId, classIndex: v.classIndex, colormap: v.st.colormap, ...body }, v.jobProgress);
    v.job.label = label; // the progress line names the part running now
    v.job.handle = h;
    if (v.job.cancelled) h.cancel();
    return h.promise;
  }

  async function computePlan(method) {
    if (v.job || !v.res) return;
    const res = v.res;
    const key = v.mapKey(method);
    const params = method === 'rise' ? { n: v.st.risen, seed: v.st.seed } : {};
    v.startJob(METHOD[method].label, null);
    try {
      const r = await v.runJob(METHOD[method].label, method, { params, layer: v.layerOf() });
      v.endJob();
      if (r.cancelled || res !== v.res) return v.renderMap();
      v.maps.set(key, r);
      v.renderMap();
    } catch (e) {
      v.endJob();
      v.showMessage(`${METHOD[method].label} failed: ${e.message}`);
    }
  }

  async function runCurves() {
    if (v.job || !v.res) return;
    const method = v.method();
    const r = v.maps.get(v.mapKey());
    if (!r) {
      v.showNotice(`Compute the ${METHOD[method].label} map first.`);
      return;
    }
    const res = v.res;
    const cls = v.classIndex;
    v.startJob(`Deletion + insertion (${METHOD[method].label})`, null);
    try {
      const out = {};
      const steps = v.curveSteps();
      const runs = [['deletion', { steps }], ['insertion', { steps }],
        ['morf', { order: 'morf' }], ['lerf', { order: 'lerf' }]];
      for (const [name, params] of runs) {
        out[name] = await v.runJob(`${METHOD[method].label} ${name === 'morf' || name === 'lerf' ? `ROAD ${name.toUpperCase()}` : name}`,
          params.order ? 'road' : name, { params: { ...params, ...(params.order ? { seed: v.st.seed } : {}) }, map: r.key });
        if (out[name].cancelled) break;
      }
      v.endJob();
      if (res !== v.res || Object.values(out).some((o) => o.cancelled)) return;
      keepCurves(method, cls, r.key, out, steps);
      v.road = v.road.filter((c) => !(c.cls === cls && c.method === method));
      v.road.push({ method, cls, morf: out.morf, lerf: out.lerf });
      v.drawCurves();
    } catch (e) {
      v.endJob();
      v.showMessage(`Deletion / insertion failed: ${e.message}`);
    }
  }

  // The curves' steps now: the Images card's field (state csteps), read from the store because this view's v.st is
  // refreshed only when the URL is applied.
  const curveSteps = () => v.store.get().csteps;

  // Keeps a finished deletion + insertion pair of (method, class) on map `key`, replacing an earlier pair of the method.
  // A curve remembers its steps (the Images card's csteps when it ran): only those of the current steps are drawn and
  // ranked.
  function keepCurves(method, cls, key, out, steps) {
    v.curves = v.curves.filter((c) => !(c.cls === cls && c.method === method));
    for (const kind of ['deletion', 'insertion']) v.curves.push({ method, kind, cls, map: key, steps, ...out[kind] });
  }

  // The chart of the shown class's curves (and the "Which method?" box, which reads them).
  function drawCurves() {
    v.drawWhichMethod();
    const runs = v.curves.filter((c) => c.cls === v.classIndex && c.steps === v.curveSteps());
    ui.curves.hidden = runs.length === 0;
    if (!runs.length) return;
    renderCurves(ui.curves, runs, { width: widthOf(ui.curves, 640), labelOf: (m) => METHOD[m]?.label ?? m,
      topProb: v.res ? v.res.probs[v.res.top[0]] : NaN, classes: v.model?.summary.classes });
    const road = v.road.filter((c) => c.cls === v.classIndex);
    if (road.length) {
      const p = el('p', 'chart-caption own-road', 'ROAD (Rong et al. 2022; the removed pixels filled by noisy linear imputation from their ' +
        'neighbours, so the shape of the hole tells the model less): mean probability over 10 … 90 % removed — ' +
        road.map((c) => `${METHOD[c.method]?.label ?? c.method}: most relevant first ${c.morf.mean.toFixed(3)} (lower is better), ` +
          `least relevant first ${c.lerf.mean.toFixed(3)} (higher is better)`).join('; ') + '.');
      p.dataset.road = JSON.stringify(road.map((c) => ({ method: c.method, morf: c.morf.mean, lerf: c.lerf.mean })));
      ui.curves.append(p);
    }
  }

  Object.assign(v, { startJob, jobProgress, endJob, cancelJob, runJob, computePlan, runCurves, keepCurves, drawCurves, curveSteps });
}
