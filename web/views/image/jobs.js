// jobs.js — the Image view's one long job at a time: progress bar, Cancel, controls disabled while it runs.
// Part of views/image-view.js (installJobs(v) adds startJob, jobProgress, endJob, cancelJob to v). A part of a job
// that has run over 5 s says its time left beside the pass count, from its rate so far (analysis/eta.js).
import { etaText } from '../../analysis/eta.js';


export function installJobs(v) {
  const { cancelButton, curvesButton, eraseButton, jobBar, jobRow, jobText, sanityButton, whichButton } = v.ui;
  // ------------------------------------------------------------ jobs (progress + cancel)
  function startJob(label, handles, method) {
    v.job = { label, handles, method };
    jobRow.hidden = false;
    jobBar.removeAttribute('value');
    jobText.textContent = `${label}: starting…`;
    cancelButton.disabled = false;
    v.setStatus('busy');
    for (const b of [curvesButton, eraseButton, sanityButton, whichButton]) b.disabled = true;
    v.renderGrid();
  }
  function jobProgress(m, what) {
    if (!v.job || !m.total) return;
    jobBar.max = m.total;
    jobBar.value = m.loaded;
    // the rate of this part of the job (a curves job runs deletion, then insertion, then the masked photo)
    const now = performance.now();
    if (v.job.part !== what || m.loaded < (v.job.partDone ?? 0)) Object.assign(v.job, { part: what, partT0: now, partStart: m.loaded });
    v.job.partDone = m.loaded;
    const left = etaText((now - v.job.partT0) / 1000, m.loaded - v.job.partStart, m.total - v.job.partStart);
    jobText.textContent = `${what}: ${m.loaded.toLocaleString('en')} / ${m.total.toLocaleString('en')}${left ? ` · ${left}` : ''}`;
    jobText.dataset.eta = left;
  }
  function endJob() {
    v.job = null;
    jobRow.hidden = true;
    v.setStatus(v.photo ? 'ready' : 'loading');
    for (const b of [curvesButton, eraseButton, sanityButton, whichButton]) b.disabled = false;
    v.renderGrid();
    if (v.photo && !v.maps.has(v.mapKey(v.st.method))) v.renderMain();
  }
  function cancelJob() {
    if (!v.job) return;
    v.job.cancelled = true;
    for (const h of v.job.handles) h.cancel();
    jobText.textContent = `${v.job.label}: cancelling…`;
    cancelButton.disabled = true;
  }
  Object.assign(v, { startJob, jobProgress, endJob, cancelJob });
}
