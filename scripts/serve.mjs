// serve.mjs — the static file server for the attnlab page (plain node:http, no dependencies).
//
// Contract:
//   startServer({ port = 8080, host = '127.0.0.1', root = <repo root>, headersTimeout = 10 s, requestTimeout = 30 s,
//                 csp = CSP (another policy: tests' negative controls only), bundle }) → Promise<{ server, port, url, close() }>
//   Serves only these trees of `root`:
//     /web/…         → web/
//     /models/…      → models/
//     /vendor/ort/…  → node_modules/onnxruntime-web/dist/
//     /vendor/d3/…   → node_modules/d3/dist/                  (charts: d3.min.js, UMD)
//     /vendor/plot/… → node_modules/@observablehq/plot/dist/  (charts: plot.umd.min.js, needs d3)
//   bundle (default: on unless ATTNLAB_BUNDLE=0): /web/app.js (with views/page-tools.js, then an empty module) and
//   /web/runtime/host/worker.js are served bundled (scripts/page-bundle.mjs: built in memory when the server starts,
//   rebuilt when a source changes); when esbuild is missing or a source does not parse, the sources are served as
//   they are (one warning).
//   `/` and `/web` redirect to `/web/`; a directory serves its index.html. Everything else is 404, and
//   no request can leave those trees (`..`, encoded separators, NUL, dot-files and symlinks pointing
//   outside are refused). Every response (the raw 400 / 408 / 431 answers to malformed requests too)
//   carries COOP same-origin, COEP require-corp and CORP same-origin (the page is cross-origin isolated, so
//   threaded wasm works), nosniff, and the Content-Security-Policy CSP below (pages and workers alike: a
//   worker script's own response sets the worker's policy).
//   GET and HEAD only (405); a request with a body is refused (413); a request target that is not a valid
//   URL is 400; headers over 16 KB are 431; headers must arrive within 10 s and the request within 30 s (408).
// CLI: `node scripts/serve.mjs [--port N] [--host H]` (PORT env also works; --port wins). The server binds
//   127.0.0.1 unless --host names another interface (e.g. `--host 0.0.0.0`, which prints a warning).
import http from 'node:http';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createPageBundler, ENTRIES } from './page-bundle.mjs';

const DEFAULT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const MOUNTS = [
  { prefix: '/web/', dir: 'web' },
  { prefix: '/models/', dir: 'models' },
  { prefix: '/vendor/ort/', dir: 'node_modules/onnxruntime-web/dist' },
  { prefix: '/vendor/d3/', dir: 'node_modules/d3/dist' },
  { prefix: '/vendor/plot/', dir: 'node_modules/@observablehq/plot/dist' },
];

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.safetensors': 'application/octet-stream',
  '.onnx': 'application/octet-stream',
  '.bin': 'application/octet-stream',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

// No inline script, no eval: scripts, workers and wasm only from this origin; 'wasm-unsafe-eval' is what
// WebAssembly.compile / instantiate need (Emscripten's glue is built with -sDYNAMIC_EXECUTION=0, ORT Web's
// bundles use no eval). Styles: the page's stylesheets only (Observable Plot's inline <style> elements are removed
// before a chart is attached, web/render/plot-lib.js; their rules are in web/styles.css). Images: data: (the
// favicon) and blob: (PNG export). connect-src
// blob: lets the page read back the CSV / JSON / report blobs it made itself (blob: URLs never leave the origin).
export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self' blob:",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': CSP,
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
};

