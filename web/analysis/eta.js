// eta.js — time left of a long job from its rate so far (pure; works in Node).
//
// Contract:
//   ETA_AFTER_S = 5: a job says its time left once it has run this long (a short job says nothing).
//   etaText(elapsedS, done, total) → '' while elapsedS < ETA_AFTER_S, done ≤ 0 or done ≥ total; else
//     'about 12 s left' / 'about 3 min 10 s left' / 'about 1 h 05 min left' (the remaining units at the rate so far,
//     elapsedS / done per unit; seconds rounded up to 5 s above a minute, so the text does not flicker).
export const ETA_AFTER_S = 5;

export function durationText(s) {
  if (!Number.isFinite(s) || s < 0) return '';
  if (s <= 59) return `${Math.max(1, Math.ceil(s))} s`;
  if (s < 3600) {
    const t = Math.ceil(s / 5) * 5;
    const m = Math.floor(t / 60);
    const r = t % 60;
    return r ? `${m} min ${r} s` : `${m} min`;
  }
  const m = Math.ceil(s / 60);
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

export function etaText(elapsedS, done, total) {
  if (!(elapsedS >= ETA_AFTER_S) || !(done > 0) || !(total > done)) return '';
  return `about ${durationText((elapsedS / done) * (total - done))} left`;
}
