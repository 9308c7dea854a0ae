// serve.test.mjs — scripts/serve.mjs: mounts (web, models, vendor: ORT, d3, Plot), redirects, MIME types, isolation headers, traversal refusal.
// Starts the server in-process on port 0 over a throw-away tree (plus one check against the real repo).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../scripts/serve.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Raw request (no URL normalisation by the client), so traversal attempts reach the server verbatim.
function get(port, rawPath, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: rawPath, method }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

let tmp;
let srv;

test.before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'attnlab-serve-'));
  const root = path.join(tmp, 'repo');
  const w = (p, body) => {
    fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    fs.writeFileSync(path.join(root, p), body);
  };
  w('web/index.html', '<!doctype html><title>t</title>');
  w('web/app.js', 'export {}');
  w('web/gen/core.mjs', 'export default 1');
  w('web/gen/core.wasm', Buffer.from([0, 97, 115, 109]));
  w('web/styles.css', 'body{}');
  w('web/icon.svg', '<svg/>');
  w('web/pic.png', 'png');
  w('web/.hidden', 'secret');
  w('models/text/manifest.json', '{"models":[]}');
  w('models/text/m/model.safetensors', 'bytes');
  w('node_modules/onnxruntime-web/dist/ort.wasm.min.mjs', 'export {}');
  w('node_modules/d3/dist/d3.min.js', 'var d3 = {}');
  w('node_modules/d3/src/index.js', 'secret');
  w('node_modules/@observablehq/plot/dist/plot.umd.min.js', 'var Plot = {}');
  w('node_modules/other/secret.js', 'secret');
  w('package.json', '{"secret":true}');
  fs.mkdirSync(path.join(tmp, 'shared'));
  fs.writeFileSync(path.join(tmp, 'shared', 'secret.txt'), 'secret');
  fs.symlinkSync(path.join(tmp, 'shared'), path.join(root, 'web', 'escape'));
  srv = await startServer({ port: 0, root });
});

test.after(async () => {
  await srv?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('listens on an ephemeral port and reports it', () => {
  assert.ok(srv.port > 0);
  assert.equal(srv.url, `http://127.0.0.1:${srv.port}`);
});

test('/ and /web redirect to /web/, which serves index.html', async () => {
  for (const p of ['/', '/web']) {
    const r = await get(srv.port, p);
    assert.equal(r.status, 302, p);
    assert.equal(r.headers.location, '/web/');
  }
  const r = await get(srv.port, '/web/');
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-type'], 'text/html; charset=utf-8');
  assert.match(r.body.toString(), /<title>t<\/title>/);
});

test('cross-origin isolation headers on every response, errors included', async () => {
  for (const p of ['/web/', '/web/app.js', '/nope', '/']) {
    const r = await get(srv.port, p);
    assert.equal(r.headers['cross-origin-opener-policy'], 'same-origin', p);
    assert.equal(r.headers['cross-origin-embedder-policy'], 'require-corp', p);
    assert.equal(r.headers['cross-origin-resource-policy'], 'same-origin', p);
  }
});

test('MIME types', async () => {
  const cases = {
    '/web/app.js': 'text/javascript',
    '/web/gen/core.mjs': 'text/javascript',
    '/web/gen/core.wasm': 'application/wasm',
    '/web/styles.css': 'text/css',
    '/web/icon.svg': 'image/svg+xml',
    '/web/pic.png': 'image/png',
    '/models/text/manifest.json': 'application/json',
    '/models/text/m/model.safetensors': 'application/octet-stream',
    '/vendor/ort/ort.wasm.min.mjs': 'text/javascript',
    '/vendor/d3/d3.min.js': 'text/javascript',
    '/vendor/plot/plot.umd.min.js': 'text/javascript',
  };
  for (const [p, type] of Object.entries(cases)) {
    const r = await get(srv.port, p);
    assert.equal(r.status, 200, p);
    assert.equal(r.headers['content-type'].split(';')[0], type, p);
    assert.equal(Number(r.headers['content-length']), r.body.length, p);
  }
});

test('HEAD has headers and no body; other methods are refused', async () => {
  const h = await get(srv.port, '/web/app.js', 'HEAD');
  assert.equal(h.status, 200);
  assert.equal(h.body.length, 0);
  assert.equal(Number(h.headers['content-length']), 'export {}'.length);
  const p = await get(srv.port, '/web/app.js', 'POST');
  assert.equal(p.status, 405);
});

test('only web/, models/ and the vendor dists (ORT, d3, Plot) are reachable; no traversal', async () => {
  const refused = [
    '/package.json',
    '/node_modules/other/secret.js',
    '/vendor/ort/../../other/secret.js',
    '/vendor/ort/..%2f..%2fother%2fsecret.js',
    '/vendor/d3/../src/index.js',
    '/vendor/d3/..%2fsrc%2findex.js',
    '/vendor/plot/../../d3/src/index.js',
    '/vendor/other/secret.js',
    '/web/../package.json',
    '/web/%2e%2e/package.json',
    '/web/..%2fpackage.json',
    '/web/..%5cpackage.json',
    '/web/%2e%2e%2f%2e%2e%2fshared%2fsecret.txt',
    '/models/../../shared/secret.txt',
    '/web/.hidden',
    '/web/escape/secret.txt',
    '/web/app.js%00.png',
    '/web/%E0%A4%A',
    '/shared/secret.txt',
    '/../shared/secret.txt',
  ];
  for (const p of refused) {
    const r = await get(srv.port, p);
    assert.ok(r.status === 404 || r.status === 302, `${p} → ${r.status}`);
    assert.doesNotMatch(r.body.toString(), /secret/, p);
  }
});

test('a directory without a trailing slash redirects; missing files are 404', async () => {
  const r = await get(srv.port, '/models/text');
  assert.equal(r.status, 301);
  assert.equal(r.headers.location, '/models/text/');
  assert.equal((await get(srv.port, '/web/missing.js')).status, 404);
});

test('conditional requests get 304', async () => {
  const first = await get(srv.port, '/web/app.js');
  const r = await new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: srv.port, path: '/web/app.js', headers: { 'If-None-Match': first.headers.etag } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res));
      })
      .on('error', reject);
  });
  assert.equal(r.statusCode, 304);
});

