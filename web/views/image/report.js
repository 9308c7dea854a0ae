// report.js — the Image view's numbers for "Save report" (views/report-data.js): the photo, the top-5, and every
// map computed for it (per class: its method, parameters, hottest point, pointing game and energy when the photo
// has a mask, and the 0–1 map itself as GRID × GRID block means), the deletion / insertion curves with their
// AUCs, the explanation-as-mask drop, the sanity check and the adversarial-erasing steps shown. Maps never
// computed are not listed. Part of views/image-view.js (imageReportData(v) reads the view context v).
import { METHOD } from './methods.js';

const round = (x, d = 6) => (Number.isFinite(x) ? Number(x.toFixed(d)) : null);

// Plain data: typed arrays as rounded number lists, RGBA pictures left out.
function plain(x, key = '') {
  if (key === 'rgba' || key === 'display' || key === 'maskDisplay') return undefined;
  if (ArrayBuffer.isView(x)) return Array.from(x, (v) => round(v));
  if (Array.isArray(x)) return x.map((e) => plain(e));
  if (x && typeof x === 'object') {
    const o = {};
    for (const [k, v] of Object.entries(x)) {
      const p = plain(v, k);
      if (p !== undefined) o[k] = p;
    }
    return o;
  }
  return typeof x === 'number' ? round(x) : x;
}

export function imageReportData(v) {
  const p = v.photo;
  if (!p) return null;
  const maps = [];
  for (const [key, r] of v.maps) {
    const [cls, method, params] = key.split('|');
    const c = Number(cls);
    const m = { method, label: METHOD[method]?.label ?? method, class: c, classLabel: v.labelOf(c), params: params || undefined, peak: plain(r.peak) };
    if (r.pointing) {
      m.pointing = plain(r.pointing);
      const ch = v.chanceOf(r.pointing.tolerance);
      if (ch) m.pointingChance = round(ch.chance);
    }
    if (r.grid) {
      const size = Math.round(Math.sqrt(r.grid.length));
      m.grid = { size, cell: 224 / size, values: Array.from(r.grid, (x) => round(x, 4)) };
    }
    maps.push(m);
  }
  const out = {
    photo: { key: p.key, title: p.title, width: p.res.width, height: p.res.height },
    model: v.info ? { backend: v.info.backend, ep: v.info.ep } : undefined,
    explainedClass: { index: v.classIndex, label: v.labelOf(v.classIndex) },
    top5: p.res.top5.map((t) => ({ index: t.index, label: t.label, prob: round(t.prob) })),
    maps,
  };
  if (v.curves.length) {
    out.curves = v.curves.map((c) => ({ method: c.method, kind: c.kind, class: c.cls, steps: c.steps, auc: round(c.auc), x: plain(c.x), y: plain(c.y) }));
  }
  if (v.extra.size) {
    out.explanationMask = [...v.extra].map(([key, r]) => {
      const [cls, method] = key.split('|');
      return { method, class: Number(cls), original: round(r.original), masked: round(r.masked) };
    });
  }
  if (v.sanityResult) out.sanity = plain(v.sanityResult);
  if (v.eraseResult) out.erasing = plain(v.eraseResult);
  return { image: out };
}
