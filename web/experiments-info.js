// experiments-info.js — what the page says about each debate experiment: title, paper, a one-line
// plain-language explanation (for the live panel on one sentence and for the data-set run) and the headline
// numbers of its summary. Pure data + pure functions; no DOM, works in Node.
//
// Contract:
//   EXPERIMENT_INFO[name] → { title, paper, live, dataset, figure, headline(summary) → [{label, value, kind, ref?, note?}],
//     sentence?(summary) → the summary in one plain sentence, shown above the numbers (conicity, impermissible) }
//     kind: 'num' (a plain number) | 'int' (a count) | 'points' (percentage points) | 'pct' (a fraction shown as %)
//     | 'mean±std' (value = [mean, std]);
//     ref: the paper's number for comparison, when there is one; seedKey: the metric's name in the seed study's
//     summary (models/text/seeds/summary.json; analysis/seed-spread.js attaches its spread over seeds);
//     note: visible text under the value (a τ's n and
//     what n/a means: tauNote(nUsed, nUndefined, { short })). headline() reads the summary defensively:
//     a missing or non-numeric field gives value NaN (shown as "n/a"), never an exception.
//   LIVE_EXPERIMENTS — the experiments shown as live panels under a typed sentence, in order.
//   infoFor(name, description) → EXPERIMENT_INFO[name], or a generic entry for an experiment the page does
//     not know yet (title = name, the core's one-line description, no headline numbers).
//   pick(obj, path) → the number at path (array of keys), or NaN.
//   JSD_MAX = ln 2 (the Jensen-Shannon divergence bound with natural logarithms).

import { int } from './analysis/format.js';
import { CONICITY_HELP, impermissibleSentence, impermissibleWords } from './analysis/faithful.js';

export const JSD_MAX = Math.LN2;

export const LIVE_EXPERIMENTS = Object.freeze(['adversarial', 'permutation', 'erase-max', 'erase-until-flip', 'eraser']);
// Parameters of the live runs on a typed sentence (the rest take the catalogue's defaults). ERASER ranks a signed
// method's tokens most positive first, so "Which method?" compares IG, AttnLRP, CP-LRP and attention × gradient on the
// evidence they give for the class rather than on its size.
export const LIVE_PARAMS = Object.freeze({ eraser: Object.freeze({ ranking: 'signed' }) });

export const RANKINGS = Object.freeze(['attention', 'gradient', 'attention_x_gradient', 'leave_one_out', 'random']);
export const ERASER_MEASURES = Object.freeze(['attention', 'gradient', 'leave_one_out', 'integrated_gradients', 'random']);

export const LABELS = Object.freeze({
  attention: 'attention',
  gradient: 'gradient',
  attention_x_gradient: 'attention × gradient',
  leave_one_out: 'leave-one-out',
  integrated_gradients: 'integrated gradients',
  rollout: 'rollout',
  flow: 'attention flow',
  relevance: 'Chefer relevance',
  grad_attention: 'attention × gradient (per head)',
  gradient_x_input: 'gradient × input',
  attention_norm: 'attention norm',
  attnlrp: 'AttnLRP',
  cp_lrp: 'CP-LRP',
  value_zeroing: 'value zeroing',
  alti: 'ALTI',
  random: 'random',
});

export function label(key) {
  return LABELS[key] ?? String(key).replace(/_/g, ' ');
}

export function pick(obj, path) {
  let v = obj;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return NaN;
    v = v[k];
  }
  return typeof v === 'number' ? v : NaN;
}

const JW = 'Jain & Wallace 2019, “Attention is not Explanation”';
const SS = 'Serrano & Smith 2019, “Is Attention Interpretable?”';