test('the real repository: the page and the ORT bundle are served', async () => {
  const real = await startServer({ port: 0, root: REPO });
  try {
    const page = await get(real.port, '/web/');
    assert.equal(page.status, 200);
    assert.match(page.body.toString(), /attnlab/);
    if (fs.existsSync(path.join(REPO, 'node_modules/onnxruntime-web/dist/ort.wasm.min.mjs'))) {
      const ort = await get(real.port, '/vendor/ort/ort.wasm.min.mjs', 'HEAD');
      assert.equal(ort.status, 200);
      assert.equal(ort.headers['content-type'].split(';')[0], 'text/javascript');
    }
    for (const p of ['/vendor/d3/d3.min.js', '/vendor/plot/plot.umd.min.js']) {
      const r = await get(real.port, p, 'HEAD');
      assert.equal(r.status, 200, `${p} (npm ci installs it)`);
    }
    assert.equal((await get(real.port, '/scripts/serve.mjs')).status, 404);
  } finally {
    await real.close();
  }
});

// ---- issue 13: CSP, bad request targets, bodies, methods, limits, more traversal encodings ----
import net from 'node:net';
import { CSP } from '../../scripts/serve.mjs';

// Writes raw bytes on a socket and returns the status line + headers of the answer (or '' if closed silently).
function raw(port, text, { endAfterMs } = {}) {
  return new Promise((resolve, reject) => {
    const c = net.connect(port, '127.0.0.1', () => {
      c.write(text);
      if (endAfterMs === undefined) return;
      setTimeout(() => c.end(), endAfterMs);
    });
    let got = '';
    c.on('data', (d) => (got += d.toString('latin1')));
    c.on('end', () => resolve(got));
    c.on('close', () => resolve(got));
    c.on('error', (e) => (e.code === 'ECONNRESET' ? resolve(got) : reject(e)));
  });
}

test('a Content-Security-Policy without inline script or eval on every response', async () => {
  assert.match(CSP, /script-src 'self' 'wasm-unsafe-eval'(;|$)/);
  assert.doesNotMatch(CSP, /'unsafe-eval'|script-src[^;]*'unsafe-inline'|\*/);
  assert.match(CSP, /object-src 'none'/);
  assert.match(CSP, /frame-ancestors 'none'/);
  for (const [p, method] of [['/web/', 'GET'], ['/web/app.js', 'GET'], ['/web/gen/core.mjs', 'HEAD'], ['/nope', 'GET'], ['/', 'GET'], ['/web/app.js', 'POST']]) {
    const r = await get(srv.port, p, method);
    assert.equal(r.headers['content-security-policy'], CSP, `${method} ${p}`);
    assert.equal(r.headers['x-content-type-options'], 'nosniff', `${method} ${p}`);
  }
});

test('a request target that is not a URL is 400, not 500', async () => {
  for (const target of ['http://[::1', 'http://[', 'http://a b/', 'http://:99999/']) {
    const answer = await raw(srv.port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 400 /, `${target}: ${answer.split('\r\n')[0]}`);
  }
  const answer = await raw(srv.port, 'NOT HTTP AT ALL\r\n\r\n');
  assert.match(answer, /^HTTP\/1\.1 400 /);
});

