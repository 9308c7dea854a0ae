// page-bundle.mjs — the page's and the host worker's modules as a few files (issue 29, cold start). Unbundled, a cold
// open made ≈ 100 page-module requests and ≈ 15 more in the image worker, one import level after another over
// HTTP/1.1's six connections (the page's modules arrived at ≈ 1.8 s; the image worker started only then).
//   the page: app.js and views/page-tools.js (its second module script) with every module they import, as ONE file
//     served as /web/app.js (no chunks: a chunk is found only once app.js is parsed, one more round trip);
//     /web/views/page-tools.js is then an empty module (index.html keeps both tags, so the sources still run as they
//     are when nothing is bundled). The two entries' modules were one instance each before and are now too.
//   the host worker: runtime/host/worker.js with every lab, as ONE file (≈ 160 KB): a lab it imports on demand is
//     still evaluated only when its host asks for it (esbuild keeps the import lazy), so an image host runs the image
//     and runtime labs only, as before; chunks would be found one import level at a time again.
//
// Contract:
//   ENTRIES                 the bundled files' paths, relative to web/ (their URLs do not change: /web/app.js)
//   createPageBundler(webDir) → { files() }
//     files() → Promise<Map<relPath, Buffer>>  the bundled files by their path relative to web/; rebuilt when a
//       source file it was built from changed since (mtime), so the server never serves stale code.
//       Rejects when esbuild is missing or a source does not parse (the caller serves the sources then).
//   bundlePage(webDir) → Promise<Map<relPath, Buffer>>   one build (scripts/build-static.mjs)
// Each module's `import.meta.url` is rewritten to the URL its own file had (new URL('<its path>', the bundle's
// import.meta.url)), so `new URL('../../models/…', import.meta.url)` and the worker's URL resolve as before.
// Not minified: stack traces in the page's error line keep the names.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

const PAGE = 'app.js';
const PAGE_TOOLS = 'views/page-tools.js';
const WORKER = 'runtime/host/worker.js';
export const ENTRIES = [PAGE, PAGE_TOOLS, WORKER];
const META = '__attnlab_import_meta_url__:';

function metaUrlPlugin(webDir) {
  return {
    name: 'attnlab-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.m?js$/ }, async (args) => {
        let contents = await fsp.readFile(args.path, 'utf8');
        if (contents.includes('import.meta.url')) {
          const rel = path.relative(webDir, args.path).split(path.sep).join('/');
          contents = contents.replaceAll('import.meta.url', JSON.stringify(META + rel));
        }
        return { contents, loader: 'js' };
      });
    },
  };
}

// The placeholder becomes the module's own URL, relative to the output file that holds it.
function resolveMetaUrls(outRel, text) {
  const from = path.posix.dirname(outRel);
  return text.replace(new RegExp(`"${META}([^"]+)"`, 'g'), (_, rel) => {
    let r = path.posix.relative(from, rel);
    if (!r.startsWith('.')) r = `./${r}`;
    return `new URL(${JSON.stringify(r)}, import.meta.url).href`;
  });
}

async function build(esbuild, webDir) {
  const common = {
    outbase: webDir,
    outdir: webDir,
    bundle: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: webDir,
    plugins: [metaUrlPlugin(webDir)],
  };
  const [page, worker] = await Promise.all([
    esbuild.build({
      ...common,
      stdin: { contents: `import './${PAGE}';\nimport './${PAGE_TOOLS}';\n`, resolveDir: webDir, sourcefile: '<page-entry>' },
      outdir: undefined,
      outfile: path.join(webDir, PAGE),
    }),
    esbuild.build({ ...common, entryPoints: [path.join(webDir, WORKER)], outdir: undefined, outfile: path.join(webDir, WORKER) }),
  ]);
  const files = new Map([[PAGE_TOOLS, Buffer.from(`// ${PAGE_TOOLS}: bundled into ${PAGE} (scripts/page-bundle.mjs)\n`)]]);
  for (const out of [...page.outputFiles, ...worker.outputFiles]) {
    const rel = path.relative(webDir, out.path).split(path.sep).join('/');
    files.set(rel, Buffer.from(resolveMetaUrls(rel, out.text)));
  }
  const inputs = [page, worker].flatMap((r) => Object.keys(r.metafile.inputs))
    .filter((p) => !p.startsWith('<')).map((p) => path.resolve(webDir, p));
  return { files, inputs };
}

// esbuild reports real paths, so a linked web/ (a test's server root) is bundled from where it really is.
function realDir(dir) {
  try {
    return fs.realpathSync(path.resolve(dir));
  } catch {
    return path.resolve(dir); // missing: the build says so
  }
}

export async function bundlePage(webDir) {
  const esbuild = await import('esbuild');
  return (await build(esbuild, realDir(webDir))).files;
}

export function createPageBundler(webDir) {
  const dir = realDir(webDir);
  let current = null; // { files, inputs, builtAt }
  let pending = null;
  const newestInput = (inputs) => inputs.reduce((t, f) => {
    try {
      return Math.max(t, fs.statSync(f).mtimeMs);
    } catch {
      return Infinity; // a source that went away: rebuild
    }
  }, 0);
  async function rebuild() {
    const esbuild = await import('esbuild');
    const builtAt = Date.now();
    const { files, inputs } = await build(esbuild, dir);
    current = { files, inputs, builtAt };
    return files;
  }
  return {
    files() {
      if (pending) return pending;
      if (current && newestInput(current.inputs) < current.builtAt) return Promise.resolve(current.files);
      pending = rebuild().finally(() => {
        pending = null;
      });
      return pending;
    },
  };
}
