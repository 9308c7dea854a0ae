// app.js — the page shell: reads the URL (web/state.js), shows one lab view, keeps the URL in step.
//
// Contract:
//   On load: state = parse(location.hash); the matching view section is shown and given the state.
//   store.update(patch) merges into the state and rewrites the hash with history.replaceState (no history
//   entry per keystroke, no hashchange event); views call it for every change the user makes.
//   A hashchange (the user edits or pastes a link) re-parses the URL and re-applies it to the view.
//   Views: text (views/text-view.js), documents (views/document-view.js: HAN models), global (views/global-view.js:
//   what an additive attention query looks for), debate (views/debate-view.js), train (views/train-view.js) and
//   localization (views/localization-view.js) share one host worker (runtime/lab-runtime.js: one core, one
//   queue); image (views/image-view.js) has its own host worker (ORT's backend is per worker; it loads nothing
//   until first shown; "Your model" there, views/own-model-view.js, has a worker of its own; a page opened on the
//   Images tab holds the text host until the first photo is classified, another tab is opened or 8 s have passed:
//   WorkerChannel.holdUntil); a Debate run adds pool workers (runtime/pool.js, `workers=` in the URL). When a worker
//   dies or aborts, it is replaced on the next request and #app-message says so (inputs are kept) until the
//   fresh worker answers. An unknown view shows the "coming soon" card. A model trained in the Train view
//   is added to the text and debate views' pickers (addModel) — in memory, for this tab only.
//   Any uncaught error is shown in #app-message instead of failing silently; a value of the link that the
//   schema clamped, cut or refused is named in #link-notice (state.js parseWithNotices); store.linkUsed(field, used,
//   reason) lets a view correct the value it names when the view uses less (the Debate's n above its data set);
//   it answers whether the link notice names that field.
import { parseWithNotices, serialize, noticeText } from './state.js';
import { CoreClient } from './runtime/core-client.js';
import { CnnClient } from './runtime/cnn-client.js';
import { mountTextView } from './views/text-view.js';
import { mountDebateView } from './views/debate-view.js';
import { mountTrainView } from './views/train-view.js';
import { mountImageView } from './views/image-view.js';
import { mountOwnModelView } from './views/own-model-view.js';
import { mountLocalizationView } from './views/localization-view.js';
import { mountDocumentView } from './views/document-view.js';
import { mountGlobalView } from './views/global-view.js';

const appMessage = document.getElementById('app-message');
function showAppError(text) {
  appMessage.textContent = text;
  appMessage.hidden = !text;
}
window.addEventListener('error', (e) => showAppError(`Unexpected error: ${e.message}`));
window.addEventListener('unhandledrejection', (e) => showAppError(`Unexpected error: ${e.reason?.message ?? e.reason}`));

// Values of the link that could not be used as given (clamped, cut, refused) are said in #link-notice: one
// small notice line under the header, on every view, until the user dismisses it (or a link with no such value
// is opened). Its text is in #link-notice-text, one sentence per value (state.js noticeText).
const linkNotice = document.createElement('div');
linkNotice.id = 'link-notice';
linkNotice.className = 'message notice link-notice';
linkNotice.setAttribute('role', 'status');
linkNotice.hidden = true;
const linkNoticeText = document.createElement('span');
linkNoticeText.id = 'link-notice-text';
const linkNoticeClose = document.createElement('button');
linkNoticeClose.type = 'button';
linkNoticeClose.className = 'small link-notice-close';
linkNoticeClose.textContent = 'Dismiss';
linkNoticeClose.setAttribute('aria-label', 'Dismiss the notice about the link');
linkNoticeClose.addEventListener('click', () => {
  linkNotice.hidden = true;
});
linkNotice.append(linkNoticeText, linkNoticeClose);
appMessage.after(linkNotice);
let linkNotices = [];
function showLinkNotices() {
  linkNoticeText.textContent = linkNotices.length
    ? `This link asked for values the page cannot use as given: ${linkNotices.map(noticeText).join(' ')}`
    : '';
  linkNotice.dataset.fields = linkNotices.map((n) => n.field).join(' ');
  linkNotice.hidden = linkNotices.length === 0;
}
function readUrl() {
  const { state: s, notices } = parseWithNotices(location.hash);
  linkNotices = notices;
  showLinkNotices();
  return s;
}
// A view that uses less than the schema let through (the Debate's n above its data set's size) names the value it
// really uses, so the notice and the field agree.
// → true when the link notice names the field (the view need not say it again).
function linkUsed(field, used, reason) {
  const n = linkNotices.find((x) => x.field === field);
  if (!n) return false;
  if (n.used === used && n.reason === reason) return true;
  n.used = used;
  if (reason) n.reason = reason;
  showLinkNotices();
  return true;
}

