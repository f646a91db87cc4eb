// Installs the built package (pkg/) the way a user gets it: `npm pack`, then the tarball unpacked
// into CONSUMER/node_modules/cardgate. Tests import it by name from there, so the `files` list,
// the `exports` map and the declarations are exercised as published.
//
//   node tests/node/consumer.mjs [CONSUMER_DIR]     (default target/js/consumer)
//
// Also writes CONSUMER/tsconfig.json and copies tests/node/types/* for `tsc --noEmit --strict`.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PKG = join(ROOT, 'pkg');
export const DEFAULT_CONSUMER = join(ROOT, 'target', 'js', 'consumer');

function stamp() {
  const manifest = join(PKG, 'package.json');
  if (!existsSync(manifest)) {
    throw new Error(`${manifest} is missing: run \`make pkg\` first`);
  }
  return String(statSync(manifest).mtimeMs);
}

/** Builds the consumer directory unless it is current for pkg/; returns its path. */
export function ensureConsumer(dir = DEFAULT_CONSUMER) {
  const want = stamp();
  const stampFile = join(dir, '.pkg-stamp');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === want) return dir;

  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, 'node_modules', 'cardgate'), { recursive: true });
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: PKG, encoding: 'utf8' });
  const tarball = join(tmp, JSON.parse(out)[0].filename);
  execFileSync('tar', ['-xzf', tarball, '-C', join(tmp, 'node_modules', 'cardgate'), '--strip-components=1']);
  rmSync(tarball);

  writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: 'cardgate-consumer', private: true }, null, 2) + '\n');
  // Entry points a test imports by path; each resolves `cardgate` from here, by name.
  writeFileSync(join(tmp, 'esm.mjs'), "export * from 'cardgate';\nexport { default } from 'cardgate';\n");
  writeFileSync(join(tmp, 'cjs.cjs'), "module.exports = require('cardgate');\n");
  writeFileSync(join(tmp, 'web.mjs'), "export * from 'cardgate/web';\nexport { default } from 'cardgate/web';\n");

  const typesDir = join(ROOT, 'tests', 'node', 'types');
  const files = readdirSync(typesDir).filter((f) => /\.(m|c)?ts$/.test(f));
  for (const f of files) cpSync(join(typesDir, f), join(tmp, f));
  const tsconfig = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'es2022',
      module: 'node16',
      moduleResolution: 'node16',
      lib: ['es2022', 'dom'],
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules', '@types')],
      skipLibCheck: true,
      noUnusedLocals: true,
    },
    files,
  };
  writeFileSync(join(tmp, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2) + '\n');
  // The declarations alone, fully checked (no skipLibCheck), with nothing but the ES library
  // (Node entry) or ES + DOM (browser entry): they must not lean on @types/node.
  const declConfig = (lib, files) => ({
    compilerOptions: { strict: true, noEmit: true, target: 'es2020', module: 'node16', moduleResolution: 'node16', lib, types: [], skipLibCheck: false },
    files,
  });
  writeFileSync(
    join(tmp, 'tsconfig.node-decl.json'),
    JSON.stringify(declConfig(['es2020'], ['node_modules/cardgate/node/index.d.cts', 'node_modules/cardgate/node/index.d.mts']), null, 2) + '\n',
  );
  writeFileSync(
    join(tmp, 'tsconfig.web-decl.json'),
    JSON.stringify(declConfig(['es2020', 'dom'], ['node_modules/cardgate/web/index.d.ts']), null, 2) + '\n',
  );
  // Bundler resolution (Vite, esbuild, webpack consumers) with nothing but the ES2020 library:
  // `import 'cardgate'` picks the `default` condition (the web build), or with
  // customConditions ["node"] the Node build.
  const bundlerDir = join(typesDir, 'bundler');
  const bundlerFiles = readdirSync(bundlerDir).filter((f) => /\.ts$/.test(f));
  mkdirSync(join(tmp, 'bundler'));
  for (const f of bundlerFiles) cpSync(join(bundlerDir, f), join(tmp, 'bundler', f));
  const bundlerConfig = (extra) => ({
    compilerOptions: Object.assign(
      { strict: true, noEmit: true, target: 'es2020', module: 'esnext', moduleResolution: 'bundler', lib: ['es2020'], types: [], skipLibCheck: false, noUnusedLocals: true },
      extra,
    ),
    files: bundlerFiles.map((f) => `bundler/${f}`),
  });
  writeFileSync(join(tmp, 'tsconfig.bundler.json'), JSON.stringify(bundlerConfig({}), null, 2) + '\n');
  writeFileSync(join(tmp, 'tsconfig.bundler-node.json'), JSON.stringify(bundlerConfig({ customConditions: ['node'] }), null, 2) + '\n');
  writeFileSync(join(tmp, '.pkg-stamp'), want);

  rmSync(dir, { recursive: true, force: true });
  try {
    renameSync(tmp, dir);
  } catch (e) {
    // Another test process won the race with an identical build.
    rmSync(tmp, { recursive: true, force: true });
    if (!existsSync(stampFile)) throw e;
  }
  return dir;
}

/** The package as an ES module (Node `import` condition). */
export async function importPackage(dir = ensureConsumer()) {
  return import(pathToFileURL(join(dir, 'esm.mjs')).href);
}

/** The package's browser build (needs `await init(bytes)` in Node). */
export async function importWebPackage(dir = ensureConsumer()) {
  return import(pathToFileURL(join(dir, 'web.mjs')).href);
}

/** The package through CommonJS `require`. */
export async function requirePackage(dir = ensureConsumer()) {
  const { createRequire } = await import('node:module');
  return createRequire(join(dir, 'cjs.cjs'))(join(dir, 'cjs.cjs'));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = resolve(process.argv[2] ?? DEFAULT_CONSUMER);
  ensureConsumer(dir);
  console.log(`consumer: cardgate installed from the packed tarball into ${dir}`);
}
