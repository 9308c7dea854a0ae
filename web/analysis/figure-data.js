// figure-data.js — experiment rows → the plain records each debate figure draws. Pure; no DOM.
// Rows are read defensively: rows with `skipped` or `error`, and fields that are missing or not finite
// numbers, are left out (never an exception).
//
// Contract:
//   usedRows(rows)                 → the rows that are objects without `skipped` / `error`
//   classOf(row)                   → the gold `label` when it is a non-negative integer, else `predicted`,
//                                    else null (live text has no label)
//   kendallRecords(rows)           → [{ measure: 'gradient' | 'leave_one_out', tau, cls }]
//   kendallReadingMeans(rows)      → [{ reading, against: 'gradient' | 'leave_one_out' | 'attention', tau, n }]: the
//                                    mean defined τ of attention (the row's own τ) and of each later reading
//                                    (row.readings[NAME], core/experiments/kendall.cpp; a reading also against
//                                    attention), attention first, then the readings as the rows list them; [] when
//                                    no row has readings
//   valueRecords(rows, key)        → [{ value: row[key], cls }]
//   pointRecords(rows, xKey, yKey) → [{ x, y, cls }]
//   rankingKeys(rows, preferred)   → the keys whose values are {fraction, …} objects, `preferred` order first
//   flipRecords(rows, rankings)    → [{ ranking, fraction, flipped, removed }]
//   flipRates(rows, rankings)      → { ranking: { n, flip_rate, fraction_mean } }
//   eraserMeans(rows, measures)    → [{ measure, n, aopc_comprehensiveness, aopc_sufficiency,
//                                        comprehensiveness: [k], sufficiency: [k] }] (means over used rows)
//   plausibilityMeans(rows, measures) → [{ measure, n, token_f1, auprc }] (means over used rows)
//   randomizationMeans(rows)       → [{ stage, stageIndex, measure, spearman, n }] (means of the defined ρ)
//   flowMeans(rows)                → [{ layer (1-based), map: 'raw' | 'rollout' | 'flow', against: 'blankout' |
//                                        'gradient', rho, n }]: mean Spearman per layer of the attention-flow rows
//                                        (row[`${map}_${against}`][layer − 1]; undefined ρ left out)
//   headAblation(rows)             → { n, base, single: [{ head: 'L.H', layer, accuracy, change }],
//                                      curve: [{ removed, accuracy }] } from head-ablation rows with a gold label
//                                      (accuracy = share of rows whose prediction equals the label; the core's
//                                      summary computes the same)
import { mean } from './histogram.js';

const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

export function usedRows(rows) {
  return (Array.isArray(rows) ? rows : []).filter((r) => r && typeof r === 'object' && !r.skipped && !r.error);
}

export function classOf(row) {
  if (Number.isInteger(row?.label) && row.label >= 0) return row.label;
  if (Number.isInteger(row?.predicted)) return row.predicted;
  return null;
}

export function kendallRecords(rows) {
  const out = [];
  for (const r of usedRows(rows)) {
    const cls = classOf(r);
    if (isNum(r.tau_gradient)) out.push({ measure: 'gradient', tau: r.tau_gradient, cls });
    if (isNum(r.tau_loo)) out.push({ measure: 'leave_one_out', tau: r.tau_loo, cls });
  }
  return out;
}

export function kendallReadingMeans(rows) {
  const used = usedRows(rows);
  const names = [];
  for (const r of used) {
    if (!r.readings || typeof r.readings !== 'object') continue;
    for (const k of Object.keys(r.readings)) if (!names.includes(k)) names.push(k);
  }
  if (!names.length) return [];
  const out = [];
  for (const reading of ['attention', ...names]) {
    const part = (r) => (reading === 'attention' ? r : r.readings?.[reading]);
    const againstKeys = [['gradient', 'tau_gradient'], ['leave_one_out', 'tau_loo'], ...(reading === 'attention' ? [] : [['attention', 'tau_attention']])];
    for (const [against, key] of againstKeys) {
      const taus = used.map((r) => part(r)?.[key]).filter(isNum);
      if (taus.length) out.push({ reading, against, tau: mean(taus), n: taus.length });
    }
  }
  return out;
}

export function valueRecords(rows, key) {
  return usedRows(rows).filter((r) => isNum(r[key])).map((r) => ({ value: r[key], cls: classOf(r) }));
}

export function pointRecords(rows, xKey, yKey) {
  return usedRows(rows)
    .filter((r) => isNum(r[xKey]) && isNum(r[yKey]))
    .map((r) => ({ x: r[xKey], y: r[yKey], cls: classOf(r) }));
}

const isRanking = (v) => v && typeof v === 'object' && !Array.isArray(v) && 'fraction' in v;

export function rankingKeys(rows, preferred = []) {
  const seen = new Set();
  for (const r of usedRows(rows)) for (const [k, v] of Object.entries(r)) if (isRanking(v)) seen.add(k);
  return [...preferred.filter((k) => seen.has(k)), ...[...seen].filter((k) => !preferred.includes(k))];
}

