// own-text-view.js — "Your model" on the Text tab (issue 28): the user picks or drops a text transformer exported to
// ONNX with its tokenizer — model.onnx + tokenizer.json (+ config.json: id2label, the number of positions), the folder
// Hugging Face Optimum and transformers.js write, or llama2.c's model.onnx + tokenizer.bin — or tries the shipped
// stories260K. The page shows the graph summary and the attention the executor found in it, then for the text typed:
// for a causal LM the top-5 next tokens with their probabilities (click one to explain it) and "Next" (append the
// greedy token: each step explained); for a classifier its classes; the token rows (every importance row of
// `attnlab explain-onnx-text`), the head view and the model view. Everything runs in a worker of its own
// (runtime/own-text-client.js → labs/own-text.js → Module.OnnxTextLab); nothing is uploaded; the files are kept in
// the browser only when the user ticks the box (runtime/own-text-store.js).
//
// Contract:
//   mountOwnTextView(details, { store }) → { apply(state), onResult(fn) }
//     details: the #own-text element of index.html; store: the URL state. URL fields (web/state.js): otmodel (the
//     shipped demo's name when it is the model shown — never a user's file), ottext (the prompt / text), otnext
//     (greedy tokens added by Next: a link replays them), ottarget (the explained token / class; −1 = the greedy
//     next token / the predicted class), otlayer / otheads (views/own-text/attention.js).
//     onResult(fn): fn({ info, result, ids, target, text, special, truncated, source }) after each explained step
//     (special: one template flag per explained id; source: {key, shipped} | {key, files}, to load the same model
//     elsewhere). The debate panels (views/own-text/debate.js, #ot-debate after the rows and attention views) are
//     its first listener: OnnxTextLab.experiment in a second worker, URL fields otdlayer, otdclosed, otdsteps.
//   details.dataset.status: 'empty' (no model) | 'loading' | 'pending' | 'ready' | 'busy' (a long job) | 'error';
//   details.ownTextResult: the last result (tests read it); #ot-status says what was explained and in how many ms.
//   Bad files (none .onnx, no tokenizer, too large, a model the core refuses): a message in #ot-message naming the
//   file; the model and text held so far stay.
import { el } from '../render/dom.js';
import { renderTokenRows } from '../render/token-rows.js';
import { summaryFacts } from '../analysis/own-model.js';
import { sortModelFiles, pieceLabel, truncationText, taskText, attentionText, probabilityText } from '../analysis/own-text.js';
import { bytes as sizeText, signed as fmtSigned } from '../analysis/format.js';
import { OwnTextClient } from '../runtime/own-text-client.js';
import { keepTextModel, keptTextModel, forgetTextModel } from '../runtime/own-text-store.js';
import { mountOwnTextAttention } from './own-text/attention.js';
import { cutSpecial } from '../analysis/own-text-debate.js';

export const SHIPPED = 'stories260K';
const DEBOUNCE_MS = 300;