test('only GET and HEAD; a request with a body is refused', async () => {
  for (const m of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE']) {
    const r = await get(srv.port, '/web/app.js', m);
    assert.equal(r.status, 405, m);
    assert.equal(r.headers.allow, 'GET, HEAD');
  }
  const answer = await raw(srv.port, 'GET /web/app.js HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello');
  assert.match(answer, /^HTTP\/1\.1 413 /);
});

test('oversized headers are 431; slow headers time out with 408', async () => {
  const big = await raw(srv.port, `GET /web/ HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`);
  assert.match(big, /^HTTP\/1\.1 431 /);
  const slow = await startServer({ port: 0, root: path.join(tmp, 'repo'), headersTimeout: 300, requestTimeout: 600 });
  try {
    const answer = await raw(slow.port, 'GET /web/ HTTP/1.1\r\nHost: x\r\n'); // never finishes the headers
    assert.match(answer, /^HTTP\/1\.1 408 /);
  } finally {
    await slow.close();
  }
});

// issue 27: the answers Node's parser gives before a request exists (clientError) carry the security headers too.
test('the raw 400 / 408 / 431 answers carry the same security headers', async () => {
  const headersOf = (answer) => {
    const out = {};
    for (const line of answer.split('\r\n\r\n')[0].split('\r\n').slice(1)) {
      const i = line.indexOf(':');
      out[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
    }
    return out;
  };
  const expected = (await get(srv.port, '/web/app.js')).headers;
  const check = (answer, status) => {
    assert.match(answer, new RegExp(`^HTTP/1\\.1 ${status} `), answer.split('\r\n')[0]);
    const h = headersOf(answer);
    for (const name of ['content-security-policy', 'cross-origin-opener-policy', 'cross-origin-embedder-policy',
      'cross-origin-resource-policy', 'x-content-type-options']) {
      assert.equal(h[name], expected[name], `${status}: ${name}`);
    }
    assert.equal(h['content-security-policy'], CSP);
  };
  check(await raw(srv.port, 'NOT HTTP AT ALL\r\n\r\n'), 400);
  check(await raw(srv.port, 'GET /web/ HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'), 400);
  check(await raw(srv.port, `GET /web/ HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`), 431);
  const slow = await startServer({ port: 0, root: path.join(tmp, 'repo'), headersTimeout: 300, requestTimeout: 600 });
  try {
    check(await raw(slow.port, 'GET /web/ HTTP/1.1\r\nHost: x\r\n'), 408);
  } finally {
    await slow.close();
  }
});

test('binds the loopback interface by default', async () => {
  assert.equal(srv.server.address().address, '127.0.0.1');
  const src = fs.readFileSync(path.join(REPO, 'scripts/serve.mjs'), 'utf8');
  assert.match(src, /host: '127\.0\.0\.1'/); // the CLI default (parseArgs)
});

test('traversal in every encoding is refused', async () => {
  const refused = [
    '/web/%252e%252e/package.json', // double-encoded
    '/web/%2E%2E/package.json',
    '/web/.%2e/package.json',
    '/web/%2e./package.json',
    '/web/%c0%ae%c0%ae/package.json', // overlong UTF-8
    '/web/%c0%af../package.json',
    '/web/%e0%80%ae%e0%80%ae/package.json',
    '/web/%ef%bc%8e%ef%bc%8e/package.json', // fullwidth dots
    '/web/..%c0%afpackage.json',
    '/web/..%255cpackage.json',
    '/web/..\\package.json',
    '/web/%5c..%5cpackage.json',
    '/web/..;/package.json',
    '/web/./../package.json',
    '/web//../package.json',
    '/web/%00/../package.json',
    '/web/app.js%2500',
    '/web/%2f%2e%2e%2fpackage.json',
    '/%2e%2e/package.json',
    '/vendor/ort/%2e%2e/%2e%2e/other/secret.js',
    '/models/%2e%2e%2f%2e%2e%2fshared/secret.txt',
    '//package.json',
    '/web/escape/../../package.json',
    '/web/escape%2fsecret.txt',
  ];
  for (const p of refused) {
    const r = await get(srv.port, p);
    assert.ok([302, 400, 404].includes(r.status), `${p} → ${r.status}`);
    assert.doesNotMatch(r.body.toString(), /secret/, p);
  }
  // absolute-form targets resolve on this server's own trees only
  for (const target of ['http://evil.example/../package.json', 'http://evil.example/web/%2e%2e/package.json']) {
    const answer = await raw(srv.port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    assert.match(answer, /^HTTP\/1\.1 (302|404) /, target);
    assert.doesNotMatch(answer, /secret/);
  }
});
