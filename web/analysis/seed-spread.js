// seed-spread.js — a debate headline number's spread over training seeds, beside the number of this run.
// The seed study (models/tools/seeds-summary.mjs → models/text/seeds/summary.json) trained each SST-2 model with
// Wiegreffe & Pinter's seeds and ran each experiment on the whole test set (1,821 sentences, experiment seed 1);
// the shipped model is its seed 1. Pure: no DOM, no fetch; works in Node.
//
// Contract:
//   seedModelOf(model) → the model's name in the seed summary (the shipped transformer is the study's
//     sst2-transformer-dot; the others have their own names).
//   withSeedSpread(items, seedSummary, model) → a copy of the headline items (web/experiments-info.js), each item
//     whose seedKey names a metric the summary has for the model over at least 2 seeds gaining
//     .seeds = {mean, std, n}; the other items unchanged. A missing or malformed summary changes nothing.
//   cnnSeedSpread(entry) → the localization lab's seed study for one shipped configuration (an entry of
//     models/cnn/seeds/summary.json, models/tools/seeds-cnn-summary.mjs): [{key, label, mean, std, n}] for the
//     de-correlated test metrics it has over ≥ 2 seeds, in the metrics table's order; [] without one.
const STUDY_NAMES = Object.freeze({ 'sst2-transformer': 'sst2-transformer-dot' });

export const seedModelOf = (model) => STUDY_NAMES[model] ?? model;

// a summary entry {mean, std, n} with a spread (≥ 2 seeds), or null
const spreadOf = (s) => (s && Number.isInteger(s.n) && s.n >= 2 && Number.isFinite(s.mean) && Number.isFinite(s.std)
  ? { mean: s.mean, std: s.std, n: s.n } : null);

export function withSeedSpread(items, seedSummary, model) {
  const metrics = seedSummary?.[seedModelOf(model)];
  return (items ?? []).map((item) => {
    const s = spreadOf(item?.seedKey && metrics && typeof metrics === 'object' ? metrics[item.seedKey] : null);
    return s ? { ...item, seeds: s } : item;
  });
}

const CNN_METRICS = Object.freeze([
  ['accuracy', 'accuracy'], ['pointing_0px', 'pointing game'], ['pointing_std_tol', 'pointing game at the standard tolerance'],
  ['mask_iou', 'mask IoU'], ['energy_in_mask', 'energy in mask'],
]);

export function cnnSeedSpread(entry) {
  const t = entry?.test_decorrelated;
  if (!t || typeof t !== 'object') return [];
  return CNN_METRICS.flatMap(([key, label]) => {
    const s = spreadOf(t[key]);
    return s ? [{ key, label, ...s }] : [];
  });
}
