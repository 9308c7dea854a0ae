// which-method.js — pure: ranks the explanation methods of one ERASER row (DeYoung et al. 2020) by a chosen
// faithfulness metric, for the "Which method?" view of the live ERASER panel.
//
// Contract:
//   METRICS                     — { comprehensiveness: {key, better: 'higher'}, sufficiency: {key, better: 'lower'} }
//   rankMethods(measures, metric) → { ranked: [{ measure, value, rank }], best, random, beatRandom, scored }
//     measures: the row's `measures` object ({NAME: {aopc_comprehensiveness, aopc_sufficiency, ...}}); metric: a
//     METRICS key (anything else: comprehensiveness). ranked: every measure with a finite value, most faithful first
//     (ties share a rank, then keep the given order); measures without a finite value follow with rank null.
//     best: the most faithful method other than random (null when none); random: random's entry (null when absent);
//     beatRandom: how many methods other than random are strictly more faithful than random; scored: how many
//     methods other than random have a value.
export const METRICS = Object.freeze({
  comprehensiveness: Object.freeze({ key: 'aopc_comprehensiveness', better: 'higher' }),
  sufficiency: Object.freeze({ key: 'aopc_sufficiency', better: 'lower' }),
});

export function rankMethods(measures, metric) {
  const m = METRICS[metric] ?? METRICS.comprehensiveness;
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
