// which-method.js — pure: ranks explanation methods by a chosen faithfulness metric, for the "Which method?" views:
// the live ERASER panel of a sentence (DeYoung et al. 2020: AOPC comprehensiveness / sufficiency) and the Images tab's
// photo (RISE's deletion / insertion AUCs of every map).
//
// Contract:
//   METRICS                     — { comprehensiveness: {key, better: 'higher'}, sufficiency: {key, better: 'lower'} }
//   IMAGE_METRICS               — { deletion: {key: 'deletion_auc', better: 'lower'}, insertion: {key: 'insertion_auc',
//                                   better: 'higher'} }
//   rankMethods(measures, metric, metrics = METRICS) → { ranked: [{ measure, value, rank }], best, random, beatRandom,
//     scored }
//     measures: {NAME: {<metric key>: number, ...}} (an ERASER row's `measures`, or curveMeasures' output); metric: a
//     key of `metrics` (anything else: its first). ranked: every measure with a finite value, most faithful first
//     (ties share a rank, then keep the given order); measures without a finite value follow with rank null.
//     best: the most faithful method other than random (null when none); random: random's entry (null when absent);
//     beatRandom: how many methods other than random are strictly more faithful than random; scored: how many
//     methods other than random have a value.
//   curveMeasures(curves, cls) → {method: {deletion_auc, insertion_auc}}: the Images tab's curves
//     ([{method, kind, cls, auc}]) of class cls, in the order their methods first appear (NaN where a kind is missing).
export const METRICS = Object.freeze({
  comprehensiveness: Object.freeze({ key: 'aopc_comprehensiveness', better: 'higher' }),
  sufficiency: Object.freeze({ key: 'aopc_sufficiency', better: 'lower' }),
});

export const IMAGE_METRICS = Object.freeze({
  deletion: Object.freeze({ key: 'deletion_auc', better: 'lower' }),
  insertion: Object.freeze({ key: 'insertion_auc', better: 'higher' }),
});

export function curveMeasures(curves, cls) {
  const out = {};
  for (const c of Array.isArray(curves) ? curves : []) {
    if (c?.cls !== cls || (c.kind !== 'deletion' && c.kind !== 'insertion')) continue;
    out[c.method] ??= { deletion_auc: NaN, insertion_auc: NaN };
    out[c.method][`${c.kind}_auc`] = typeof c.auc === 'number' ? c.auc : NaN;
  }
  return out;
}

export function rankMethods(measures, metric, metrics = METRICS) {
  const m = metrics[metric] ?? Object.values(metrics)[0];
  const entries = Object.keys(measures && typeof measures === 'object' ? measures : {})
    .map((measure, i) => {
      const v = measures[measure]?.[m.key];
      return { measure, i, value: typeof v === 'number' ? v : NaN };  // null (JSON's NaN) is no value, not 0
    });
  const finite = entries.filter((e) => Number.isFinite(e.value));
  const sign = m.better === 'higher' ? -1 : 1;
  finite.sort((a, b) => sign * (a.value - b.value) || a.i - b.i);
  const ranked = [];
  finite.forEach((e, k) => {
    const rank = k > 0 && e.value === finite[k - 1].value ? ranked[k - 1].rank : k + 1;
    ranked.push({ measure: e.measure, value: e.value, rank });
  });
  for (const e of entries) if (!Number.isFinite(e.value)) ranked.push({ measure: e.measure, value: NaN, rank: null });
  const random = ranked.find((r) => r.measure === 'random') ?? null;
  const others = ranked.filter((r) => r.measure !== 'random' && r.rank !== null);
  const better = (a, b) => (m.better === 'higher' ? a > b : a < b);
  return {
    ranked,
    best: others[0] ?? null,
    random,
    beatRandom: random && Number.isFinite(random.value) ? others.filter((r) => better(r.value, random.value)).length : 0,
    scored: others.length,
  };
}
