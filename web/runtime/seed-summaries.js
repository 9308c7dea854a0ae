// seed-summaries.js — the seed studies' summaries the page shows beside its numbers, each fetched at most once, on
// first use: the SST-2 text models' (models/text/seeds/summary.json, models/tools/seeds-summary.mjs) and the
// localization lab's (models/cnn/seeds/summary.json, models/tools/seeds-cnn.sh summary). No DOM.
//
// Contract:
//   textSeedSummary() / cnnSeedSummary() → Promise of the parsed summary, or null when it cannot be fetched or read
//     (an offline copy without it, an HTTP error): the page then shows its numbers without a seed spread.
function once(url) {
  let p = null;
  return () => (p ??= fetch(url).then((r) => (r.ok ? r.json() : null)).catch(() => null));
}

export const textSeedSummary = once(new URL('../../models/text/seeds/summary.json', import.meta.url));
export const cnnSeedSummary = once(new URL('../../models/cnn/seeds/summary.json', import.meta.url));