// The rows of explain-onnx-text (core/explain/onnx_text/onnx_text_explain.h), in the order they are drawn.
export const OWN_TEXT_MEASURES = Object.freeze([
  { key: 'attention', label: 'Attention', signed: false, kendallKey: false, short: 'last layer, the explained position’s row, heads averaged',
    help: 'The last layer’s attention from the explained position to each token, averaged over the heads (found in the graph, not declared).' },
  { key: 'rollout', label: 'Rollout', signed: false, kendallKey: false, short: 'attention multiplied through the layers',
    help: 'Attention rollout (Abnar & Zuidema 2020): each layer’s heads averaged with the residual (0.5·A + 0.5·I), multiplied through the layers; the explained position’s row.' },
  { key: 'flow', label: 'Attention flow', signed: false, kendallKey: false, short: 'the most attention that can flow to the explained position',
    help: 'Attention flow (Abnar & Zuidema 2020): the maximum flow from each token to the explained position through the layered attention graph.' },
  { key: 'relevance', label: 'Relevance', signed: false, kendallKey: false, short: 'gradient-weighted attention through the layers',
    help: 'Chefer et al. 2021: the attention weighted by its gradient (positive part, heads averaged), propagated through the layers.' },
  { key: 'grad_attention', label: 'Attention × gradient', signed: false, kendallKey: false, short: 'last layer: A ⊙ ∂logit/∂A, heads averaged',
    help: 'The last layer’s attention times the gradient of the explained logit with respect to it, averaged over the heads.' },
  { key: 'attnlrp', label: 'AttnLRP', signed: true, kendallKey: false, conservationKey: 'attnlrp_conservation', rulesKey: 'attnlrp_rules',
    short: 'signed: the logit split over the tokens, rule by rule',
    help: 'AttnLRP (Achtibat et al. 2024), its rules found in your graph: LayerNorm / RMSNorm scales held, gated activations (GELU, SiLU) passed through, half to each side of a product of two activations (Q·Kᵀ, A·V, gated FFNs); relevance = embedding × the propagated quantity. Signed: blue for, red against the explained token / class.' },
  { key: 'cp_lrp', label: 'CP-LRP', signed: true, kendallKey: false, conservationKey: 'cp_lrp_conservation', rulesKey: 'cp_lrp_rules',
    short: 'signed: relevance through the values, attention held fixed',
    help: 'CP-LRP (Ali et al. 2022): as AttnLRP, but every attention distribution held fixed, so relevance flows only through the values. On a model without biases (a Llama such as stories260K) the tokens’ relevances add up to the logit exactly.' },
  { key: 'value_zeroing', label: 'Value zeroing', signed: false, kendallKey: false, short: 'how far the layers’ outputs move without the token’s values, rolled out',
    help: 'Value zeroing (Mohebbi et al. 2023): in each layer the token’s value vectors are zeroed in every head and the rest of the model run again; each position’s output of that layer is compared with the original one (cosine distance, rows normalised to 1), and the layers are multiplied through from the explained position. The values and the layers’ outputs are found in your graph: the residual sum after each block (after its LayerNorm in a post-LN model such as BERT). One run of the model per token and layer, after the other rows.' },
  { key: 'alti', label: 'ALTI', signed: false, kendallKey: false, short: 'each token’s share of the attention sublayer’s output, rolled out',
    help: 'ALTI (Ferrando et al. 2022): the attention sublayer’s output at each position (its residual sum, after its LayerNorm in a post-LN model) split exactly into what each token sends through its values and the output projection, plus the position itself through the residual; each share scored by how close it is to the whole (L1 distance), rows normalised to 1, then the layers multiplied through from the explained position. Found in your graph; one run of the model per token and layer.' },
  { key: 'gradient', label: 'Gradient', signed: false, kendallKey: false, short: '‖∂logit/∂x‖ on the token embeddings',
    help: 'The norm of the gradient of the explained logit with respect to each token’s embedding (the output of the Gather that reads the ids).' },
  { key: 'gradient_x_input', label: 'Gradient × input', signed: true, kendallKey: false, short: 'signed: blue raises, red lowers the logit',
    help: 'Σ over the embedding of x · ∂logit/∂x for each token: signed, blue raises the explained logit, red lowers it.' },
  { key: 'integrated_gradients', label: 'Integrated gradients', signed: true, kendallKey: false, short: 'signed; their sum should be p(x) − p(baseline)',
    help: 'Integrated gradients (Sundararajan et al. 2017) of the explained probability from the all-zero token-embedding baseline (positions kept): signed, blue raises, red lowers it. Their sum is shown beside p(x) − p(baseline) (completeness). A model whose only position signal is rotary (a Llama such as stories260K: nothing is added to the token embeddings) sees α·x near α = 0 through RMSNorms that each multiply it by up to 1/√ε, so its output swings wildly there and no number of steps integrates that path; then the baseline is every token’s embedding replaced by the padding / unknown token’s (the template’s tokens kept), and the line under the row says so with the zero baseline’s failed sums.' },
  { key: 'leave_one_out', label: 'Leave-one-out', signed: false, kendallKey: false, short: 'the token deleted, the rest re-run',
    help: '|p(x) − p(x without the token)| of the explained token / class: each token deleted in turn and the rest run again.' },
]);

