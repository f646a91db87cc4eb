// Runs `npm ci` only when node_modules does not hold what package-lock.json pins, judged by
// content, never by mtimes (a fresh git worktree's package-lock.json is always "newer").
//   1. node_modules/.cardgate-lock-hash equals the SHA-256 of package-lock.json: up to date.
//   2. Otherwise npm's own record of the installed tree (node_modules/.package-lock.json) lists
//      exactly the lock's packages (same versions, integrity): up to date, the hash is written.
//   3. Otherwise `npm ci`, then the hash. If node_modules is a symlink (a worktree sharing another
//      checkout's install) it refuses instead: `npm ci` would wipe the shared install.
// Usage: node js/npm-ci.mjs [--need PATH_UNDER_NODE_MODULES ...]
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';

const need = [];
for (let i = 2; i < process.argv.length; i++) {
  if (process.argv[i] === '--need' && process.argv[i + 1]) need.push(process.argv[++i]);
  else {
    console.error('usage: node js/npm-ci.mjs [--need PATH_UNDER_NODE_MODULES ...]');
    process.exit(2);
  }
}

const lockText = readFileSync('package-lock.json');
const hash = createHash('sha256').update(lockText).digest('hex');
const hashFile = 'node_modules/.cardgate-lock-hash';
const present = need.every((p) => existsSync(`node_modules/${p}`));

function readOr(path, fallback) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
}

function installedMatches() {
  let installed;
  try {
    installed = JSON.parse(readFileSync('node_modules/.package-lock.json', 'utf8')).packages;
  } catch {
    return false;
  }
  const wanted = { ...JSON.parse(lockText.toString('utf8')).packages };
  delete wanted[''];
  return isDeepStrictEqual(installed, wanted);
}

if (present && existsSync('node_modules/.package-lock.json')) {
  if (readOr(hashFile, '').trim() === hash) process.exit(0);
  if (installedMatches()) {
    writeFileSync(hashFile, `${hash}\n`);
    process.exit(0);
  }
}

let link = false;
try {
  link = lstatSync('node_modules').isSymbolicLink();
} catch {
  // missing: npm ci creates it
}
if (link) {
  console.error(
    `npm-ci.mjs: node_modules is a symlink to ${realpathSync('node_modules')} and does not match ` +
      'package-lock.json; refusing to run npm ci through it (it would wipe the shared install). ' +
      'Run `npm ci` in the checkout that owns it, or replace the symlink with a directory.',
  );
  process.exit(1);
}
console.log('npm ci (node_modules does not match package-lock.json)');
execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { stdio: 'inherit' });
writeFileSync(hashFile, `${hash}\n`);