export const EXPERIMENT_INFO = Object.freeze({
  adversarial: {
    title: 'Adversarial attention',
    paper: JW,
    live: 'Search for a very different attention distribution that leaves the prediction (almost) unchanged. If one exists, the model’s attention is not the only explanation of this decision.',
    dataset: 'For each sentence, the largest Jensen-Shannon divergence (JSD) between the model’s attention and an adversarial attention whose output stays within ε = 0.01 (TVD).',
    figure: 'Histogram of the maximum adversarial JSD per sentence, by class (the bound is ln 2 ≈ 0.693). Mass near the bound: attention can be changed almost completely without changing the prediction.',
    headline: (s) => [
      { label: 'mean max JSD', value: pick(s, ['mean_max_jsd']), kind: 'num', seedKey: 'adversarial: mean max JSD' },
      { label: 'median max JSD', value: pick(s, ['median_max_jsd']), kind: 'num' },
      { label: 'sentences with max JSD > 0.4', value: pick(s, ['fraction_jsd_above_0.4']), kind: 'pct', seedKey: 'adversarial: fraction max JSD > 0.4' },
      { label: 'sentences with an adversary found', value: pick(s, ['fraction_found']), kind: 'pct' },
    ],
  },
  kendall: {
    title: 'Attention vs gradient and leave-one-out (Kendall τ)',
    paper: JW,
    live: 'Rank agreement between attention and the gradient / leave-one-out importance of the tokens.',
    dataset: 'For each sentence, Kendall τ between the attention weights and (a) gradient importance, (b) leave-one-out importance; the same for each later reading of the model in attention’s place (integrated gradients; a transformer’s rollout, flow, Chefer relevance, AttnLRP, CP-LRP, value zeroing, ALTI, …), by its size |value|.',
    figure: 'Histograms of τ per sentence, by class. τ = 1: the same ranking; near 0: unrelated. Below them, each later reading’s mean τ beside attention’s: do the explanations that came after the debate agree better with the gradient and leave-one-out?',
    headline: (s) => {
      const note = (k, short = false) => tauNote(pick(s, ['n_used']), pick(s, ['n_undefined', k]), { short });
      const readings = Object.keys(s?.readings ?? {});
      const closest = (key) => readings.reduce((b, r) => {
        const v = pick(s, ['readings', r, key]);
        return Number.isFinite(v) && (b === null || v > pick(s, ['readings', b, key])) ? r : b;
      }, null);
      const later = readings.length ? [['tau_gradient_mean', 'gradient'], ['tau_loo_mean', 'leave-one-out']].map(([key, what]) => {
        const r = closest(key);
        return { label: `later reading closest to ${what}: ${r ? label(r) : 'n/a'} (mean τ)`, value: r ? pick(s, ['readings', r, key]) : NaN, kind: 'num' };
      }) : [];
      return [
        { label: 'τ attention–gradient (mean ± std)', value: [pick(s, ['tau_gradient_mean']), pick(s, ['tau_gradient_std'])], kind: 'mean±std', ref: 'J&W SST, tanh: 0.40', note: note('gradient'), seedKey: 'τ(attention, gradient)' },
        { label: 'τ attention–leave-one-out (mean ± std)', value: [pick(s, ['tau_loo_mean']), pick(s, ['tau_loo_std'])], kind: 'mean±std', ref: 'J&W SST, tanh: 0.34', note: note('loo'), seedKey: 'τ(attention, leave-one-out)' },
        { label: 'significant τ (p < 0.05), gradient', value: pick(s, ['fraction_significant', 'gradient']), kind: 'pct', note: note('gradient', true) },
        { label: 'significant τ (p < 0.05), leave-one-out', value: pick(s, ['fraction_significant', 'loo']), kind: 'pct', note: note('loo', true) },
        ...later,
      ];
    },
  },
  permutation: {
    title: 'Permuted attention',
    paper: JW,
    live: 'Shuffle the attention weights 100 times and see how much the output moves (|Δŷ|). Small changes mean the model barely uses which token gets which weight.',
    dataset: 'For each sentence, the median output change |Δŷ| (TVD) over 100 random permutations of its attention weights.',
    figure: 'Median |Δŷ| under permutation against the sentence’s largest attention weight, by class. Points near 0 even at high max attention: peaked attention that does not matter.',
    headline: (s) => [
      { label: 'mean of median |Δŷ|', value: pick(s, ['median_delta_mean']), kind: 'num' },
      { label: 'median of median |Δŷ|', value: pick(s, ['median_delta_median']), kind: 'num', seedKey: 'permutation: median Δ output, median over sentences' },
      { label: 'sentences with median |Δŷ| < 0.01', value: pick(s, ['fraction_median_delta_below_0.01']), kind: 'pct', seedKey: 'permutation: fraction with median Δ < 0.01' },
    ],
  },
  'erase-max': {
    title: 'Erase the top attention weight vs a random one',
    paper: SS,
    live: 'Zero the single highest attention weight (renormalising the rest), and separately a random other one: if attention ranks importance, erasing the top weight should move the output more.',
    dataset: 'For each sentence, the output change (JSD) and decision flip after erasing the highest attention weight vs a random other weight.',
    figure: 'JSD after erasing the top weight against JSD after erasing a random weight (log scales; the diagonal is “no difference”). Points above it: the top weight mattered more.',
    headline: (s) => [
      { label: 'mean JSD, top weight erased', value: pick(s, ['jsd_max_mean']), kind: 'num' },
      { label: 'mean JSD, random weight erased', value: pick(s, ['jsd_random_mean']), kind: 'num' },
      { label: 'decision flips, top weight', value: pick(s, ['flip_rate_max']), kind: 'pct' },
      { label: 'decision flips, random weight', value: pick(s, ['flip_rate_random']), kind: 'pct' },
      { label: 'sentences where top > random', value: pick(s, ['fraction_jsd_max_greater']), kind: 'pct' },
    ],
  },
  'erase-until-flip': {
    title: 'Erase weights until the decision flips',
    paper: SS,
    live: 'Remove attention weights one by one in the order each method ranks them, until the predicted class changes. A faithful ranking flips the decision after few removals.',
    dataset: 'For each sentence and ranking, the fraction of attention weights removed (in ranking order) before the decision flips (1 when it never flips).',
    figure: 'Fraction of weights removed before the decision flips, per ranking (box: quartiles, line: median). Serrano & Smith: gradient-based rankings flip sooner than attention; random needs the most. Below S&S’s five, the model’s later readings rank the same weights (most positive first). The erasure acts on one attention layer’s weights alone (a transformer’s last-layer [CLS] row), so a reading of the whole model can flip later than attention here without being less faithful.',
    // The rankings the run has (its summary lists them in `order`); one it lacks is named in a note, not shown as a
    // bare n/a.
    headline: (s) => {
      const has = Array.isArray(s?.order) ? RANKINGS.filter((r) => s.order.includes(r)) : RANKINGS;
      const items = has.map((r) => ({ label: `${label(r)}: mean fraction removed`, value: pick(s, [r, 'fraction_mean']), kind: 'pct', seedKey: `erase-until-flip: mean fraction removed, ${r}` }));
      const missing = RANKINGS.filter((r) => !has.includes(r));
      if (missing.length && items.length) {
        items[items.length - 1].note = `No ${missing.map(label).join(' or ')} ranking here: this run ranks by ` +
          `${has.map(label).join(', ')} only.`;
      }
      // The model's later readings (the rankings of `order` past S&S's five): the one that flips soonest.
      const readings = (Array.isArray(s?.order) ? s.order : []).filter((k) => !RANKINGS.includes(k) && Number.isFinite(pick(s, [k, 'fraction_mean'])));
      const fastest = readings.reduce((b, r) => (b === null || pick(s, [r, 'fraction_mean']) < pick(s, [b, 'fraction_mean']) ? r : b), null);
      if (fastest) items.push({ label: `fastest later reading: ${label(fastest)} (mean fraction removed)`, value: pick(s, [fastest, 'fraction_mean']), kind: 'pct' });
      return items;
    },
  },
  eraser: {
    title: 'ERASER comprehensiveness and sufficiency',
    paper: 'DeYoung et al. 2020, “ERASER: A Benchmark to Evaluate Rationalized NLP Models”',
    live: 'Take each method’s top k % tokens as the rationale. Comprehensiveness: how much the prediction drops without them (higher is more faithful). Sufficiency: how much it drops with only them (lower is more faithful).',
    dataset: 'For each sentence and importance measure, comprehensiveness and sufficiency at k = 1, 5, 10, 20, 50 % of the tokens, and their mean (AOPC).',
    figure: 'Mean AOPC per measure: comprehensiveness (higher = more faithful) and sufficiency (lower = more faithful). Random is the baseline to beat. Here every method ranks its tokens by size (|value|), as in the papers’ tables; the Text tab’s live panel ranks the signed ones (integrated gradients, attention × gradient, AttnLRP, CP-LRP) most positive first, which puts AttnLRP and CP-LRP first (docs/RESULTS.md, “Which explanation is most faithful?”: both readings).',
    headline: (s) => {
      const c = (m) => pick(s, ['measures', m, 'aopc_comprehensiveness_mean']);
      const f = (m) => pick(s, ['measures', m, 'aopc_sufficiency_mean']);
      const named = Object.keys(s?.measures ?? {}).filter((m) => m !== 'random');  // a transformer's too
      const best = (get, better) => named.reduce((b, m) => (Number.isFinite(get(m)) && (b === null || better(get(m), get(b))) ? m : b), null);
      const bc = best(c, (x, y) => x > y);
      const bs = best(f, (x, y) => x < y);
      return [
        { label: `most comprehensive: ${bc ? label(bc) : 'n/a'} (AOPC, higher is better)`, value: bc ? c(bc) : NaN, kind: 'num', seedKey: `ERASER AOPC comprehensiveness, ${bc}` },
        { label: 'random baseline: AOPC comprehensiveness', value: c('random'), kind: 'num', seedKey: 'ERASER AOPC comprehensiveness, random' },
        { label: `most sufficient: ${bs ? label(bs) : 'n/a'} (AOPC, lower is better)`, value: bs ? f(bs) : NaN, kind: 'num', seedKey: `ERASER AOPC sufficiency, ${bs}` },
        { label: 'random baseline: AOPC sufficiency', value: f('random'), kind: 'num', seedKey: 'ERASER AOPC sufficiency, random' },
      ];
    },
  },
  randomization: {
    title: 'Model randomisation sanity check',
    paper: 'Adebayo et al. 2018, “Sanity Checks for Saliency Maps”',
    live: 'Re-initialise the model layer by layer from the top and see whether each explanation changes.',
    dataset: 'For each sentence and randomisation stage (decoder → attention → encoder → embedding), the rank correlation between each measure on the randomised and on the trained model.',
    figure: 'Mean Spearman ρ between the explanation of the randomised and of the trained model, per stage. An explanation that stays correlated does not depend on what the model learned.',
    headline: () => [],
  },
  plausibility: {
    title: 'Plausibility: agreement with human rationales',
    paper: 'DeYoung et al. 2020 (ERASER metrics); Jacovi & Goldberg 2020 (plausibility is not faithfulness)',
    live: 'Score each importance measure against the words people marked: SST’s annotators labelled every word and phrase, and the words and short phrases labelled with the sentence’s polarity are its human rationale.',
    dataset: 'For each sentence, token F1 of the top-k tokens (k = the human rationale’s length), AUPRC and IOU F1 of each measure against the human rationale: the words, and phrases of at most 3 words, that SST’s annotators labelled with the sentence’s polarity (read from the SST parse trees shipped with the test set; a sentence with no such word is skipped).',
    figure: 'Mean token F1 and AUPRC per measure against the human rationale (random is the baseline to beat). After an ERASER run on the same model in this tab, each measure is also placed on a plausibility-vs-faithfulness plane: plausible is not the same as faithful (Jacovi & Goldberg 2020).',
    headline: (s) => ERASER_MEASURES.map((m) => ({ label: `${label(m)}: token F1`, value: pick(s, [m, 'token_f1']), kind: 'num', seedKey: `plausibility token F1, ${m}` })),
  },
  'attention-flow': {
    title: 'Raw attention, rollout and flow (transformers)',
    paper: 'Abnar & Zuidema 2020, “Quantifying Attention Flow in Transformers”',
    live: 'Compare three ways of reading a transformer’s attention — the last layer’s raw [CLS] row, rollout (attention multiplied through the layers, with the residual) and flow (maximum flow through the layered attention graph) — with what removing each word does.',
    dataset: 'For each sentence and layer, the Spearman correlation of raw attention, rollout and flow (head-averaged, read at [CLS]) with blank-out (the output change when the word is removed) and with input gradients. Transformer models only; a BiLSTM has one attention distribution and no layers to roll out, so its sentences are skipped.',
    figure: 'Mean Spearman ρ per layer. Abnar & Zuidema’s 6-layer model (subject–verb agreement) at its last layer: against blank-out raw 0.29, rollout 0.71, flow 0.70; against gradients raw 0.46, rollout 0.54, flow 0.61. At layer 1 the three are the same ranking by construction.',
    headline: (s) => {
      const last = (k) => pick(s, ['last_layer', k]);
      return [
        { label: 'last layer: raw vs blank-out', value: last('raw_blankout'), kind: 'num', ref: '0.29', seedKey: 'attention-flow, last layer: raw vs blankout' },
        { label: 'last layer: rollout vs blank-out', value: last('rollout_blankout'), kind: 'num', ref: '0.71', seedKey: 'attention-flow, last layer: rollout vs blankout' },
        { label: 'last layer: flow vs blank-out', value: last('flow_blankout'), kind: 'num', ref: '0.70', seedKey: 'attention-flow, last layer: flow vs blankout' },
        { label: 'last layer: raw vs gradient', value: last('raw_gradient'), kind: 'num', ref: '0.46', seedKey: 'attention-flow, last layer: raw vs gradient' },
        { label: 'last layer: rollout vs gradient', value: last('rollout_gradient'), kind: 'num', ref: '0.54', seedKey: 'attention-flow, last layer: rollout vs gradient' },
        { label: 'last layer: flow vs gradient', value: last('flow_gradient'), kind: 'num', ref: '0.61', seedKey: 'attention-flow, last layer: flow vs gradient' },
      ];
    },
  },
  'head-ablation': {
    title: 'Switching heads off (transformers)',
    paper: 'Michel, Levy & Neubig 2019, “Are Sixteen Heads Really Better than One?”',
    live: 'Switch each attention head off and see whether the prediction changes: if many heads can go, what one head attends to says little about the decision.',
    dataset: 'For each sentence, the prediction with every single head switched off (its output set to zero), and after switching heads off one after another. Accuracy is against the gold labels. Transformer models only (a BiLSTM has no heads: its sentences are skipped).',
    figure: 'Left: accuracy change with one head off. Right: accuracy as heads are switched off in index order; Michel et al. found that many heads of large pretrained models can go with little loss.',
    headline: (s) => {
      const changes = Array.isArray(s?.single) ? s.single.map((h) => h?.accuracy_change).filter((v) => typeof v === 'number') : [];
      return [
        { label: 'accuracy, all heads on', value: pick(s, ['accuracy']), kind: 'pct', seedKey: 'head-ablation: accuracy' },
        { label: 'heads that can go (in index order) within 1 point', value: pick(s, ['heads_removable_within_1_point']), kind: 'int' },
        { label: 'largest accuracy drop from one head off', value: changes.length ? -100 * Math.min(...changes) : NaN, kind: 'points' },
      ];
    },
  },
  // The debate's fourth round (issue 32).
  conicity: {
    title: 'Conicity of the hidden states',
    paper: 'Mohankumar et al. 2020, “Towards Transparent and Explainable Attention Models”',
    live: `How parallel the encoder’s hidden states are: ${CONICITY_HELP}.`,
    dataset: 'For each sentence, the conicity of the BiLSTM’s hidden states: the mean cosine between each state and their mean ' +
      '(0 = spread in all directions, 1 = all parallel). Near 1, attention picks among nearly the same vectors, so permuting or ' +
      'erasing it changes little — Mohankumar et al.’s diagnosis of Jain & Wallace’s results; their Orthogonal and Diversity ' +
      'LSTMs lower it. BiLSTM models only (a transformer’s sentences are skipped).',
    figure: 'Conicity per sentence, by class (0 = the hidden states spread in all directions, 1 = all parallel). Compare a ' +
      'BiLSTM (sst2-tanh) with the Orthogonal and Diversity LSTMs (sst2-ortho, sst2-diversity).',
    sentence: (s) => {
      const m = pick(s, ['conicity_mean']);
      return Number.isFinite(m)
        ? `The hidden states’ mean conicity is ${m.toFixed(3)} — ${CONICITY_HELP}.`
        : '';
    },
    headline: (s) => [
      { label: 'conicity (mean ± std; 0 = spread out, 1 = parallel)', value: [pick(s, ['conicity_mean']), pick(s, ['conicity_std'])], kind: 'mean±std', seedKey: 'conicity of the encoder states' },
      { label: 'median conicity', value: pick(s, ['conicity_median']), kind: 'num' },
      { label: 'sentences measured', value: pick(s, ['n_used']), kind: 'int' },
    ],
  },
  impermissible: {
    title: 'Attention on the impermissible words, and the prediction without them',
    paper: 'Pruthi et al. 2020, “Learning to Deceive with Attention-Based Explanations”',
    live: 'How much attention falls on the strong-sentiment words, and whether the prediction changes when they are deleted.',
    dataset: 'For each sentence, the attention mass on the impermissible words — by default the shipped strong-sentiment ' +
      'lexicon (models/text/data/sst2-strong-lexicon.txt: the 454 words SST’s annotators rated very negative or very positive on ' +
      'their own), or a list of your own in the field above — and the prediction with those words deleted. A deceptive model (Pruthi et al.) puts almost no attention on ' +
      'them, yet its predictions still change when they go: its attention hides what it reads. BiLSTM models only.',
    figure: 'Attention mass on the impermissible words, over the sentences that have one, split by whether deleting those ' +
      'words changes the prediction. Mass near 0 with many changed predictions: the model reads words its attention does not show.',
    sentence: (s) => `${impermissibleSentence(s).replace(/^a/, 'A')}.`,
    headline: (s) => {
      const w = impermissibleWords(s);
      return [
        { label: 'attention on the impermissible words (sentences that have one)', value: w.mass, kind: 'pct', seedKey: 'attention mass on impermissible words' },
        { label: 'predictions that change when those words are deleted (sentences that have one)', value: w.changed, kind: 'pct', seedKey: 'predictions changed by deleting impermissible words' },
        { label: 'accuracy', value: w.accuracy, kind: 'pct', seedKey: 'accuracy' },
        { label: 'accuracy with those words deleted', value: w.accuracyWithout, kind: 'pct', seedKey: 'accuracy without impermissible words' },
        { label: 'sentences with an impermissible word', value: w.n, kind: 'int' },
      ];
    },
  },
  seeds: {
    title: 'Seed variance vs the adversary',
    paper: 'Wiegreffe & Pinter 2019, “Attention is not not Explanation”',
    live: 'Compare how far attention moves between models trained with different seeds with how far the adversary moves it.',
    dataset: 'For each sentence, the JSD between the attention of this model and of the same recipe trained with other seeds, next to the adversary’s max JSD. Needs the other seeds’ models, which the core gets on the command line (the page has none to give it).',
    figure: '',
    headline: (s) => [
      { label: 'mean JSD between seeds', value: pick(s, ['seed_jsd_mean']), kind: 'num' },
      { label: 'mean adversarial JSD', value: pick(s, ['adversarial_jsd_mean']), kind: 'num' },
      { label: 'sentences where the adversary goes beyond every seed', value: pick(s, ['fraction_adversary_beyond_every_seed']), kind: 'pct' },
    ],
  },
});

