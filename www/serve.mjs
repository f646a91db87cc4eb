// A tiny static file server for the inspector (no dependencies). Binds 127.0.0.1 only.
//   node www/serve.mjs [--port N] [--root DIR] [--url-file FILE]
// --port 0 picks a free port; the URL is printed on stdout (and written to --url-file).
import { createServer } from 'node:http';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.ts': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/** Serves `root` on 127.0.0.1:`port`; resolves to { url, server, close() }. */
export async function startServer({ root = fileURLToPath(new URL('.', import.meta.url)), port = 0 } = {}) {
  const base = resolve(root);
  const server = createServer(async (req, res) => {
    const send = (status, type, body) => {
      res.writeHead(status, {
        'content-type': type,
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(405, 'text/plain; charset=utf-8', 'method not allowed\n');
      return;
    }
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    } catch {
      send(400, 'text/plain; charset=utf-8', 'bad path\n');
      return;
    }
    let file = resolve(join(base, path));
    if (file !== base && !file.startsWith(base + sep)) {
      send(403, 'text/plain; charset=utf-8', 'forbidden\n');
      return;
    }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      send(200, TYPES[extname(file).toLowerCase()] || 'application/octet-stream', body);
    } catch {
      send(404, 'text/plain; charset=utf-8', `not found: ${path}\n`);
    }
  });
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', ok);
  });
  const url = `http://127.0.0.1:${server.address().port}/`;
  return { url, server, close: () => new Promise((ok) => server.close(ok)) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
  };
  const port = Number(opt('--port', '8000'));
  const root = opt('--root', undefined);
  const urlFile = opt('--url-file', undefined);
  const { url, close } = await startServer({ root, port });
  if (urlFile) await writeFile(urlFile, `${url}\n`);
  console.log(`cardgate inspector: ${url}  (serving ${resolve(root || fileURLToPath(new URL('.', import.meta.url)))}; Ctrl-C to stop)`);
  const stop = () => close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
