// jobs.js — the Image view's one long job at a time: progress bar, Cancel, controls disabled while it runs.
// Part of views/image-view.js (installJobs(v) adds startJob, jobProgress, endJob, cancelJob to v).


export function installJobs(v) {
  const { cancelButton, curvesButton, eraseButton, jobBar, jobRow, jobText, sanityButton } = v.ui;
  // ------------------------------------------------------------ jobs (progress + cancel)
  function startJob(label, handles, method) {
    v.job = { label, handles, method };
    jobRow.hidden = false;
    jobBar.removeAttribute('value');
    jobText.textContent = `${label}: starting…`;
    cancelButton.disabled = false;
    v.setStatus('busy');
    for (const b of [curvesButton, eraseButton, sanityButton]) b.disabled = true;
    v.renderGrid();
  }
  function jobProgress(m, what) {
    if (!v.job || !m.total) return;
    jobBar.max = m.total;
    jobBar.value = m.loaded;
    jobText.textContent = `${what}: ${m.loaded.toLocaleString('en')} / ${m.total.toLocaleString('en')}`;
  }
  function endJob() {
    v.job = null;
    jobRow.hidden = true;
    v.setStatus(v.photo ? 'ready' : 'loading');
    for (const b of [curvesButton, eraseButton, sanityButton]) b.disabled = false;
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