// What a headline τ is computed over: n = the sentences whose τ is defined, and what "n/a" means (visible text).
// nUsed = sentences the experiment ran on (summary n_used), nUndefined = those whose τ is undefined.
export const TAU_NA_REASON = 'n/a means the attention or the importance is the same for every token (e.g. a uniform-attention ' +
  'model) or the sentence has one token, so there is no order to compare.';
export function tauNote(nUsed, nUndefined, { short = false } = {}) {
  if (!Number.isFinite(nUsed)) return '';
  const und = Number.isFinite(nUndefined) ? nUndefined : 0;
  const defined = Math.max(0, nUsed - und);
  if (short) return `of n = ${int(defined)} sentences with a defined τ`;
  if (nUsed > 0 && defined === 0) return `n = 0: τ is n/a for all ${int(nUsed)} sentences. ${TAU_NA_REASON}`;
  const base = `n = ${int(defined)} sentences with a defined τ`;
  return und > 0 ? `${base} (n/a for ${int(und)} of ${int(nUsed)}). ${TAU_NA_REASON}` : `${base}.`;
}

export function infoFor(name, description = '') {
  return EXPERIMENT_INFO[name] ?? {
    title: name,
    paper: '',
    live: description,
    dataset: description,
    figure: '',
    headline: () => [],
  };
}
