// report-data.js — what a view adds to its "Save report" JSON (views/page-tools.js): a view registers a function
// that returns its numbers as plain data; the report calls the one of the view shown.
//
// Contract:
//   registerReportData(view, fn)  view: the section's data-view ('image', …); fn() → a plain object (or null),
//                                 merged into the report's JSON block under its own keys.
//   reportDataFor(view) → fn() of that view, or null when none is registered (or it returns nothing).
const providers = new Map();

export function registerReportData(view, fn) {
  providers.set(view, fn);
}

export function reportDataFor(view) {
  const fn = providers.get(view);
  if (!fn) return null;
  return fn() ?? null;
}
