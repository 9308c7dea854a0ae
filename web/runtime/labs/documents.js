// documents.js — the Documents lab's handlers: HAN models (hierarchical attention, docs/DESIGN.md "HAN") from the
// manifest's `documents` list, explained by the core's HanLab. No DOM.
//
// Requests (protocol: worker-channel.js; sessions: text-models.js loadDocumentSession):
//   documentModels {}                    → [entry]: the manifest's `documents` (name, description, limits, metrics…)
//   explainDocument {model, text, igSteps}  (a job: HanLab.explainStart, then one explainStep per queue step)
//                                        → the object `attnlab explain-text --model HAN_DIR` prints (HanLab.explain:
//                                          sentences, unknown, truncated, num_sentences_total, num_tokens_total,
//                                          notes, probability, probabilities, predicted_class, sentence_* / word_*
//                                          importances, integrated_gradients_completeness, kendall {sentence, word},
//                                          error) + model, class_names, limits (the model's splitter limits);
//                                          or {cancelled: true} after {type:'cancel'} (checked between the stages).
//                                          Progress {type:'progress', id, stage: 'explain', step (the measure computed
//                                          next: 'attention' | 'gradient' | 'leave-one-out' | 'integrated gradients'),
//                                          done, total} before each stage.
// igSteps left undefined takes the catalogue's default (the facade fills it in), as the CLI's --ig-steps.
// A shared model load reports {type:'progress', id: 0, model, stage, loaded, total} (ctx.event).
import { documentModels, loadDocumentSession } from './text-models.js';

async function explainDocument(msg, ctx) {
  const { model, text, igSteps } = msg;
  if (typeof model !== 'string' || !model) throw new Error('explainDocument needs {model, text}: no model named.');
  const s = await ctx.step(() => loadDocumentSession(model, (p) => ctx.event(p)));
  let state = await ctx.step(() => s.lab.explainStart(String(text ?? ''), igSteps));
  const job = state.job;
  while (!state.finished) {
    ctx.progress({ stage: 'explain', step: state.stage, done: state.done, total: state.total });
    await ctx.yield();
    if (ctx.cancelled()) return { cancelled: true };
    state = await ctx.step(() => s.lab.explainStep(job));
  }
  const result = await ctx.step(() => s.lab.explainResult(job));
  result.model = model;
  result.class_names = s.classNames;
  result.limits = {
    max_sentences: s.config.max_sentences, max_sentence_tokens: s.config.max_sentence_tokens, max_tokens: s.config.max_tokens,
  };
  return result;
}

export const documentsLab = {
  name: 'documents',
  handlers: {
    documentModels: () => documentModels(),
    explainDocument: { job: explainDocument },
  },
};
