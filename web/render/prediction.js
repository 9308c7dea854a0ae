// prediction.js — draws the model's prediction: class label, probability and a two-colour bar.
//
// Contract:
//   renderPrediction(root, result)   root = the #prediction element of index.html.
//     Binary models: p = result.probability is p(class 1 = class_names[1]); the bar shows both classes.
//     #probability gets data-probability = the exact number (tests compare it with the native CLI).
//     More than two classes: shows the predicted class name only (the bar is hidden).
// Text goes in through textContent only.

// Percent with one decimal; the extremes say "< 0.1 %" / "> 99.9 %" instead of a misleading 0.0 / 100.0.
export function pct(x) {
  if (x < 0.0005) return '< 0.1 %';
  if (x > 0.9995) return '> 99.9 %';
  return `${(x * 100).toFixed(1)} %`;
}

// Four decimals; closer to 0 or 1 than that, the distance is shown (2.1e-5, 1 − 3.2e-6).
export function formatProbability(p) {
  if (!Number.isFinite(p)) return 'n/a';
  if (p > 0 && p < 5e-5) return p.toExponential(1);
  if (p < 1 && 1 - p < 5e-5) return `1 − ${(1 - p).toExponential(1)}`;
  return p.toFixed(4);
}

export function renderPrediction(root, result) {
  const names = Array.isArray(result.class_names) && result.class_names.length >= 2
    ? result.class_names
    : ['negative', 'positive'];
  const p = Number(result.probability);
  const label = root.querySelector('#prediction-label');
  const prob = root.querySelector('#probability');
  const bar = root.querySelector('.prob-bar');
  const scale = root.querySelector('.prob-scale');

  const binary = names.length === 2 && Number.isFinite(p);
  const predicted = Number.isInteger(result.predicted_class) ? result.predicted_class : p >= 0.5 ? 1 : 0;
  label.textContent = names[predicted] ?? `class ${predicted}`;
  label.classList.toggle('pos', binary && predicted === 1);
  label.classList.toggle('neg', binary && predicted === 0);
  prob.dataset.probability = String(p);
  bar.hidden = !binary;
  scale.hidden = !binary;
  if (!binary) {
    prob.textContent = Number.isFinite(p) ? `p = ${formatProbability(p)}` : '';
    return;
  }
  prob.textContent = `p(${names[1]}) = ${formatProbability(p)}`;
  prob.title = `p(${names[1]}) = ${p}`;
  bar.querySelector('.prob-neg').style.width = `${(1 - p) * 100}%`;
  bar.querySelector('.prob-pos').style.width = `${p * 100}%`;
  bar.setAttribute('aria-label', `${names[0]} ${pct(1 - p)}, ${names[1]} ${pct(p)}`);
  root.querySelector('#prob-neg-label').textContent = `${names[0]} ${pct(1 - p)}`;
  root.querySelector('#prob-pos-label').textContent = `${names[1]} ${pct(p)}`;
}
