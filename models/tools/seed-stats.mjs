// seed-stats.mjs — the arithmetic of the seed studies, shared by seeds-summary.mjs (text models) and
// seeds-cnn-summary.mjs (localization lab).
//   meanStd(xs) → {n, mean, std}: std is the sample std (n − 1), null for one value.
//   verdict(d) → is a set of per-seed differences larger than the seed spread? {n, mean, std, agree, beyond}:
//     agree = how many seeds have the mean's (non-zero) sign; beyond = "yes" when n ≥ 3, every seed agrees and
//     |mean| > 2 · std / √n (a paired t of 2). null below 2 seeds.
//   paired(a, b) → verdict of a[seed] − b[seed] over the seeds both objects ({seed: value}) have.
//   oneSample(a) → verdict of the values of a ({seed: value}) against zero.
//   comparisonRow(c) → a Markdown table row of one {what, ...verdict}: difference, mean ± std, agreeing, yes/no.
//   seedGroups(models) → {base: [model]}: a model named BASE-sN is seed N of BASE (BASE itself is seed 1), each base's
//     models in seed order; seedOf(model, base) → N.
export function meanStd(xs) {
  const n = xs.length, mean = xs.reduce((x, y) => x + y, 0) / n;
  const std = n > 1 ? Math.sqrt(xs.reduce((x, y) => x + (y - mean) ** 2, 0) / (n - 1)) : null;
  return { n, mean, std };
}

export function verdict(d) {
  if (d.length < 2) return null;
  const { n, mean, std } = meanStd(d);
  const agree = d.filter((x) => x !== 0 && Math.sign(x) === Math.sign(mean)).length;  // a zero difference agrees with nothing
  return { n, mean, std, agree, beyond: n >= 3 && agree === n && Math.abs(mean) > (2 * std) / Math.sqrt(n) };
}

export function paired(a, b) {
  const seeds = Object.keys(a ?? {}).filter((k) => k in (b ?? {}));
  return verdict(seeds.map((k) => a[k] - b[k]));
}

export const oneSample = (a) => verdict(Object.values(a ?? {}));

export const comparisonRow = (c) =>
  `| ${c.what} | ${c.mean.toFixed(3)} ± ${c.std.toFixed(3)} | ${c.agree} of ${c.n} | ${c.beyond ? 'yes' : 'no'} |`;

export const seedOf = (model, base) => (model === base ? 1 : Number(model.slice(base.length + 2)));

export function seedGroups(models) {
  const groups = {};
  for (const model of models) (groups[model.replace(/-s\d+$/, '')] ??= []).push(model);
  for (const [base, ms] of Object.entries(groups)) ms.sort((a, b) => seedOf(a, base) - seedOf(b, base));
  return groups;
}