// The line under the integrated-gradients row when the core left the zero baseline (labs/own-text.js ig: `baseline`).
function igBaselineText(b) {
  if (b?.kind !== 'token') return '';
  const zero = b.zero_completeness;
  return `baseline: ${b.piece || `token ${b.token}`}’s embedding at every token but the template’s` +
    (zero ? ` (from zero embeddings Σ ${fmtSigned(zero.sum)} vs p(x) − p(0) ${fmtSigned(zero.target)}: a path no step count integrates on this model)` : '');
}

function readFileBytes(file) {
  return file.arrayBuffer().then((b) => new Uint8Array(b));
}

// The files of a dropped folder (DataTransferItem.webkitGetAsEntry), at most 3 levels and 200 files deep.
async function droppedFiles(dt) {
  const items = [...(dt?.items ?? [])];
  const entries = items.map((i) => i.webkitGetAsEntry?.()).filter(Boolean);
  if (!entries.length) return [...(dt?.files ?? [])];
  const out = [];
  const walk = async (entry, path, depth) => {
    if (out.length >= 200) return;
    if (entry.isFile) {
      const f = await new Promise((res, rej) => entry.file(res, rej));
      out.push(Object.assign(f, { path: `${path}${f.name}` }));
    } else if (entry.isDirectory && depth < 3) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
        if (!batch.length) break;
        for (const e of batch) await walk(e, `${path}${entry.name}/`, depth + 1);
      }
    }
  };
  for (const e of entries) await walk(e, '', 0);
  return out;
}

