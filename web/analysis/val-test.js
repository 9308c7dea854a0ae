// val-test.js — why the Localization lab's validation and test accuracy differ (pure; no DOM, works in Node).
//
// What is true (core/train/cnn_trainer.cpp, core/data/shapes_dataset.h, wasm/cnn_bindings.cpp): the validation
// images are drawn with the training data's settings, confounder p included (class c on background kind c with
// probability p); the test images of the metrics table are de-correlated (p = 0: background independent of the
// class), plus a confounded test set at the training p when p > 0. Validation is scored after the last epoch
// with the weights the metrics use (eval mode), so with p = 0 the two differ only by sampling.
//
// Contract:
//   valTestNote({ val, valSize, test, testSize = 1000, confounder = 0, confounded = NaN }) → '' when the two
//     accuracies are within GAP (3 points) or a value is missing, else one sentence saying why they differ.
//     p > 0: the confounder (and the confounded test accuracy when given); p = 0: sampling, with the standard
//     error of the difference, √(v(1 − v)/n_v + t(1 − t)/n_t) (a gap over 3 standard errors is said to be more
//     than sampling explains). Pass val only when it was measured on the weights the test uses (not after Cancel).
import { int, num, percent } from './format.js';

export const GAP = 0.03;

export function valTestNote({ val, valSize, test, testSize = 1000, confounder = 0, confounded = NaN } = {}) {
  if (![val, test].every(Number.isFinite) || Math.abs(val - test) < GAP) return '';
  const head = `Validation ${percent(val, 1)} vs test ${percent(test, 1)}: `;
  const nv = Number.isFinite(valSize) && valSize > 0 ? valSize : NaN;
  if (confounder > 0) {
    return head + `the ${Number.isFinite(nv) ? `${int(nv)} ` : ''}validation images are drawn like the training images — each class on ` +
      `its own background with probability p = ${num(confounder, 2)} — so a model that reads the background scores well there; ` +
      `the ${int(testSize)} test images are de-correlated (background independent of the class), so only the shape counts.` +
      (Number.isFinite(confounded) ? ` On confounded test images (p = ${num(confounder, 2)}) the accuracy is ${percent(confounded, 1)}.` : '');
  }
  const se = Number.isFinite(nv) ? Math.sqrt((val * (1 - val)) / nv + (test * (1 - test)) / testSize) : NaN;
  const gap = Math.abs(val - test);
  return head + 'both come from the same distribution here (no confounder) and are scored with the same weights, so only sampling ' +
    'separates them' + (Number.isFinite(se)
    ? ` — validation has ${int(nv)} images, the test ${int(testSize)}; the standard error of the difference is ${num(se * 100, 1)} points` +
      (gap > 3 * se ? ', so this gap is more than sampling explains (different data settings or weights?).' : '.')
    : '.');
}