export function flipRecords(rows, rankings) {
  const out = [];
  for (const r of usedRows(rows)) {
    for (const k of rankings) {
      const v = r[k];
      if (isRanking(v) && isNum(v.fraction)) out.push({ ranking: k, fraction: v.fraction, flipped: Boolean(v.flipped), removed: v.removed });
    }
  }
  return out;
}

export function flipRates(rows, rankings) {
  const out = {};
  const recs = flipRecords(rows, rankings);
  for (const k of rankings) {
    const mine = recs.filter((x) => x.ranking === k);
    out[k] = {
      n: mine.length,
      flip_rate: mine.length ? mine.filter((x) => x.flipped).length / mine.length : NaN,
      fraction_mean: mean(mine.map((x) => x.fraction)),
    };
  }
  return out;
}

function meanArrays(arrays) {
  const ok = arrays.filter((a) => Array.isArray(a));
  const len = Math.max(0, ...ok.map((a) => a.length));
  return Array.from({ length: len }, (_, i) => mean(ok.map((a) => a[i])));
}

// Per measure (those of `measures` first, then any other a row has): the rows' row.measures[m] objects.
function measureObjects(rows, measures) {
  const used = usedRows(rows).filter((r) => r.measures && typeof r.measures === 'object');
  const names = [...measures];
  for (const r of used) for (const m of Object.keys(r.measures)) if (!names.includes(m)) names.push(m);
  return names
    .map((m) => ({ measure: m, ms: used.map((r) => r.measures[m]).filter((x) => x && typeof x === 'object') }))
    .filter((x) => x.ms.length > 0);
}

export function eraserMeans(rows, measures) {
  return measureObjects(rows, measures).map(({ measure, ms }) => ({
    measure,
    n: ms.length,
    aopc_comprehensiveness: mean(ms.map((x) => x.aopc_comprehensiveness)),
    aopc_sufficiency: mean(ms.map((x) => x.aopc_sufficiency)),
    comprehensiveness: meanArrays(ms.map((x) => x.comprehensiveness)),
    sufficiency: meanArrays(ms.map((x) => x.sufficiency)),
  }));
}

export function plausibilityMeans(rows, measures) {
  return measureObjects(rows, measures).map(({ measure, ms }) => ({
    measure, n: ms.length, token_f1: mean(ms.map((x) => x.token_f1)), auprc: mean(ms.map((x) => x.auprc)),
  }));
}

export function randomizationMeans(rows) {
  const acc = new Map(); // `${stageIndex}|${measure}` → { stage, stageIndex, measure, values }
  for (const r of usedRows(rows)) {
    if (!Array.isArray(r.stages)) continue;
    r.stages.forEach((st, i) => {
      for (const [m, v] of Object.entries(st?.measures ?? {})) {
        const key = `${i}|${m}`;
        if (!acc.has(key)) acc.set(key, { stage: String(st.stage ?? i), stageIndex: i, measure: m, values: [] });
        if (isNum(v?.spearman)) acc.get(key).values.push(v.spearman);
      }
    });
  }
  return [...acc.values()].map(({ values, ...rest }) => ({ ...rest, spearman: mean(values), n: values.length }));
}

export const FLOW_MAPS = Object.freeze(['raw', 'rollout', 'flow']);
export const FLOW_TARGETS = Object.freeze(['blankout', 'gradient']);

export function flowMeans(rows) {
  const out = [];
  const used = usedRows(rows);
  for (const against of FLOW_TARGETS) {
    for (const map of FLOW_MAPS) {
      const key = `${map}_${against}`;
      const layers = Math.max(0, ...used.map((r) => (Array.isArray(r[key]) ? r[key].length : 0)));
      for (let l = 0; l < layers; l++) {
        const values = used.map((r) => (Array.isArray(r[key]) ? r[key][l] : undefined)).filter(isNum);
        if (values.length) out.push({ layer: l + 1, map, against, rho: mean(values), n: values.length });
      }
    }
  }
  return out;
}

export function headAblation(rows) {
  const used = usedRows(rows).filter((r) => Number.isInteger(r.label) && Number.isInteger(r.predicted) &&
    Array.isArray(r.single) && Array.isArray(r.pruned));
  const n = used.length;
  if (!n) return { n: 0, base: NaN, single: [], curve: [] };
  const acc = (predictedOf) => used.filter((r) => predictedOf(r) === r.label).length / n;
  const base = acc((r) => r.predicted);
  const heads = Math.min(...used.map((r) => r.single.length));
  const single = Array.from({ length: heads }, (_, k) => {
    const h = used[0].single[k] ?? {};
    const accuracy = acc((r) => r.single[k]?.predicted);
    return { head: `${h.layer}.${h.head}`, layer: h.layer, accuracy, change: accuracy - base };
  });
  const steps = Math.min(...used.map((r) => r.pruned.length));
  const curve = [{ removed: 0, accuracy: base }];
  for (let k = 0; k < steps; k++) curve.push({ removed: k + 1, accuracy: acc((r) => r.pruned[k]) });
  return { n, base, single, curve };
}
