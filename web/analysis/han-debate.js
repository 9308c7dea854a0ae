// han-debate.js — the debate experiments of a HAN (document) model, read with the flat experiments' figure and
// headline code: HAN rows and summaries (core/experiments/han_experiment.h) mapped to the keys the flat ones use,
// at the level the run chose. Pure; no DOM.
//
// Contract:
//   hanRowsAtLevel(name, rows, level) → rows with the flat figure keys added (the HAN keys kept):
//     kendall: tau_gradient, tau_loo = row[level].gradient.tau / .leave_one_out.tau (the kendall row has both
//     levels); erase-max: jsd_max = row.top.jsd, jsd_random = row.random.jsd. adversarial and erase-until-flip
//     rows already have the flat keys (max_jsd; per ranking {fraction, flipped}).
//   hanSummaryAtLevel(name, summary, level) → a copy with the flat headline keys added: kendall tau_gradient_mean /
//     _std, tau_loo_mean / _std, fraction_significant {gradient, loo}, n_used, n_undefined {gradient, loo};
//     erase-max jsd_max_mean, flip_rate_max, fraction_jsd_max_greater. Missing fields stay missing (n/a).

const num = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function hanRowsAtLevel(name, rows, level) {
  if (!Array.isArray(rows)) return [];
  if (name === 'kendall') {
    return rows.map((r) => (r && !r.skipped ? {
      ...r, tau_gradient: num(r[level]?.gradient?.tau), tau_loo: num(r[level]?.leave_one_out?.tau),
    } : r));
  }
  if (name === 'erase-max') {
    return rows.map((r) => (r && !r.skipped ? { ...r, jsd_max: num(r.top?.jsd), jsd_random: num(r.random?.jsd) } : r));
  }
  return rows;
}

export function hanSummaryAtLevel(name, summary, level) {
  if (!summary || typeof summary !== 'object') return summary;
  const s = { ...summary };
  if (name === 'kendall') {
    const g = summary[level]?.gradient ?? {}, l = summary[level]?.leave_one_out ?? {};
    const n = num(summary.n);
    Object.assign(s, {
      tau_gradient_mean: num(g.mean), tau_gradient_std: num(g.std),
      tau_loo_mean: num(l.mean), tau_loo_std: num(l.std),
      fraction_significant: { gradient: num(g.fraction_significant), loo: num(l.fraction_significant) },
      n_used: n,
      n_undefined: { gradient: n !== undefined && num(g.n) !== undefined ? n - g.n : undefined,
        loo: n !== undefined && num(l.n) !== undefined ? n - l.n : undefined },
    });
  } else if (name === 'erase-max') {
    Object.assign(s, {
      jsd_max_mean: num(summary.jsd_top_mean), flip_rate_max: num(summary.flip_rate_top),
      fraction_jsd_max_greater: num(summary.fraction_top_larger),
    });
  }
  return s;
}
