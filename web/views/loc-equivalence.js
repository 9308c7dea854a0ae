// loc-equivalence.js — the Localization view's CAM identity line for its probe images: the core's class score
// (eval-mode logit of the true class) beside the mean of the raw 16 × 16 class map plus the classifier bias
// (analysis/cam-equivalence.js). Equal for a GAP head; for GMP / LSE the line says the identity does not apply
// and shows the gap. Grad-CAM is not computed for this CNN in the page (its factor is shown in the Images view).
//
// Contract:
//   renderLocEquivalence(container, probes, { head, classNames }) — fills container (a <p>); container.dataset:
//     head, logits / camPlusBias (the shown strings of every probe, joined by ' '), maxDifference.
import { el } from '../render/dom.js';
import { probeEquivalences, formatEquivalence } from '../analysis/cam-equivalence.js';

export function renderLocEquivalence(container, probes, { head = 'gap', classNames = [] } = {}) {
  const eq = probeEquivalences(probes);
  container.replaceChildren();
  if (!eq.length) return;
  const f = eq.map((e) => formatEquivalence(e));
  const i = 0; // the first probe in words, all probes in the list
  const name = (k) => classNames[k] ?? `class ${k}`;
  const isGap = head === 'gap';
  container.dataset.head = head;
  container.dataset.logits = f.map((x) => x.logit).join(' ');
  container.dataset.camPlusBias = f.map((x) => x.camPlusBias).join(' ');
  container.dataset.maxDifference = String(Math.max(...eq.map((e) => Math.abs(e.difference))));
  container.append(
    el('strong', null, isGap ? 'CAM = the pooled score (GAP head): ' : `CAM and the score (${head.toUpperCase()} head — the identity is GAP’s): `),
    el('span', 'equiv-line', `probe 1 (${name(probes.labels[i])}): ${f[i].line}.`),
    el('br'),
    el('span', 'chart-caption', `All ${eq.length} probes, logit / mean of CAM + bias: ` +
      f.map((x) => `${x.logit} / ${x.camPlusBias}`).join(' · ') +
      (isGap
        ? `. The map is the true class’s, at the ${probes.cam.h} × ${probes.cam.w} feature resolution, before pooling and not normalised.`
        : `. With a ${head.toUpperCase()} head the score pools the map by its ${head === 'gmp' ? 'maximum' : 'log-sum-exp'}, not its mean, so the two differ.`)),
  );
}