export function mountOwnTextView(details, { store }) {
  const $ = (s) => details.querySelector(s);
  const ui = {
    files: $('#ot-files'), folder: $('#ot-folder'), drop: $('#ot-drop'), demo: $('#ot-demo'), kept: $('#ot-kept'),
    status: $('#ot-status'), message: $('#ot-message'), notice: $('#ot-notice'), summary: $('#ot-summary'),
    input: $('#ot-input'), text: $('#ot-text'), next: $('#ot-next'), reset: $('#ot-reset'), keep: $('#ot-keep'),
    keepLabel: $('#ot-keep-label'), continuation: $('#ot-continuation'), job: $('#ot-job'), jobBar: $('#ot-job-progress'),
    jobText: $('#ot-job-text'), cancel: $('#ot-cancel'), results: $('#ot-results'), top: $('#ot-top'),
    topTitle: $('#ot-top-title'), rows: $('#ot-rows'), attention: $('#ot-attention'),
  };
  const attention = mountOwnTextAttention(ui.attention, { store });
  ui.debate = el('section', 'ot-debate live-panels', undefined, { id: 'ot-debate', 'aria-labelledby': 'ot-debate-title' });
  ui.debate.hidden = true;
  ui.results.append(ui.debate);
  // The debate panels' module loads with the first explained step (the card mounts no slower than before).
  let debateMounted = null;
  const debateReady = () => (debateMounted ??= import('./own-text/debate.js').then((m) => m.mountOwnTextDebate(ui.debate, { store })));
  const debate = {
    update: (step) => debateReady().then((d) => d.update(step)),
    hold: () => debateMounted?.then((d) => d.hold()),
    clear: () => debateMounted?.then((d) => d.clear()),
    apply: () => debateMounted?.then((d) => d.apply()),
  };
  let client = null;
  let model = null; // {name, info, shipped?, files?: {model, tokenizer, config, names}, bytes}
  let promptIds = null; // ids of the prompt (tokenized once per prompt)
  let promptSpecial = []; // its template flags (BOS, [CLS], [SEP]): held fixed by the debate panels
  let sourceKey = 0; // bumps per model loaded (the debate worker loads the same one)
  let generated = []; // ids added by Next
  let result = null;
  let seq = 0; // bumps on every new model / text: older answers are dropped
  let timer = 0;
  let job = null; // {cancel, kind}
  const listeners = [];
  let prev = store.get(); // the state this view last wrote or applied (apply() acts on what a link changed)
  const save = (patch) => {
    store.update(patch);
    prev = store.get();
  };

  const setStatus = (s, text) => {
    details.dataset.status = s;
    if (text !== undefined) ui.status.textContent = text;
  };
  const showMessage = (text) => {
    ui.message.textContent = text ?? '';
    ui.message.hidden = !text;
  };
  const showNotice = (text) => {
    ui.notice.textContent = text ?? '';
    ui.notice.hidden = !text;
  };

  function ensureClient() {
    if (client) return client;
    client = new OwnTextClient();
    client.channel.onReplaced((message) => {
      stopJob();
      result = null;
      setStatus('error');
      showMessage(`${message}${model ? ` Your model (${model.name}) and text are kept.` : ''}`);
      if (model) {
        const again = el('button', 'small', 'Load it again', { type: 'button', id: 'ot-retry' });
        again.addEventListener('click', () => (model.shipped ? openShipped() : openFiles(model.files)));
        ui.message.append(' ', again);
      }
    });
    return client;
  }

  // ------------------------------------------------------------------ jobs (leave-one-out, replayed Next steps)
  function stopJob() {
    job?.cancel();
    job = null;
    ui.job.hidden = true;
  }
  function runJob(kind, start, label) {
    stopJob();
    ui.jobBar.value = 0;
    ui.jobText.textContent = label;
    ui.job.hidden = false;
    const j = start((p) => {
      if (p.total > 0) {
        ui.jobBar.value = p.done / p.total;
        ui.jobText.textContent = `${label} ${p.done} of ${p.total}`;
      }
    });
    job = { kind, cancel: j.cancel };
    return j.promise.finally(() => {
      if (job?.cancel === j.cancel) {
        job = null;
        ui.job.hidden = true;
      }
    });
  }
  ui.cancel.addEventListener('click', stopJob);

  // ------------------------------------------------------------------ the model
  function renderSummary() {
    const { info, name, bytes } = model;
    const dl = el('dl', 'own-facts');
    const facts = summaryFacts(info.summary, { name, bytes, attention: false }); // the text model's own line below
    facts.splice(1, 0, { label: 'Task', value: taskText(info) },
      { label: 'Tokenizer', value: `${info.tokenizer.kind}, ${info.tokenizer.vocab_size.toLocaleString('en')} entries` },
      { label: 'Attention', value: attentionText(info) });
    if (info.max_positions) facts.push({ label: 'Positions', value: `at most ${info.max_positions} (${info.max_positions_source === 'tried' ? 'found by trying' : info.max_positions_source})` });
    for (const f of facts) dl.append(el('dt', null, f.label), el('dd', null, f.value));
    ui.summary.replaceChildren(dl);
    ui.summary.hidden = false;
    ui.topTitle.textContent = info.causal ? 'Next token: the top 5 — click one to explain it' : 'Classes — click one to explain it';
    ui.next.hidden = !info.causal;
    ui.reset.hidden = !info.causal;
    ui.keepLabel.hidden = Boolean(model.shipped);
  }

  async function loaded(r, extra) {
    model = { name: r.name, info: r.info, bytes: r.bytes, ...extra, key: `m${++sourceKey}` };
    debate.clear();
    promptIds = null;
    generated = [];
    result = null;
    renderSummary();
    ui.input.hidden = false;
    details.open = true;
  }

  async function openShipped(fromLink = false) {
    const my = ++seq;
    stopJob();
    showMessage('');
    setStatus('loading', `Loading the shipped ${SHIPPED}…`);
    let r;
    try {
      r = await ensureClient().shipped(SHIPPED, (p) => {
        if (p.total) ui.status.textContent = `Loading the shipped ${SHIPPED}: ${Math.round((100 * p.loaded) / p.total)} % of ${sizeText(p.total)}…`;
      });
    } catch (e) {
      if (my !== seq) return;
      setStatus(model ? 'ready' : 'error', '');
      showMessage(`The shipped ${SHIPPED} could not be loaded: ${e.message}`);
      return;
    }
    if (my !== seq) return;
    await loaded(r, { shipped: SHIPPED });
    showNotice(`${r.description}${r.license ? ` (${r.license} licence)` : ''}. Type a prompt: the rows explain the next token.`);
    if (!fromLink) {
      const st = store.get();
      save({ otmodel: SHIPPED, otnext: 0, ottarget: -1, ottext: st.ottext });
    } else {
      save({ otmodel: SHIPPED });
    }
    ui.text.value = store.get().ottext;
    await restart(fromLink ? store.get().otnext : 0);
  }

  async function openFiles(files, { fromCache = false } = {}) {
    const my = ++seq;
    stopJob();
    showMessage('');
    setStatus('loading', `Reading ${files.names.model}…`);
    let r;
    try {
      r = await ensureClient().load(files);
    } catch (e) {
      if (my !== seq) return;
      setStatus(model ? 'ready' : 'error', '');
      const held = model && client.loaded ? ` ${model.name} stays loaded.` : '';
      showMessage(`${[files.names.model, files.names.tokenizer, files.names.config].filter(Boolean).join(' + ')} cannot be explained here: ${e.message}${held}`);
      return;
    }
    if (my !== seq) return;
    await loaded(r, { files });
    save({ otmodel: '', otnext: 0, ottarget: -1 });
    showNotice('');
    if (fromCache) ui.keep.checked = true;
    else if (ui.keep.checked) keepTextModel(files).catch(() => {});
    ui.text.value = store.get().ottext;
    await restart(0);
  }

  async function pickFiles(list) {
    const sorted = sortModelFiles(list);
    if (sorted.why) {
      showMessage(sorted.why + (model ? ` ${model.name} stays loaded.` : ''));
      return;
    }
    let config = '';
    try {
      const [m, t] = await Promise.all([readFileBytes(sorted.model), readFileBytes(sorted.tokenizer)]);
      if (sorted.config) config = await sorted.config.text();
      const names = { model: sorted.model.name, tokenizer: sorted.tokenizer.name, config: sorted.config?.name ?? '' };
      showNotice(sorted.notes.join(' '));
      await openFiles({ model: m, tokenizer: t, config, names });
    } catch (e) {
      showMessage(`The files could not be read: ${e.message}`);
    }
  }

  // ------------------------------------------------------------------ text → ids → explanation
  // A new prompt (or model): tokenize it, replay `next` greedy steps (a link's otnext), explain.
  async function restart(next = 0) {
    const my = ++seq;
    stopJob();
    const text = ui.text.value;
    if (!text.trim() && !model.info.causal) {
      setStatus('empty', 'Type a text to explain.');
      ui.results.hidden = true;
      return;
    }
    setStatus('pending', 'Tokenizing…');
    let t;
    try {
      t = await client.tokenize(text);
    } catch (e) {
      if (my !== seq) return;
      setStatus('error', '');
      showMessage(`The text could not be tokenized: ${e.message}`);
      return;
    }
    if (my !== seq) return;
    promptIds = t.ids;
    promptSpecial = t.special ?? [];
    generated = [];
    if (!promptIds.length) {
      setStatus('empty', 'No tokens in this text.');
      ui.results.hidden = true;
      return;
    }
    if (next > 0 && model.info.causal) {
      let g;
      try {
        g = await runJob('generate', (onProgress) => client.generate({ ids: promptIds, steps: next }, onProgress), 'Replaying the link’s Next steps:');
      } catch (e) {
        if (my !== seq) return;
        showMessage(`The link’s ${next} Next steps could not be replayed: ${e.message}`);
        g = null;
      }
      if (my !== seq) return;
      if (g) {
        generated = g.ids.slice(promptIds.length);
        if (g.stop !== 'steps') showNotice(`The link asked for ${next} Next steps; ${generated.length} were run (${g.stop === 'cancelled' ? 'cancelled' : g.stop === 'end' ? 'the model ended the text' : 'the model reads no more positions'}).`);
        if (generated.length !== next) save({ otnext: generated.length });
      }
    }
    await explain();
  }

  async function explain() {
    const my = ++seq;
    stopJob();
    debate.hold(); // the debate panels' runs for the step before stop: this explanation gets the cores
    const ids = [...promptIds, ...generated];
    const st = store.get();
    const target = st.ottarget >= 0 ? st.ottarget : 'next';
    setStatus('pending', 'Explaining…');
    const t0 = performance.now();
    let r;
    try {
      r = await client.explain(ids, target);
    } catch (e) {
      if (my !== seq) return;
      setStatus('error', '');
      const bad = st.ottarget >= 0 && /out of range/.test(e.message);
      showMessage(`Could not explain this text with ${model.name}: ${e.message}` + (bad ? ' (the link’s ottarget is not an output of this model; the greedy / predicted one is shown instead)' : ''));
      if (bad) {
        save({ ottarget: -1 });
        explain();
      }
      return;
    }
    if (r === null || my !== seq) return;
    const ms = performance.now() - t0;
    showMessage('');
    show(r, ids, ms);
    const e = r.explain;
    const T = e.ids.length;
    const special = cutSpecial([...promptSpecial, ...generated.map(() => 0)], e.ids.length);
    let tail = '';
    if (T > 1 && !Array.isArray(e.leave_one_out)) {
      const t1 = performance.now();
      try {
        const loo = await runJob('loo', (onProgress) => client.loo({ ids: e.ids, target: e.target, p: e.probability }, onProgress), 'Leave-one-out: token');
        if (my !== seq) return;
        if (loo.cancelled) tail = ' · leave-one-out cancelled';
        else {
          result.leave_one_out = loo.values.map((v) => (v === null ? NaN : v));
          drawRows();
          tail = ` · leave-one-out ${Math.round(performance.now() - t1)} ms more`;
        }
      } catch (err) {
        if (my !== seq) return;
        showMessage(`Leave-one-out failed: ${err.message}`);
      }
    }
    if (!e.gradient_note) {
      const t2 = performance.now();
      try {
        const ig = await runJob('ig', (onProgress) => client.ig({ ids: e.ids, target: e.target, special }, onProgress), 'Integrated gradients…');
        if (my !== seq) return;
        if (ig.cancelled) tail += ' · integrated gradients cancelled';
        else {
          result.integrated_gradients = ig.values.map((v) => (v === null ? NaN : v));
          result.integrated_gradients_completeness = { ...ig.completeness, baseline: igBaselineText(ig.baseline) };
          drawRows();
          tail += ` · integrated gradients ${Math.round(performance.now() - t2)} ms more (Σ ${fmtSigned(ig.completeness.sum)} vs p(x) − p(baseline) ${fmtSigned(ig.completeness.target)})`;
        }
      } catch (err) {
        if (my !== seq) return;
        showMessage(`Integrated gradients failed: ${err.message}`);
      }
    }
    for (const [key, label] of [['value_zeroing', 'value zeroing'], ['alti', 'ALTI']]) {
      if (e.attention_note) break;
      const t3 = performance.now();
      try {
        const name = label[0].toUpperCase() + label.slice(1);
        const mix = await runJob(key, (onProgress) => client.mixing({ ids: e.ids, method: key }, onProgress), `${name}: layer`);
        if (my !== seq) return;
        if (mix.cancelled) {
          tail += ` · ${label} cancelled`;
          break;
        }
        result[key] = mix.values.map((v) => (v === null ? NaN : v));
        result.context_mixing_found = mix.found;
        drawRows();
        tail += ` · ${label} ${Math.round(performance.now() - t3)} ms more`;
      } catch (err) {
        if (my !== seq) return;
        showMessage(`${label[0].toUpperCase() + label.slice(1)} failed: ${err.message.replace(/^(context mixing|ALTI): /, '')}`);
        result[key] = undefined;
        drawRows();
      }
    }
    setStatus('ready', `${statusText(ms)}${tail}`);
    const source = model.shipped ? { key: model.key, shipped: model.shipped } : { key: model.key, files: model.files };
    const step = { info: model.info, result, ids: e.ids, target: e.target, text: ui.text.value, special, truncated: e.truncated ?? null, source };
    for (const fn of listeners) fn(step);
  }

  const nulls = (a) => (Array.isArray(a) ? a.map((v) => (v === null ? NaN : v)) : a);

  function statusText(ms) {
    const e = result;
    const T = e.ids.length;
    const what = model.info.causal ? `the next token after ${T} token${T === 1 ? '' : 's'}` : `${T} token${T === 1 ? '' : 's'}`;
    return `${model.name} · ${what} explained in ${Math.round(ms)} ms`;
  }

  function show(r, ids, ms) {
    const e = r.explain;
    const labels = r.pieces.tokens.map(pieceLabel);
    result = { ...e, tokens: labels, raw_tokens: r.pieces.tokens, top: r.top, maps: r.maps, ms, worker_ms: r.ms, worker_parts: r.parts_ms };
    for (const m of OWN_TEXT_MEASURES) result[m.key] = nulls(e[m.key]);
    if (!Array.isArray(e.leave_one_out)) result.leave_one_out = e.ids.map(() => NaN); // filled by the loo job
    result.integrated_gradients = e.ids.map(() => NaN); // filled by the ig job
    if (!e.attention_note) for (const k of ['value_zeroing', 'alti']) result[k] = e.ids.map(() => NaN); // filled by the mixing jobs
    details.ownTextResult = result;
    // the text so far: the prompt, then what Next added (bold)
    const cont = r.pieces.texts.slice(promptIds.length).join('');
    ui.continuation.replaceChildren();
    if (generated.length) {
      ui.continuation.append(el('span', 'ot-prompt', 'Text so far: '), el('span', 'ot-prompt-text', ui.text.value), el('b', 'ot-generated', cont));
      ui.continuation.hidden = false;
    } else {
      ui.continuation.hidden = true;
    }
    showNotice([truncationText(e.truncated, generated.length ? null : ui.text.value), e.gradient_note ?? '', e.attention_note ?? '', e.flow_note ?? ''].filter(Boolean).join(' '));
    drawTop();
    drawRows();
    // the head and model views: the graph's positions, labelled by their tokens
    if (r.maps) {
      const posLabels = r.maps.token_of.map((t) => (t >= 0 ? labels[t] ?? '' : '(graph’s own)'));
      attention.update(r.maps, posLabels);
    } else {
      attention.clear();
    }
    ui.results.hidden = false;
    const atLimit = model.info.max_positions && ids.length >= model.info.max_positions;
    ui.next.disabled = Boolean(e.truncated) || atLimit || r.top.stop;
    ui.next.title = r.top.stop ? 'The greedy next token ends the text (the model’s end-of-text token)'
      : ui.next.disabled ? 'The model reads no more positions' : '';
    ui.reset.disabled = generated.length === 0;
    setStatus('pending', statusText(ms));
  }

  function drawTop() {
    const { top, target } = result;
    const ol = el('ol', 'ot-top-list');
    for (const t of top.top) {
      const li = el('li');
      const label = model.info.causal ? `“${t.text}”` : t.token;
      const b = el('button', 'ot-choice', undefined, { type: 'button', 'data-id': t.id, 'aria-pressed': t.id === target,
        title: `${model.info.causal ? `token ${t.id} (${JSON.stringify(t.token)})` : `class ${t.id}`}, logit ${t.logit.toFixed(3)}` });
      const bar = el('span', 'ot-bar', '', { 'aria-hidden': 'true' });
      bar.style.width = `${Math.max(1, Math.round(100 * t.probability))}%`;
      b.append(el('span', 'ot-choice-text', label, { dir: 'auto' }), el('span', 'ot-choice-p', probabilityText(t.probability)), bar);
      if (t.id === top.greedy) b.append(el('span', 'ot-greedy', model.info.causal ? 'greedy' : 'predicted'));
      b.addEventListener('click', () => {
        save({ ottarget: t.id === top.greedy ? -1 : t.id });
        explain();
      });
      li.append(b);
      ol.append(li);
    }
    ui.top.replaceChildren(ol);
    if (!top.top.some((t) => t.id === target)) {
      ui.top.append(el('p', 'card-sub', `Explained: ${model.info.causal ? `token ${target}` : `class ${target}`} (from the link), p = ${probabilityText(result.probability)}.`));
    }
  }

  function drawRows() {
    const what = model.info.causal ? `p(next = “${result.top.top.find((t) => t.id === result.target)?.text ?? result.target}”)`
      : `p(${result.top.top.find((t) => t.id === result.target)?.token ?? `class ${result.target}`})`;
    const note = el('p', 'rows-note');
    note.append('The rows explain ', el('b', null, what), ` = ${probabilityText(result.probability)}` +
      (model.info.causal ? ', read at the last position (which has no value of its own in the attention rows). ' : '. ') +
      'Positions the graph adds itself have no value either.');
    const shown = OWN_TEXT_MEASURES.filter((m) => Array.isArray(result[m.key]));
    renderTokenRows(ui.rows, result, { measures: shown, note, legend: false });
  }

  // ------------------------------------------------------------------ inputs
  ui.demo.addEventListener('click', () => openShipped(false));
  ui.files.addEventListener('change', () => {
    const list = [...(ui.files.files ?? [])];
    ui.files.value = '';
    if (list.length) pickFiles(list);
  });
  ui.folder.addEventListener('change', () => {
    const list = [...(ui.folder.files ?? [])];
    ui.folder.value = '';
    if (list.length) pickFiles(list);
  });
  ui.drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    ui.drop.classList.add('dragging');
  });
  ui.drop.addEventListener('dragleave', () => ui.drop.classList.remove('dragging'));
  ui.drop.addEventListener('drop', async (e) => {
    e.preventDefault();
    ui.drop.classList.remove('dragging');
    let list;
    try {
      list = await droppedFiles(e.dataTransfer);
    } catch (err) {
      showMessage(`The dropped files could not be read: ${err.message}`);
      return;
    }
    if (list.length) pickFiles(list);
  });
  ui.text.addEventListener('input', () => {
    save({ ottext: ui.text.value, otnext: 0, ottarget: -1 });
    if (!model || !client?.loaded) return;
    clearTimeout(timer);
    ++seq;
    setStatus('pending');
    timer = setTimeout(() => restart(0), DEBOUNCE_MS);
  });
  ui.next.addEventListener('click', () => {
    if (!result || result.top.stop) return;
    generated.push(result.top.greedy);
    save({ otnext: generated.length, ottarget: -1 });
    explain();
  });
  ui.reset.addEventListener('click', () => {
    generated = [];
    save({ otnext: 0, ottarget: -1 });
    explain();
  });
  ui.keep.addEventListener('change', () => {
    if (ui.keep.checked && model?.files) keepTextModel(model.files).catch((e) => showMessage(`The model could not be kept: ${e.message}`));
    if (!ui.keep.checked) forgetTextModel().catch(() => {});
  });

  // The model kept from an earlier visit (only when the user asked): offered, never loaded by itself.
  let keptChecked = false;
  async function offerKept() {
    if (keptChecked) return;
    keptChecked = true;
    let k = null;
    try {
      k = await keptTextModel();
    } catch {
      k = null;
    }
    if (!k || model) return;
    ui.kept.hidden = false;
    ui.kept.replaceChildren(el('span', null, `Kept from your last visit: ${k.names.model ?? 'model.onnx'} + ${k.names.tokenizer ?? 'tokenizer'} (${sizeText(k.model.length)}). `));
    const load = el('button', 'small', 'Load it', { type: 'button', id: 'ot-load-kept' });
    const forget = el('button', 'small', 'Forget it', { type: 'button', id: 'ot-forget-kept' });
    load.addEventListener('click', () => {
      ui.kept.hidden = true;
      openFiles(k, { fromCache: true });
    });
    forget.addEventListener('click', () => {
      forgetTextModel().catch(() => {});
      ui.kept.hidden = true;
      ui.keep.checked = false;
    });
    ui.kept.append(load, ' ', forget);
  }

  function apply(state) {
    const before = prev;
    prev = state;
    if (state.view !== 'text') return;
    offerKept();
    if (state.otmodel === SHIPPED && !(model?.shipped === SHIPPED)) {
      ui.text.value = state.ottext;
      openShipped(true);
      return;
    }
    if (!model) {
      if (ui.text.value !== state.ottext) ui.text.value = state.ottext;
      return;
    }
    if (ui.text.value !== state.ottext || before.otnext !== state.otnext) {
      ui.text.value = state.ottext;
      restart(state.otnext);
      return;
    }
    if (before.ottarget !== state.ottarget) {
      explain();
      return;
    }
    attention.apply();
    debate.apply();
  }

  ui.text.value = store.get().ottext;
  setStatus('empty', '');
  listeners.push((step) => debate.update(step));
  return { apply, onResult: (fn) => listeners.push(fn), debate };
}
