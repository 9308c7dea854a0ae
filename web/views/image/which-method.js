// which-method.js — the Image view's "Which method?": every map scored on the shown photo and class by RISE's
// deletion and insertion curves, then ranked (render/image-which-method.js). One job: the fast maps (CAM, Grad-CAM,
// Grad-CAM++, the random baseline) and every slow map already computed for this class; a pair of curves already run
// for a map at the current steps (st.csteps) is reused, not run again. Cancel keeps the maps scored so far. Part of views/image-view.js
// (installWhichMethod(v) adds runWhichMethod and drawWhichMethod to v).
import { renderWhichMethod } from '../../render/image-which-method.js';
import { curveMeasures } from '../../analysis/which-method.js';
import { METHODS, METHOD } from './methods.js';

export function installWhichMethod(v) {
  const { whichEl } = v.ui;

  // The maps to score now: fast ones always, slow ones when their map for this class exists (random last: the baseline).
  function candidates() {
    const fast = METHODS.filter((m) => m.fast && m.key !== 'random').map((m) => m.key);
    const slow = METHODS.filter((m) => !m.fast && v.maps.has(v.mapKey(m.key))).map((m) => m.key);
    return [...fast, ...slow, 'random'];
  }

  function drawWhichMethod() {
    if (!v.photo || !v.which || v.which.cls !== v.classIndex || v.which.photo !== v.photo) {
      whichEl.replaceChildren();
      return;
    }
    const scored = new Set(v.which.methods);
    const all = curveMeasures(v.curves.filter((c) => c.steps === v.st.csteps), v.classIndex);
    const measures = Object.fromEntries(Object.entries(all).filter(([m]) => scored.has(m)));
    const slowLeft = METHODS.filter((m) => !m.fast && !scored.has(m.key)).map((m) => m.label);
    const left = slowLeft.length ? `Not scored: ${slowLeft.join(', ')} (slow maps: compute one in the grid above, then ask again).` : '';
    renderWhichMethod(whichEl, measures, { labelOf: (m) => METHOD[m]?.label ?? m, classLabel: v.labelOf(v.classIndex),
      note: [v.which.note, left].filter(Boolean).join(' ') });
  }

  async function runWhichMethod() {
    if (v.job || !v.photo) return;
    const p = v.photo;
    const cls = v.classIndex;
    const methods = candidates();
    const handles = [];
    v.which = { photo: p, cls, methods: [], note: '' };
    v.startJob('Which method?', handles, 'which');
    let stopped = '';
    try {
      for (const [i, method] of methods.entries()) {
        if (v.job?.cancelled || p !== v.photo) break;
        const have = new Set(v.curves.filter((c) => c.cls === cls && c.method === method && c.steps === v.st.csteps).map((c) => c.kind));
        if (!(have.has('deletion') && have.has('insertion'))) {
          const r = await v.mapFor(method);
          if (!r) continue; // a slow map dropped meanwhile
          const out = await v.curvePlans(method, r, ['deletion', 'insertion'], handles, `${i + 1} of ${methods.length}: `);
          if (p !== v.photo) break;
          if (out.deletion?.cancelled || out.insertion?.cancelled) {
            stopped = METHOD[method].label;
            break;
          }
          v.keepCurves(method, cls, out);
        }
        v.which.methods.push(method);
      }
      v.endJob();
      if (p !== v.photo) return;
      const done = v.which.methods.length;
      if (done < methods.length) v.which.note = `Cancelled${stopped ? ` during ${stopped}` : ''}: ${done} of ${methods.length} maps scored.`;
      v.drawCurves();
      drawWhichMethod();
    } catch (e) {
      v.endJob();
      v.showMessage(`Which method? failed: ${e.message}`);
    }
  }
  Object.assign(v, { runWhichMethod, drawWhichMethod });
}