export function mimeType(file) {
  return MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** Map a URL path to an absolute file path inside one mount, or null when it is not servable. */
export function resolvePath(root, urlPath) {
  let decoded;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const mount = MOUNTS.find((m) => decoded.startsWith(m.prefix));
  if (!mount) return null;
  const rest = decoded.slice(mount.prefix.length);
  const parts = rest.split('/').filter((p) => p !== '');
  // No `.`/`..` segments and no dot-files (.git, .env, …) anywhere.
  if (parts.some((p) => p.startsWith('.'))) return null;
  const base = path.resolve(root, mount.dir);
  const file = path.resolve(base, ...parts);
  if (file !== base && !file.startsWith(base + path.sep)) return null;
  return { base, file, isDirRequest: rest === '' || rest.endsWith('/') };
}

function send(res, status, body, headers = {}) {
  const text = typeof body === 'string' ? body : '';
  res.writeHead(status, {
    ...(res.securityHeaders ?? SECURITY_HEADERS),
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

// The bundled page module for /web/<rel>, or null when <rel> is not bundled or bundling is off / failed.
async function bundled(bundler, rel) {
  if (!bundler || !ENTRIES.includes(rel)) return null;
  try {
    return (await bundler.files()).get(rel) ?? null;
  } catch (err) {
    if (!bundler.warned) console.warn(`serve: serving the page's modules unbundled (${err.message.split('\n')[0]})`);
    bundler.warned = true;
    return null;
  }
}

const etags = new WeakMap(); // bundled Buffer → its ETag (hashed once per build, not per request)
function sendBuffer(req, res, body, file) {
  let etag = etags.get(body);
  if (!etag) etags.set(body, (etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`));
  const headers = { ...(res.securityHeaders ?? SECURITY_HEADERS), 'Content-Type': mimeType(file), 'Cache-Control': 'no-cache', ETag: etag };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    return res.end();
  }
  res.writeHead(200, { ...headers, 'Content-Length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
}

async function handle(root, req, res, bundler) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return send(res, 405, 'Method not allowed\n', { Allow: 'GET, HEAD', Connection: 'close' });
  }
  if (Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding']) {
    return send(res, 413, 'A GET or HEAD request has no body\n', { Connection: 'close' });
  }
  let url;
  try {
    url = new URL(req.url, 'http://localhost');
  } catch {
    return send(res, 400, 'Bad request: the request target is not a valid URL\n', { Connection: 'close' });
  }
  const p = url.pathname;
  if (p === '/' || p === '/web' || p === '/index.html') {
    return send(res, 302, 'Found: /web/\n', { Location: '/web/' + url.search });
  }
  const target = resolvePath(root, p);
  if (!target) return send(res, 404, 'Not found\n');
  if (p.startsWith('/web/')) {
    const rel = path.relative(path.join(root, 'web'), target.file).split(path.sep).join('/');
    const body = await bundled(bundler, rel);
    if (body) return sendBuffer(req, res, body, target.file);
  }

  let file = target.file;
  let stat;
  try {
    // Symlinks are followed only while they stay inside the mount.
    const real = await fsp.realpath(file);
    const realBase = await fsp.realpath(target.base);
    if (real !== realBase && !real.startsWith(realBase + path.sep)) return send(res, 404, 'Not found\n');
    stat = await fsp.stat(real);
    file = real;
    if (stat.isDirectory()) {
      if (!target.isDirRequest) {
        return send(res, 301, 'Moved\n', { Location: p + '/' + url.search });
      }
      file = path.join(real, 'index.html');
      stat = await fsp.stat(file);
    }
    if (!stat.isFile()) return send(res, 404, 'Not found\n');
  } catch {
    return send(res, 404, 'Not found\n');
  }

  const etag = `W/"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
  const headers = {
    ...(res.securityHeaders ?? SECURITY_HEADERS),
    'Content-Type': mimeType(file),
    'Cache-Control': 'no-cache',
    ETag: etag,
    'Last-Modified': stat.mtime.toUTCString(),
  };
  if (req.headers['if-none-match'] === etag) {
    res.writeHead(304, headers);
    return res.end();
  }
  res.writeHead(200, { ...headers, 'Content-Length': stat.size });
  if (req.method === 'HEAD') return res.end();
  const stream = fs.createReadStream(file);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

export function startServer({ port = 8080, host = '127.0.0.1', root = DEFAULT_ROOT, headersTimeout = 10_000, requestTimeout = 30_000, csp = CSP,
  bundle = process.env.ATTNLAB_BUNDLE !== '0' } = {}) {
  const absRoot = path.resolve(root);
  const bundler = bundle ? createPageBundler(path.join(absRoot, 'web')) : null;
  bundler?.files().catch(() => {}); // built while the browser starts; the first request for app.js waits for it
  const securityHeaders = { ...SECURITY_HEADERS, 'Content-Security-Policy': csp };
  const limits = {
    maxHeaderSize: 16 * 1024,
    headersTimeout,
    requestTimeout,
    connectionsCheckingInterval: Math.min(1000, headersTimeout),
  };
  const server = http.createServer(limits, (req, res) => {
    res.securityHeaders = securityHeaders;
    handle(absRoot, req, res, bundler).catch((err) => {  // a bug, not bad input (bad input gets 4xx above)
      if (!res.headersSent) send(res, 500, 'Internal error\n');
      else res.destroy();
      console.error('serve:', err);
    });
  });
  server.on('clientError', (err, socket) => {  // malformed HTTP, oversized or slow headers: answer, no log
    if (!socket.writable) return socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const text = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[status];
    // The raw answer carries the same security headers as every other response.
    const head = Object.entries(securityHeaders).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    socket.end(`HTTP/1.1 ${status} ${text}\r\n${head}Connection: close\r\nContent-Length: 0\r\n\r\n`);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const actual = server.address().port;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      resolve({
        server,
        port: actual,
        url: `http://${shownHost}:${actual}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections?.();
          }),
      });
    });
  });
}

function parseArgs(argv) {
  const opts = { port: process.env.PORT ? Number(process.env.PORT) : 8080, host: '127.0.0.1' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [key, inline] = a.includes('=') ? a.split(/=(.*)/s) : [a, undefined];
    const value = () => inline ?? argv[++i];
    if (key === '--port' || key === '-p') opts.port = Number(value());
    else if (key === '--host') opts.host = value();
    else if (key === '--help' || key === '-h') {
      console.log('usage: node scripts/serve.mjs [--port N] [--host ADDR]   (PORT env also sets the port)');
      process.exit(0);
    } else {
      console.error(`serve: unknown argument ${a}`);
      process.exit(2);
    }
  }
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) {
    console.error('serve: --port must be an integer 0–65535');
    process.exit(2);
  }
  return opts;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const opts = parseArgs(process.argv.slice(2));
  startServer(opts).then(
    ({ url }) => {
      console.log(`attnlab: serving on ${url}/web/  (Ctrl-C to stop)`);
      if (!['127.0.0.1', 'localhost', '::1'].includes(opts.host)) {
        console.warn(`serve: warning: listening on ${opts.host}, not only on this machine (loopback is the default)`);
      }
    },
    (err) => {
      console.error(`serve: cannot listen on ${opts.host}:${opts.port}: ${err.message}`);
      process.exit(1);
    },
  );
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));
}