let state = readUrl();

function writeUrl() {
  const url = location.pathname + location.search + serialize(state);
  if (url !== location.pathname + location.search + location.hash) history.replaceState(null, '', url);
}

const store = {
  get: () => state,
  linkUsed,
  update(patch) {
    state = { ...state, ...patch };
    writeUrl();
  },
};

let textView = null;
let debateView = null;
let documentView = null;
let globalView = null;
const client = new CoreClient({
  onProgress: (msg) => {
    textView?.progress(msg);
    debateView?.progress(msg);
    documentView?.progress(msg);
    globalView?.progress(msg);
  },
});
// The worker's "stopped" message stays until the fresh worker answers (then it is taken down); any other
// message shown since stays.
let replacedMessage = null;
// A cold open on the Images tab: the text host (its worker and its core compile) waits until the first photo is
// classified, another tab is opened, or 8 s — so on a small machine it does not compete with the image worker's load.
let releaseTextHost = () => {};
if (state.view === 'image') {
  client.channel.holdUntil(new Promise((resolve) => {
    releaseTextHost = resolve;
    setTimeout(resolve, 8000);
  }));
}
client.channel.onReplaced((message) => {
  replacedMessage = message;
  showAppError(message);
});
client.channel.onRecovered(() => {
  if (replacedMessage !== null && appMessage.textContent === replacedMessage) showAppError('');
  replacedMessage = null;
});
textView = mountTextView(document.getElementById('view-text'), { client, store });
debateView = mountDebateView(document.getElementById('view-debate'), { client, store });
// Documents (HAN models of the manifest's `documents`) share the text host: one core, one queue.
documentView = mountDocumentView(document.getElementById('view-documents'), { client, store });
globalView = mountGlobalView(document.getElementById('view-global'), {
  client,
  store,
  openView: (view) => {
    store.update({ view });
    showView();
  },
});
const trainView = mountTrainView(document.getElementById('view-train'), {
  client,
  store,
  onTrained: (entry) => {
    textView.addModel(entry);
    debateView.addModel(entry);
  },
  openModel: (name) => {
    store.update({ view: 'text', model: name });
    showView();
  },
});

const shippedImageView = mountImageView(document.getElementById('view-image'), { store });
// "Your model" (the last card of the Images tab) explains the photo the Image view shows, with the user's .onnx.
const ownModelView = mountOwnModelView(document.getElementById('own-model'), { store });
shippedImageView.onPhoto((photo) => {
  ownModelView.setPhoto(photo);
  releaseTextHost();
});
const imageView = {
  apply(s) {
    shippedImageView.apply(s);
    ownModelView.apply(s);
  },
};

const localizationView = mountLocalizationView(document.getElementById('view-localization'), {
  store, client: new CnnClient({ channel: client.channel }),
});

const views = { text: textView, documents: documentView, global: globalView, debate: debateView, train: trainView, image: imageView, localization: localizationView };
const TITLES = { localization: 'Localization lab — coming soon' };

function showView() {
  const name = views[state.view] ? state.view : 'soon';
  for (const section of document.querySelectorAll('main > .view')) section.hidden = section.dataset.view !== name;
  for (const tab of document.querySelectorAll('.view-tab')) {
    if (tab.dataset.view === state.view) tab.setAttribute('aria-current', 'page');
    else tab.removeAttribute('aria-current');
  }
  if (name !== 'image') releaseTextHost();
  if (name === 'soon') document.getElementById('soon-title').textContent = TITLES[state.view] ?? 'Coming soon';
  views[name]?.apply(state);
}

for (const tab of document.querySelectorAll('.view-tab')) {
  tab.addEventListener('click', () => {
    if (tab.disabled || tab.dataset.view === state.view) return;
    store.update({ view: tab.dataset.view });
    showView();
  });
}

document.getElementById('soon-back').addEventListener('click', (e) => {
  e.preventDefault(); // keep the model and text of the current state
  store.update({ view: 'text' });
  showView();
});

window.addEventListener('hashchange', () => {
  state = readUrl();
  showView();
});

showView();
writeUrl();
