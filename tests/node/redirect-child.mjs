// Run by redirect.test.mjs in a child process started with NODE_EXTRA_CA_CERTS (the test's
// self-signed certificate), so that Node's own global fetch verifies the local https server.
// argv[2]: the consumer's entry to import; argv[3]: JSON list of [sources, requirement].
// Prints one JSON line: for each resolution, {verdict, attempts, finalUrl} or {error, attempts}.
import { pathToFileURL } from 'node:url';

const cg = await import(pathToFileURL(process.argv[2]).href);
const out = [];
for (const [sources, requirement] of JSON.parse(process.argv[3])) {
  try {
    let info = null;
    const got = await cg.resolveAgentCard(sources, requirement, { onResolution: (_, i) => (info = i) });
    out.push({ verdict: 'valid', card: got.name, attempts: info.attempts, finalUrl: info.finalUrl ?? null });
  } catch (e) {
    out.push({ error: e.name, message: e.message, attempts: e.attempts ?? null });
  }
}
process.stdout.write(JSON.stringify(out) + '\n');
