// prediction.js — draws the model's prediction: class label, probability and a two-colour bar.
//
// Contract:
//   renderPrediction(root, result)   root = the #prediction element of index.html.
//     Binary models: p = result.probability is p(class 1 = class_names[1]); the bar shows both classes.
//     #probability gets data-probability = the exact number (tests compare it with the native CLI).
//     More than two classes: shows the predicted class name only (the bar is hidden).
// Class names come through analysis/display.js classNamesFor (the 20news / AG News checkpoints carry the SST
// default names in config.json). Numbers through analysis/format.js: percentages, never an exponent.
// Text goes in through textContent only.
import { prob } from '../analysis/format.js';
import { classNamesFor } from '../analysis/display.js';

// Percent with one decimal; the extremes say "< 0.1 %" / "> 99.9 %" instead of a misleading 0.0 / 100.0.
export function pct(x) {
  if (x < 0.0005) return '< 0.1 %';
  if (x > 0.9995) return '> 99.9 %';
  return `${(x * 100).toFixed(1)} %`;
}

// A probability as a percentage with the decimals it needs (2.5e-5 → "0.0025 %"; format.js prob).
export function formatProbability(p) {
  return prob(p);
}

export function renderPrediction(root, result) {
  const names = classNamesFor(result.model, result.class_names);
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
  const shown = formatProbability(p);
  prob.textContent = `p(${names[1]}) ${/^[<>]/.test(shown) ? '' : '= '}${shown}`;
  prob.title = `p(${names[1]}): the model's probability that the text is ${names[1]}, shown as a percentage`;
  bar.querySelector('.prob-neg').style.width = `${(1 - p) * 100}%`;
  bar.querySelector('.prob-pos').style.width = `${p * 100}%`;
  bar.setAttribute('aria-label', `${names[0]} ${pct(1 - p)}, ${names[1]} ${pct(p)}`);
  root.querySelector('#prob-neg-label').textContent = `${names[0]} ${pct(1 - p)}`;
  root.querySelector('#prob-pos-label').textContent = `${names[1]} ${pct(p)}`;
}
