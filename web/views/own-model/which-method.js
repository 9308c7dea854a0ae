// which-method.js — "Your model"'s "Which method?": every map the model runs without perturbation passes (the
// CAM family at the chosen layer, the input gradients, a transformer's attention maps), every perturbation map already
// computed for this class, and the random baseline (catalogue.onnx 'random', over the layer's grid) scored on the photo
// by deletion and insertion (RISE's protocol, st.csteps steps) and ranked (render/image-which-method.js, as on the
// Images tab). Curves already run for the same map are reused. One job: progress with time left, Cancel keeps the maps
// scored so far; a method that gives no map here (CAM without a GAP + linear head) is named with its reason.
// Part of views/own-model-view.js (installWhichMethod(v) adds runWhichMethod and drawWhichMethod to v).
import { renderWhichMethod } from '../../render/image-which-method.js';
import { curveMeasures } from '../../analysis/which-method.js';
import { OWN_METHODS, METHOD, methodAvailable } from './methods.js';

export function installWhichMethod(v) {
  const { ui } = v;

  // The maps to score: the direct ones this model runs, the perturbation maps computed for this class, random last.
  function candidates() {
    const ok = (m) => methodAvailable(m.name, v.model?.engine, v.model?.summary?.attention?.length);
    const direct = OWN_METHODS.filter((m) => m.kind !== 'plan' && m.name !== 'random' && ok(m)).map((m) => m.name);
    const plans = OWN_METHODS.filter((m) => m.kind === 'plan' && v.maps.has(v.mapKey(m.name))).map((m) => m.name);
    return [...direct, ...plans, ...(methodAvailable('random', v.model?.engine) ? ['random'] : [])];
  }

  function drawWhichMethod() {
    const w = v.which;
    if (!w || w.res !== v.res || w.cls !== v.classIndex || w.layer !== v.layerOf()) {
      ui.which.replaceChildren();
      return;
    }
    const keys = new Set(w.maps);
    const steps = v.curveSteps();
    const measures = curveMeasures(v.curves.filter((c) => keys.has(c.map) && c.steps === steps), w.cls);
    const noBaseline = v.model?.engine === 'ort'
      ? 'No random baseline: it is drawn over a layer’s grid, and ONNX Runtime Web gives no layers.' : '';
    renderWhichMethod(ui.which, measures, { labelOf: (m) => METHOD[m]?.label ?? m, classLabel: v.labelOf(w.cls),
      note: [...w.notes, noBaseline].filter(Boolean).join(' ') });
  }

  async function runWhichMethod() {
    if (v.job || !v.res) return;
    const res = v.res;
    const cls = v.classIndex;
    const methods = candidates();
    if (!methods.length) { // a model ONNX Runtime Web runs, with no perturbation map computed yet
      v.showNotice('Nothing to rank yet: this model runs only RISE and occlusion here. Compute one of them first, then ask again.');
      return;
    }
    const steps = v.curveSteps();
    v.which = { res, cls, layer: v.layerOf(), maps: [], notes: [] };
    v.startJob('Which method?', null);
    let stopped = '';
    try {
      for (const [i, method] of methods.entries()) {
        if (v.job?.cancelled || res !== v.res) break;
        const label = METHOD[method].label;
        let r;
        try {
          v.job.label = `${i + 1} of ${methods.length}: ${label} map`;
          ui.jobText.textContent = `${v.job.label}…`;
          r = await v.mapOf(method, cls);
        } catch (e) {
          if (res !== v.res) break;
          v.which.notes.push(`${label}: no map (${e.message.replace(/\.$/, '')}).`);
          continue;
        }
        if (!r || res !== v.res) continue;
        const have = new Set(v.curves.filter((c) => c.cls === cls && c.map === r.key && c.steps === steps).map((c) => c.kind));
        if (!(have.has('deletion') && have.has('insertion'))) {
          const out = {};
          for (const kind of ['deletion', 'insertion']) {
            out[kind] = await v.runJob(`${i + 1} of ${methods.length}: ${label} ${kind}`, kind,
              { params: { steps }, map: r.key });
            if (out[kind].cancelled) break;
          }
          if (res !== v.res) break;
          if (out.deletion?.cancelled || out.insertion?.cancelled) {
            stopped = label;
            break;
          }
          v.keepCurves(method, cls, r.key, out, steps);
        }
        v.which.maps.push(r.key);
      }
      const cancelled = Boolean(stopped || v.job?.cancelled);
      v.endJob();
      if (res !== v.res) return;
      if (cancelled) v.which.notes.unshift(`Cancelled${stopped ? ` during ${stopped}` : ''}: ${v.which.maps.length} of ${methods.length} maps scored.`);
      v.drawCurves();
    } catch (e) {
      v.endJob();
      v.showMessage(`Which method? failed: ${e.message}`);
    }
  }
  Object.assign(v, { runWhichMethod, drawWhichMethod });
}
