// cardgate inspector: glue between the form and the cardgate web build (./pkg/web/index.js).
// Every verdict, condition, reason, hash and canonical form comes from the Rust core; this file
// only collects inputs, calls the module and renders what it returns, the capability table's
// "declared" column included (the core's reading of the card, per A2A SDK) and the "replica vs
// primary" comparison (compareCards: the diff and the re-resolution outcome are the core's).

const MODULE_URL = './pkg/web/index.js';

const $ = (id) => document.getElementById(id);

// The seed's incident: a registry edge replica 40 s behind serves the worker's old card, which
// still advertises task.execute.v2 on the old endpoint; the planner needs task.execute.v3 and
// tolerates 10 s of staleness.
const INCIDENT = {
  card: {
    name: 'worker-7',
    description: 'Python worker runtime: executes tasks delegated by the planner',
    version: '2.0.0',
    supportedInterfaces: [
      { url: 'wss://worker-7.internal/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills: [
      {
        id: 'task.execute.v2',
        name: 'Execute task',
        description: 'Runs a task the planner delegates',
        tags: ['task'],
      },
    ],
  },
  require: ['task.execute.v3'],
  min_version: '2.0.0',
  max_stale: '10s',
  lag_ms: '40000',
};

// The same worker after its rolling deploy, read from an up-to-date replica: valid.
const FRESH = {
  card: {
    ...INCIDENT.card,
    version: '3.0.0',
    supportedInterfaces: [
      { url: 'wss://worker-7.internal/a2a/v3', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    skills: [{ ...INCIDENT.card.skills[0], id: 'task.execute.v3' }],
  },
  require: INCIDENT.require,
  min_version: INCIDENT.min_version,
  max_stale: INCIDENT.max_stale,
  lag_ms: '1200',
};

// The package's default watermark options (DEFAULT_WATERMARK, as resolveAgentCard reads them),
// used only if the module does not export them.
const FALLBACK_WATERMARK = {
  lagMsHeader: 'x-replica-lag-ms', lagSHeader: 'x-replica-lag-s', syncedAtHeader: 'x-replica-synced-at', consul: true, age: true,
};

// Response headers read by "load from a URL", each with the observation member it fills.
function watermarkHeaders(w) {
  const list = [];
  if (w.lagMsHeader) list.push([w.lagMsHeader.toLowerCase(), 'lag_ms']);
  if (w.lagSHeader) list.push([w.lagSHeader.toLowerCase(), 'lag_s']);
  if (w.syncedAtHeader) list.push([w.syncedAtHeader.toLowerCase(), 'synced_at']);
  if (w.consul) list.push(['x-consul-lastcontact', 'consul_last_contact_ms'], ['x-consul-knownleader', 'consul_known_leader']);
  if (w.age) list.push(['age', 'age_s']);
  return list;
}

let WATERMARK_HEADERS = watermarkHeaders(FALLBACK_WATERMARK);

/** The module's own defaults replace the fallback, and the hint lists them. */
function headersFromModule(w) {
  if (!w || typeof w !== 'object') return;
  WATERMARK_HEADERS = watermarkHeaders(w);
  const hint = $('headers-hint');
  hint.replaceChildren();
  WATERMARK_HEADERS.forEach(([h, key], i) => hint.append(i ? ', ' : '', el('code', {}, h), ` → ${key}`));
}

const OBS_FIELDS = [
  ['obs-lag-ms', 'lag_ms'],
  ['obs-lag-s', 'lag_s'],
  ['obs-synced-at', 'synced_at'],
  ['obs-consul-last-contact', 'consul_last_contact_ms'],
  ['obs-consul-known-leader', 'consul_known_leader'],
  ['obs-age-s', 'age_s'],
];

// The typed error the package throws for a rejected decision, and its retry hint: asked from
// the package itself (toError), so the page never disagrees with it.
function typedError(decision) {
  try {
    const e = cg.toError(decision);
    if (e) return [e.name, String(e.retry)];
  } catch {
    // fall through
  }
  return ['Error', 'unknown'];
}

// One sentence per reason code: what it means for the person delegating.
const ADVICE = {
  version_below_minimum: 'The registry served an older card than you accept: re-resolve from the primary, or lower the minimum if the old version really is fine.',
  version_incomparable: 'The card version is not a number sequence or semver, so no floor can be checked: fix the card, or drop the minimum.',
  freshness_unverifiable: 'The response carried no replica-lag watermark, so freshness cannot be proven: the registry must send one, or you must pin the card hash.',
  tolerance_missing: 'No max staleness was given, so the watermark cannot be judged: set one, or pin the card hash.',
  watermark_invalid: 'A watermark value does not parse (or is negative); an unreadable watermark is treated as stale.',
  watermark_contradictory: 'Two lag sources disagree by more than a second, so neither can be trusted.',
  leader_unknown: 'Consul reports no known leader, so its last-contact figure means nothing.',
  clock_missing: 'A sync timestamp needs a clock to turn it into a lag: give “now”.',
  watermark_in_future: 'The sync timestamp is later than now: one of the clocks is wrong.',
  watermark_exceeded: 'The replica that answered is further behind than you tolerate: re-resolve from a fresher replica or the primary.',
  pinned_hash_mismatch: 'The card differs from the one you pinned out of band: it changed, or you are talking to a different registry state.',
  card_name_mismatch: 'The registry served a card with another name than the one you expect: another agent\'s card, or one from before a rename; re-resolve from the primary, and check the agent id you asked for.',
  capabilities_missing: 'Delegating would fail at the worker, after the task is queued: do not delegate to this card (retrying will not help).',
};

let cg = null; // the cardgate web module, once initialised
let fetched = null; // {text, bytes} of the last card loaded from a URL
let lastHash = null;
let timer = null;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function showPageError(title, err) {
  const box = $('page-error');
  box.replaceChildren(
    el('strong', {}, title),
    el('p', {}, err && err.name && err.message ? `${err.name}: ${err.message}` : String(err)),
  );
  box.hidden = false;
}

function clearPageError() {
  const box = $('page-error');
  box.hidden = true;
  box.replaceChildren();
}

// ---------------------------------------------------------------- inputs

function requirementFromForm() {
  const req = {};
  const caps = $('req-require').value.split('\n').map((s) => s.trim()).filter((s) => s !== '');
  if (caps.length) req.require = caps;
  const minv = $('req-min-version').value.trim();
  if (minv) req.min_version = minv;
  const stale = $('req-max-stale').value.trim();
  if (stale) req.max_stale = stale;
  const pin = $('req-pin').value.trim();
  if (pin) req.pin = pin;
  if ($('req-pin-mode').checked) req.pin_mode = 'with_watermark';
  // Not trimmed: the name is compared exactly, surrounding spaces included.
  const name = $('req-card-name').value;
  if (name !== '') req.card_name = name;
  return req;
}

function observationFromForm() {
  const obs = {};
  for (const [id, key] of OBS_FIELDS) {
    const v = $(id).value;
    if (v !== '') obs[key] = v; // header text, passed as typed
  }
  const now = $('obs-now').value.trim();
  if (now) obs.now = now;
  else if ($('obs-use-clock').checked) obs.now = new Date().toISOString();
  else obs.now = null; // the package would otherwise supply the host clock
  return obs;
}

function cardInput() {
  const text = $('card').value;
  // A card fetched from a URL is evaluated as the exact bytes received, until it is edited.
  if (fetched && fetched.text === text) return fetched.bytes;
  return text;
}

// ---------------------------------------------------------------- evaluation

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(evaluateNow, 200);
}

function evaluateNow() {
  clearTimeout(timer);
  if (!cg) return;
  const text = $('card').value;
  if (text.trim() === '' && !fetched) {
    renderEmpty();
    return;
  }
  const req = requirementFromForm();
  const obs = observationFromForm();
  $('sent-inputs').textContent =
    `requirement: ${JSON.stringify(req, null, 2)}\nobservation: ${JSON.stringify(obs, null, 2)}`;
  let decision;
  let raw;
  try {
    const card = cardInput();
    decision = cg.evaluate(card, req, obs);
    raw = cg.evaluateRaw(card, req, obs);
  } catch (err) {
    renderInputError(err);
    return;
  }
  clearPageError();
  render(decision, raw, text);
}

function renderEmpty() {
  setVerdict('pending', 'Paste, drop or fetch an Agent Card to begin',
    'Or press “Load the incident” to see the seed incident: a replica 40 s behind serving a card without task.execute.v3.');
  resetDetails();
}

function resetDetails() {
  for (const c of ['a', 'b', 'c']) renderCondition(c, undefined, []);
  $('caps-body').replaceChildren(el('tr', {}, el('td', { colspan: '4', class: 'muted' }, 'No card evaluated yet.')));
  setHash(null);
  $('canonical').textContent = '(none)';
  $('problem').textContent = '(none)';
  $('problem-pretty').textContent = '(none)';
  $('problem-caption').textContent = 'The exact canonical bytes for this input.';
}

// A requirement or observation the core refuses (TypeError/RangeError naming the field).
function renderInputError(err) {
  const name = err && err.name ? err.name : 'Error';
  const message = err && err.message ? err.message : String(err);
  setVerdict('error', 'Cannot evaluate: the requirement or observation is invalid', `${name}: ${message}`);
  showPageError('The core refused an input', err);
  resetDetails();
}

function setVerdict(kind, title, detail, extra) {
  const box = $('verdict');
  box.className = `verdict ${kind}`;
  $('verdict-title').textContent = title;
  $('verdict-detail').textContent = detail;
  box.querySelectorAll('.verdict-extra').forEach((n) => n.remove());
  if (extra) box.append(extra);
}

function render(d, raw, cardText) {
  const reasons = Array.isArray(d.reasons) ? d.reasons : [];
  if (d.verdict === 'valid') {
    const how = d.freshness === 'pinned' ? 'freshness proven by the pinned hash'
      : `staleness ${d.staleness_ms} ms within tolerance`;
    setVerdict('valid', `Valid for delegation (${d.status})`,
      `${d.agent} ${d.card_version}: every condition holds, ${how}.`);
  } else {
    const typed = typedError(d);
    const extra = el('p', { class: 'verdict-extra' },
      'Error class ', el('code', {}, d.error_class),
      ' · the Node package throws ', el('code', {}, typed[0]),
      ' with retry ', el('code', {}, typed[1]),
      ' · Envoy answers ', el('code', {}, String(d.status)));
    if (d.error_class === 'malformed_card') {
      const r = reasons[0] || {};
      const message = r.message || d.detail || '';
      const where = [];
      if (r.path && !message.includes(r.path)) where.push(`at ${r.path}`);
      if (typeof r.offset === 'number' && !message.includes(`byte ${r.offset}`)) where.push(`byte ${r.offset}`);
      if (typeof r.offset === 'number') {
        const go = el('button', { type: 'button', class: 'link' }, `Show byte ${r.offset} in the card`);
        go.addEventListener('click', () => selectByte(r.offset));
        extra.append(' · ', go);
      }
      setVerdict('malformed', `Malformed Agent Card (${d.status}): ${r.code || 'unreadable'}`,
        `${message}${where.length ? ` (${where.join(', ')})` : ''}. No condition was evaluated.`, extra);
    } else {
      setVerdict('rejected', `Rejected: ${d.title} (${d.status})`, d.detail, extra);
    }
  }

  const conds = d.conditions;
  for (const c of ['a', 'b', 'c']) {
    renderCondition(c, conds ? conds[c] : undefined, reasons.filter((r) => r.condition === c), d);
  }
  renderCapabilities(d, cardText);
  setHash(d.card_hash || null, d.error_class !== 'malformed_card');

  if (d.card_hash) {
    try {
      $('canonical').textContent = cg.canonicalize(cardInput());
      let note = 'The card as the core parsed it, in canonical form.';
      const parsed = JSON.parse(cardText);
      if (parsed && typeof parsed === 'object' && 'signatures' in parsed) {
        note += ' The hash covers this without the top-level signatures member.';
      }
      $('canon-note').textContent = note;
    } catch (err) {
      $('canonical').textContent = `(not available: ${err.message})`;
    }
  } else {
    $('canonical').textContent = '(the card did not parse, so it has no canonical form)';
  }

  $('problem').textContent = raw;
  $('problem-pretty').textContent = JSON.stringify(d, null, 2);
  $('problem-caption').textContent = d.verdict === 'valid'
    ? 'Valid: the Node package returns this decision and Envoy forwards the card unchanged (200).'
    : `Rejected: Envoy answers HTTP ${d.status} with this application/problem+json body; the Node package's ${typedError(d)[0]} carries the same decision.`;
}

function fmtFigure(key, value) {
  if (Array.isArray(value)) return value.join(', ');
  if (value === null) return 'none';
  if (typeof value === 'object') return JSON.stringify(value);
  if (typeof value === 'number' && /_ms$/.test(key)) return `${value} ms`;
  return String(value);
}

function renderCondition(c, cond, reasons, d) {
  const li = $(`cond-${c}`);
  const badge = li.querySelector('.badge');
  const body = li.querySelector('.cond-body');
  body.replaceChildren();
  if (!cond) {
    li.className = 'cond na';
    badge.textContent = 'not evaluated';
    return;
  }
  li.className = `cond ${cond.passed ? 'pass' : 'fail'}`;
  badge.textContent = cond.passed ? '✓ passed' : '✗ failed';
  body.append(el('p', { class: 'cond-msg' }, cond.message));
  if (cond.passed && c === 'b' && d && d.freshness === 'pinned') {
    body.append(el('p', {}, 'Proven by the pinned hash: the watermark was not consulted.'));
  }
  for (const r of reasons) {
    const item = el('div', { class: 'reason' });
    // The condition's message usually is its reasons' messages: do not print them twice.
    const repeated = typeof cond.message === 'string' && cond.message.includes(r.message);
    item.append(el('p', {}, el('code', {}, r.code), repeated ? '' : ` ${r.message}`));
    const figs = r.figures && typeof r.figures === 'object' ? Object.entries(r.figures) : [];
    if (figs.length) {
      const dl = el('dl', { class: 'figures' });
      for (const [k, v] of figs) dl.append(el('dt', {}, k), el('dd', {}, fmtFigure(k, v)));
      item.append(dl);
    }
    if (ADVICE[r.code]) item.append(el('p', { class: 'advice' }, ADVICE[r.code]));
    body.append(item);
  }
}

// ---------------------------------------------------------------- capability table

// What the card grants, as the core reads it (cardgate's declaredCapabilities): `granted` is what
// every A2A SDK reading has (what the gate counts); a capability only some readings have is
// listed with the readings that lack it. Whether a required capability is missing always comes
// from the decision's missing_capabilities.
function declaredFrom(cardBytes) {
  const out = { skill: [], extension: [], capability: [], binding: [], protocol: [] };
  const partial = new Map();
  let info;
  try {
    info = cg.declaredCapabilities(cardBytes);
  } catch {
    return { declared: out, partial };
  }
  if (!info || !Array.isArray(info.granted)) return { declared: out, partial };
  for (const name of info.granted) {
    const [kind, value] = splitCapability(name);
    out[kind].push(value);
  }
  for (const r of info.readings) {
    for (const name of r.capabilities) {
      if (info.granted.includes(name)) continue;
      const lacking = info.readings.filter((x) => !x.capabilities.includes(name)).map((x) => x.sdk);
      partial.set(name, lacking);
    }
  }
  return { declared: out, partial };
}

// Lets long capability names wrap after '.', '/' or ':' on a narrow screen, not mid-word.
function breakable(text) {
  const out = [];
  for (const part of text.split(/(?<=[./:])/)) {
    if (out.length) out.push(document.createElement('wbr'));
    out.push(part);
  }
  return out;
}

const KIND_LABEL = {
  skill: 'skill', extension: 'extension', capability: 'flag', binding: 'binding', protocol: 'protocol',
};

// Whether every protocol: the requirement names (one at least) is 0.3, as the core reads it:
// the caller may be on an SDK before 1.0 (DESIGN.md, "Callers on a pre-1.0 SDK").
function onlyV03(required) {
  const versions = required.filter((n) => n.startsWith('protocol:')).map((n) => n.slice(9).split('.'));
  return versions.length > 0 && versions.every(([major, minor]) => /^0+$/.test(major) && minor.replace(/^0+/, '') === '3');
}

// What a pre-1.0 client reads for a flag the 1.x SDKs read otherwise (src/interface_choice.rs,
// `V03Clients`).
const V03_FLAG_NOTES = {
  extendedAgentCard: 'whose clients fetch the extended card only with supportsAuthenticatedExtendedCard',
  pushNotifications: "whose A2AClient reads capabilities.pushNotifications only, not push_notifications",
};

function splitCapability(name) {
  for (const k of ['extension', 'capability', 'binding', 'protocol']) {
    if (name.startsWith(`${k}:`)) return [k, name.slice(k.length + 1)];
  }
  return ['skill', name];
}

function renderCapabilities(d, cardText) {
  const tbody = $('caps-body');
  tbody.replaceChildren();
  if (d.error_class === 'malformed_card') {
    const why = d.card_hash ? 'The card is malformed' : 'The card did not parse';
    tbody.append(el('tr', {}, el('td', { colspan: '4', class: 'muted' }, `${why}: the gate reads no capability from it.`)));
    return;
  }
  const { declared, partial } = declaredFrom(cardInput());
  const missing = new Set(Array.isArray(d.missing_capabilities) ? d.missing_capabilities : []);
  const required = requirementFromForm().require || [];
  const rows = [];
  const seen = new Set();
  for (const name of required) {
    if (seen.has(name)) continue;
    seen.add(name);
    const [kind, value] = splitCapability(name);
    // The core decides; `agree` records whether this page's own reading of the card says the same
    // (the browser tests insist it always does, so the declared rows below can be trusted).
    const granted = (declared[kind] || []).includes(value);
    // A declared binding is still missing when the interface an SDK's client picks for it is not
    // at a required protocol version (DESIGN.md: the caller invokes that one interface), or, for
    // a caller naming only protocol:0.3, when a pre-1.0 client sends it elsewhere; for such a
    // caller, a declared extendedAgentCard flag without supportsAuthenticatedExtendedCard,
    // pushNotifications declared only as push_notifications, or a declared protocol on a card a
    // pre-1.0 SDK's resolver refuses (src/v03_card_model.rs).
    const offPair = kind === 'binding' && granted && missing.has(name)
      && required.some((n) => n.startsWith('protocol:'));
    const v03 = granted && missing.has(name) && onlyV03(required);
    const offV03 = v03 && kind === 'capability' && V03_FLAG_NOTES[value] !== undefined;
    const unread = v03 && kind === 'protocol';
    rows.push({
      kind, value, required: true, missing: missing.has(name), agree: offPair || offV03 || unread || granted === !missing.has(name),
      lacking: partial.get(name),
      note: offPair ? ' (declared, but the interface a client picks for it is not at a required protocol version, or a pre-1.0 client sends it elsewhere)'
        : offV03 ? ` (declared, but a caller naming only protocol:0.3 may be on a pre-1.0 SDK, ${V03_FLAG_NOTES[value]})`
          : unread ? ' (declared, but a caller naming only protocol:0.3 may be on a pre-1.0 SDK whose resolver refuses this card: see the verdict)' : '',
    });
  }
  for (const kind of Object.keys(declared)) {
    for (const value of declared[kind]) {
      const name = kind === 'skill' ? value : `${kind}:${value}`;
      if (seen.has(name)) continue;
      seen.add(name);
      rows.push({ kind, value, required: false, missing: false, agree: true });
    }
  }
  for (const [name, lacking] of partial) {
    if (seen.has(name)) continue;
    seen.add(name);
    const [kind, value] = splitCapability(name);
    rows.push({ kind, value, required: false, missing: false, agree: true, lacking, partialOnly: true });
  }
  if (!rows.length) {
    tbody.append(el('tr', {}, el('td', { colspan: '4', class: 'muted' }, 'No capability required or declared.')));
    return;
  }
  const order = Object.keys(KIND_LABEL);
  rows.sort((x, y) => order.indexOf(x.kind) - order.indexOf(y.kind) || Number(y.required) - Number(x.required));
  for (const r of rows) {
    const tr = el('tr', { class: r.missing ? 'missing' : r.required ? 'ok' : '', 'data-agree': String(r.agree) });
    tr.append(
      el('td', {}, KIND_LABEL[r.kind]),
      el('td', {}, el('code', {}, ...breakable(r.value))),
      el('td', {}, r.required ? 'required' : '—'),
      el('td', {},
        r.missing ? el('strong', {}, '✗ missing') : r.required ? '✓ declared' : r.partialOnly ? 'not granted' : 'declared',
        r.lacking ? el('span', { class: 'muted' }, ` (not read by ${r.lacking.join(', ')})`) : '',
        r.note ? el('span', { class: 'muted' }, r.note) : ''),
    );
    tbody.append(tr);
  }
}

// Puts the caret on a byte offset the core reported (UTF-8 bytes -> textarea characters).
function selectByte(offset) {
  const area = $('card');
  const text = area.value;
  const enc = new TextEncoder();
  let bytes = 0;
  let i = 0;
  while (i < text.length && bytes < offset) {
    const cp = text.codePointAt(i);
    const ch = String.fromCodePoint(cp);
    bytes += enc.encode(ch).length;
    i += ch.length;
  }
  area.focus();
  area.setSelectionRange(i, Math.min(text.length, i + 1));
}

// ---------------------------------------------------------------- hash and pin

function setHash(hash, pinnable = true) {
  lastHash = hash && pinnable ? hash : null;
  $('card-hash').textContent = hash || '(none: the card did not parse)';
  $('copy-pin').disabled = !lastHash;
  const status = $('copy-status');
  const unpinnable = 'The card is malformed: pinning it would not make it usable.';
  if (hash && !pinnable) status.textContent = unpinnable;
  else if (!hash || status.textContent === unpinnable) status.textContent = '';
}

async function copyPin() {
  if (!lastHash) return;
  const hash = lastHash;
  $('req-pin').value = hash;
  let copied = false;
  let why = '';
  try {
    if (!navigator.clipboard) throw new Error('no clipboard in this context');
    await navigator.clipboard.writeText(hash);
    copied = true;
  } catch (err) {
    why = err && err.message ? err.message : String(err);
  }
  $('copy-status').textContent = copied
    ? `Copied ${hash} to the clipboard and set it as the pin.`
    : `Set ${hash} as the pin (clipboard unavailable: ${why}).`;
  evaluateNow();
}

// ---------------------------------------------------------------- card sources

function setCardText(text, bytes) {
  $('card').value = text;
  // Kept as the textarea holds it: the textarea turns CR and CRLF line ends into LF, and the
  // bytes stay the card until that text is edited (not just until it differs from the decoded
  // text, which a CRLF file always does).
  fetched = bytes ? { text: $('card').value, bytes } : null;
  evaluateNow();
}

// A file opened or dropped; one that cannot be read is reported in the page.
async function readFile(file) {
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const text = new TextDecoder('utf-8').decode(bytes);
    setCardText(text, bytes);
    $('fetch-status').textContent = `Loaded ${file.name} (${bytes.length} bytes).`;
  } catch (err) {
    showPageError(`Could not read ${file.name}`, err);
  }
}

// One GET from the browser and the watermark headers of its response, as read by both "load from
// a URL" and "replica vs primary". Resolves to {ok: true, status, bytes, read: [[header, key,
// value or null]], observation} or {ok: false, message} (the request failed or was not 2xx).
async function fetchSource(url) {
  // The URL as fetch reads it (leading and trailing spaces and C0 controls dropped, tabs and
  // newlines removed, relative to the page): the https check below reads its scheme from there.
  let asked;
  try {
    asked = new URL(url, location.href).href;
  } catch (err) {
    return { ok: false, message: `${JSON.stringify(url)} is not a URL.` };
  }
  // The package's default timeout: a source that never answers fails instead of leaving the
  // page fetching.
  const timeoutMs = cg.DEFAULT_TIMEOUT_MS;
  let res;
  let bytes;
  try {
    const signal = AbortSignal.timeout(timeoutMs);
    res = await fetch(asked, { cache: 'no-store', credentials: 'omit', headers: { Accept: 'application/json' }, signal });
    bytes = new Uint8Array(await res.arrayBuffer());
  } catch (err) {
    const timedOut = err && (err.name === 'TimeoutError' || err.name === 'AbortError');
    return {
      ok: false,
      message: timedOut
        ? `No whole answer from ${asked} within ${timeoutMs} ms.`
        : `${err.message}. The server may be unreachable, or it does not allow this page's origin (CORS).`,
    };
  }
  if (!res.ok) {
    return { ok: false, message: `HTTP ${res.status} ${res.statusText}; the body was not loaded as a card.` };
  }
  // 204, 205 and 206 carry no whole card: a failed source, as in the package and the CLI.
  const noCard = cg.statusWithoutCard(res.status);
  if (noCard !== null) return { ok: false, message: `${noCard}; the body was not loaded as a card.` };
  // Redirects (DESIGN.md "Redirects"): the browser follows them and shows only the URL that
  // answered. A source asked over https that answered over http sent its card and watermark in
  // the clear: a failed fetch, as in the package. On a page that is not https the browser blocks
  // no http hop and shows none, so a redirected https source's headers are not used either.
  const answered = res.url || asked;
  // `response.url` has no fragment: a URL asked with one is not redirected for that.
  const unfragmented = new URL(asked);
  unfragmented.hash = '';
  const redirected = res.redirected || answered !== unfragmented.href;
  const httpsAsked = /^https:/i.test(asked);
  if (httpsAsked && /^http:/i.test(answered)) {
    return {
      ok: false,
      message: `${url} redirected to ${answered}: a source asked over https must answer over https (the card and its watermark headers crossed the network in the clear).`,
    };
  }
  const unseenHops = httpsAsked && redirected && location.protocol !== 'https:';
  const read = [];
  const observation = {};
  // A cross-origin answer shows only the headers its server exposes: one missing here may be
  // hidden (a cache's Age, a lag contradicting another), so none is used unless the user states
  // that the server exposes them all (as the package's `watermark.corsExposed`).
  const corsHidden = res.type === 'cors' && !$('cors-exposed').checked;
  const hidden = corsHidden || unseenHops;
  for (const [header, key] of WATERMARK_HEADERS) {
    const v = res.headers.get(header);
    read.push([header, key, v]);
    if (v !== null && !hidden) observation[key] = v; // header text, passed as received
  }
  return { ok: true, status: res.status, bytes, read, observation, hidden, corsHidden, unseenHops, answered: redirected ? answered : null };
}

/** The note shown when a redirected https source's headers were not used (see fetchSource). */
function unseenHopsNote(url, answered) {
  return el('p', { class: 'cors-note' },
    `${url} redirected to ${answered}. On a page that is not https the browser does not block http hops and does not show them, so whether the answer stayed on https cannot be checked: its watermark headers were not used (no watermark: not fresh). Open the inspector over https, or fetch ${answered} directly.`);
}

/** The note shown when a cross-origin answer's headers were not used (see fetchSource). */
function hiddenNote(url) {
  return el('p', { class: 'cors-note' },
    `${url} is on another origin: the browser hides every response header its server does not list in `,
    el('code', {}, 'Access-Control-Expose-Headers'),
    ', so the watermark headers read were not used (no watermark: not fresh). Once the server exposes all of them, tick “The server lists every one of these headers” and fetch again.');
}

function headersReadList(read) {
  const list = el('ul', { class: 'headers-read' });
  for (const [header, key, v] of read) {
    list.append(el('li', {}, el('code', {}, header), ` → ${key}: `,
      v !== null ? el('code', {}, v) : el('span', { class: 'muted' }, 'not readable (absent, or not exposed by CORS)')));
  }
  return list;
}

async function fetchCard() {
  const status = $('fetch-status');
  const url = $('card-url').value.trim();
  status.replaceChildren();
  if (!url) {
    status.textContent = 'Enter a URL first.';
    $('card-url').focus();
    return;
  }
  status.textContent = `Fetching ${url}…`;
  const got = await fetchSource(url);
  if (!got.ok) {
    status.textContent = '';
    showPageError(`Could not fetch ${url}`, got.message);
    return;
  }
  clearPageError();
  // Replace the whole watermark with what this response says.
  for (const [id] of OBS_FIELDS) $(id).value = '';
  for (const [id, key] of OBS_FIELDS) {
    if (got.observation[key] !== undefined) $(id).value = got.observation[key];
  }
  const via = got.answered ? ` from ${got.answered} (redirected)` : '';
  status.replaceChildren(el('p', {}, `HTTP ${got.status}, ${got.bytes.length} bytes${via}. Headers read:`), headersReadList(got.read));
  if (got.corsHidden) status.append(hiddenNote(url));
  if (got.unseenHops) status.append(unseenHopsNote(url, got.answered));
  setCardText(new TextDecoder('utf-8').decode(got.bytes), got.bytes);
}

// ---------------------------------------------------------------- replica vs primary

// The clock both sides are judged at: "now" from the form, else this browser's clock.
function compareNow() {
  const now = $('obs-now').value.trim();
  if (now) return now;
  return $('obs-use-clock').checked ? new Date().toISOString() : null;
}

const CHANGE_WORD = {
  newer: 'the primary is newer',
  older: 'the primary is older',
  equivalent: 'the same version, written differently',
  incomparable: 'different, and not comparable',
};

async function compareSources() {
  const status = $('compare-status');
  const urls = { replica: $('replica-url').value.trim(), primary: $('primary-url').value.trim() };
  status.replaceChildren();
  for (const side of ['replica', 'primary']) {
    if (!urls[side]) {
      status.textContent = `Enter the ${side} URL first.`;
      $(`${side}-url`).focus();
      return;
    }
  }
  if (!cg) return;
  status.textContent = `Fetching ${urls.replica} and ${urls.primary}…`;
  const [replica, primary] = await Promise.all([fetchSource(urls.replica), fetchSource(urls.primary)]);
  const req = requirementFromForm();
  const now = compareNow();
  const obs = (got) => ({ ...got.observation, now });
  status.textContent = '';
  for (const side of ['replica', 'primary']) {
    const got = side === 'replica' ? replica : primary;
    if (got.corsHidden) status.append(hiddenNote(urls[side]));
    if (got.unseenHops) status.append(unseenHopsNote(urls[side], got.answered));
  }
  $('compare-results').hidden = false;
  if (!replica.ok || !primary.ok) {
    renderCompareFailure({ replica, primary }, urls, req, obs);
    return;
  }
  let result;
  try {
    result = cg.compareCards(replica.bytes, primary.bytes, req, obs(replica), obs(primary));
  } catch (err) {
    $('compare-results').hidden = true;
    showPageError('The core refused an input', err);
    return;
  }
  clearPageError();
  renderSide('replica', urls.replica, replica, result.replica);
  renderSide('primary', urls.primary, primary, result.primary);
  renderResolution(result);
  renderDiff(result.comparison);
  $('compare-decision').textContent = JSON.stringify(result.re_resolution.decision, null, 2);
}

// A side whose fetch failed has no card: the other side is still judged alone.
function renderCompareFailure(got, urls, req, obs) {
  for (const side of ['replica', 'primary']) {
    let d = null;
    if (got[side].ok) {
      try {
        d = cg.evaluate(got[side].bytes, req, obs(got[side]));
      } catch (err) {
        showPageError('The core refused an input', err);
      }
    }
    renderSide(side, urls[side], got[side], d);
  }
  const failed = ['replica', 'primary'].filter((side) => !got[side].ok);
  setResolution('error', `Cannot compare: the ${failed.join(' and the ')} did not answer with a card`,
    failed.map((side) => `${side}: ${got[side].message}`).join(' '));
  $('diff-summary').replaceChildren();
  $('diff-body').replaceChildren(el('tr', {}, el('td', { colspan: '3', class: 'muted' }, 'Nothing to compare.')));
  $('compare-decision').textContent = '(none)';
}

function verdictWords(d) {
  if (d.verdict === 'valid') return ['valid', `Valid for delegation (${d.status})`];
  if (d.error_class === 'malformed_card') return ['malformed', `Malformed Agent Card (${d.status})`];
  return ['rejected', `Rejected: ${d.title} (${d.status})`];
}

function renderSide(side, url, got, d) {
  const box = $(`side-${side}`);
  const body = box.querySelector('.side-body');
  body.replaceChildren(el('p', { class: 'side-url' }, el('code', {}, ...breakable(url))));
  if (!got.ok) {
    box.className = 'side error';
    body.append(el('p', { class: 'side-verdict' }, 'No card'), el('p', {}, got.message));
    return;
  }
  if (!d) {
    box.className = 'side error';
    return;
  }
  const [kind, title] = verdictWords(d);
  box.className = `side ${kind}`;
  body.append(el('p', { class: 'side-verdict' }, title));
  if (d.verdict === 'valid') {
    const how = d.freshness === 'pinned' ? 'freshness proven by the pinned hash'
      : `staleness ${d.staleness_ms} ms within tolerance`;
    body.append(el('p', {}, `${d.agent} ${d.card_version}, ${how}.`));
  } else {
    body.append(el('p', {}, d.detail));
    const codes = (d.reasons || []).map((r) => r.code);
    if (codes.length) {
      const p = el('p', { class: 'side-reasons' }, 'Reasons: ');
      codes.forEach((c, i) => p.append(i ? ', ' : '', el('code', {}, c)));
      body.append(p);
    }
  }
  const facts = el('dl', { class: 'figures' });
  if (d.card_version !== undefined && d.card_version !== null) facts.append(el('dt', {}, 'version'), el('dd', {}, d.card_version));
  if (typeof d.staleness_ms === 'number') facts.append(el('dt', {}, 'staleness'), el('dd', {}, `${d.staleness_ms} ms`));
  facts.append(el('dt', {}, 'HTTP'), el('dd', {}, `${got.status}, ${got.bytes.length} bytes`));
  if (d.card_hash) facts.append(el('dt', {}, 'card hash'), el('dd', { class: 'hash' }, d.card_hash));
  body.append(facts);
  const details = el('details', {}, el('summary', {}, 'Watermark headers read'), headersReadList(got.read));
  body.append(details);
}

function setResolution(kind, title, detail) {
  $('compare-resolution').className = `resolution ${kind}`;
  $('compare-resolution-title').textContent = title;
  $('compare-resolution-detail').textContent = detail;
}

function renderResolution(result) {
  const r = result.re_resolution;
  const replica = result.replica;
  // One attempt: the decision is the replica's own, with no resolution member.
  const source = r.decision.resolution ? r.decision.resolution.source : 'replica';
  const why = replica.verdict === 'valid' ? 'The replica\'s card is valid'
    : `The replica's card is ${replica.error_class} (${replica.status})`;
  let kind = 'rejected';
  let title;
  let detail;
  if (r.outcome === 'accepted' && source === 'primary') {
    kind = 'valid';
    title = `Re-resolution would accept the primary's card at attempt ${r.attempts}`;
    detail = `${why}, so the gate asks the primary next; its card is valid, and a host with re-resolution serves it (${r.decision.status}) instead of failing closed.`;
  } else if (r.outcome === 'accepted') {
    kind = 'valid';
    title = 'No re-resolution needed: the replica\'s card is accepted at attempt 1';
    detail = `${why}; the primary is not asked.`;
  } else if (r.outcome === 'capability_mismatch' && source === 'primary') {
    // The replica's card was refused (stale or malformed), so the primary was asked:
    // its fresh card is the one that lacks the capability.
    title = 'Re-resolution stops at the primary: its fresh card lacks a required capability';
    detail = `${why}, so the gate asks the primary next; its card is fresh but lacks a required capability, and that is the agent's real card: a host fails closed (${r.decision.status}).`;
  } else if (r.outcome === 'capability_mismatch') {
    title = 'Re-resolution stops at the replica: its fresh card lacks a required capability';
    detail = `${why}: that is the agent's real card, so asking the primary would not help; a host fails closed (${r.decision.status}).`;
  } else {
    title = `Re-resolution would fail closed (${r.decision.status}): no valid card from either source`;
    detail = `${why}, and the primary's is ${result.primary.verdict === 'valid' ? 'valid' : `${result.primary.error_class} (${result.primary.status})`}.`;
  }
  setResolution(kind, title, `${detail} Core: “${r.message}” (outcome ${r.outcome}, ${r.attempts} attempt${r.attempts === 1 ? '' : 's'}).`);
}

const DIFF_KIND = {
  endpoint: 'endpoint', binding: 'binding', protocol: 'protocol', skill: 'skill', extension: 'extension', flag: 'flag',
};

function itemLabel(kind, name) {
  return kind === 'endpoint' ? name : splitCapability(name)[1];
}

function diffCell(name, kind, mark) {
  if (name === null) return el('td', { class: 'absent' }, el('span', { class: 'muted' }, '—'));
  const cell = el('td', { class: mark || '' }, el('code', {}, ...breakable(itemLabel(kind, name))));
  if (mark) cell.append(' ', el('span', { class: `tag ${mark}` }, mark));
  return cell;
}

function renderDiff(c) {
  const summary = $('diff-summary');
  const tbody = $('diff-body');
  summary.replaceChildren();
  tbody.replaceChildren();
  if (!c.comparable) {
    const why = (side) => {
      const s = c[side];
      return s.readable ? null : `the ${side}'s body is not a readable card (${s.defect.code}${s.defect.path ? ` at ${s.defect.path}` : ''}: ${s.defect.message})`;
    };
    const text = ['replica', 'primary'].map(why).filter(Boolean).join('; ');
    summary.append(el('li', {}, `Cannot compare: ${text}.`));
    tbody.append(el('tr', {}, el('td', { colspan: '3', class: 'muted' }, 'Nothing to compare.')));
    return;
  }
  if (c.same_card) summary.append(el('li', { class: 'same' }, 'The same card: both bodies have the same card hash.'));
  const v = c.version;
  if (v.change !== 'unchanged') {
    summary.append(el('li', { class: 'changed' }, 'version ', el('code', {}, v.replica), ' → ', el('code', {}, v.primary),
      ` (${CHANGE_WORD[v.change]})`));
  }
  for (const d of c.changes) {
    for (const name of d.removed) {
      summary.append(el('li', { class: 'removed' }, `${DIFF_KIND[d.kind]} `, el('code', {}, ...breakable(itemLabel(d.kind, name))), ' ',
        el('span', { class: 'tag removed' }, 'removed')));
    }
    for (const name of d.added) {
      summary.append(el('li', { class: 'added' }, `${DIFF_KIND[d.kind]} `, el('code', {}, ...breakable(itemLabel(d.kind, name))), ' ',
        el('span', { class: 'tag added' }, 'added')));
    }
  }
  if (!summary.children.length) summary.append(el('li', { class: 'same' }, 'No difference in version, endpoints or capabilities.'));

  const versionRow = el('tr', { class: v.change === 'unchanged' ? '' : 'changed' },
    el('th', { scope: 'row' }, 'version'),
    el('td', {}, el('code', {}, v.replica)),
    el('td', {}, el('code', {}, v.primary), v.change === 'unchanged' ? '' : ' ',
      v.change === 'unchanged' ? '' : el('span', { class: 'tag changed' }, v.change)));
  tbody.append(versionRow);
  for (const d of c.changes) {
    // A removed item and an added one of the same kind share a row: a rename reads as one line.
    const rows = Math.max(d.removed.length, d.added.length);
    for (let i = 0; i < rows; i += 1) {
      const gone = i < d.removed.length ? d.removed[i] : null;
      const fresh = i < d.added.length ? d.added[i] : null;
      tbody.append(el('tr', { class: 'changed', 'data-kind': d.kind },
        el('th', { scope: 'row' }, DIFF_KIND[d.kind]), diffCell(gone, d.kind, 'removed'), diffCell(fresh, d.kind, 'added')));
    }
    for (const name of d.unchanged) {
      tbody.append(el('tr', { 'data-kind': d.kind },
        el('th', { scope: 'row' }, DIFF_KIND[d.kind]), diffCell(name, d.kind), diffCell(name, d.kind)));
    }
  }
}

function loadExample(example) {
  clearForm();
  $('card').value = JSON.stringify(example.card, null, 2);
  $('req-require').value = example.require.join('\n');
  $('req-min-version').value = example.min_version;
  $('req-max-stale').value = example.max_stale;
  $('obs-lag-ms').value = example.lag_ms;
  fetched = null;
  evaluateNow();
}

function clearForm() {
  for (const id of ['card', 'req-require', 'req-min-version', 'req-max-stale', 'req-pin', 'req-card-name', 'obs-now', 'card-url']) {
    $(id).value = '';
  }
  for (const [id] of OBS_FIELDS) $(id).value = '';
  $('req-pin-mode').checked = false;
  $('fetch-status').replaceChildren();
  $('copy-status').textContent = '';
  fetched = null;
  clearPageError();
}

// ---------------------------------------------------------------- wiring

function wire() {
  const form = $('inputs');
  // Typing, and ticking either box (a checkbox fires `input` too), evaluates after a pause.
  form.addEventListener('input', (e) => {
    if (e.target.id === 'card-file' || e.target.id === 'card-url') return;
    schedule();
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    evaluateNow();
    $('verdict').focus();
  });
  $('load-incident').addEventListener('click', () => {
    loadExample(INCIDENT);
    $('verdict').focus();
  });
  $('load-fresh').addEventListener('click', () => {
    loadExample(FRESH);
    $('verdict').focus();
  });
  $('clear').addEventListener('click', () => {
    clearForm();
    evaluateNow();
    $('card').focus();
  });
  $('copy-pin').addEventListener('click', copyPin);
  $('fetch-card').addEventListener('click', fetchCard);
  $('compare-form').addEventListener('submit', (e) => {
    e.preventDefault();
    compareSources().then(() => {
      if (!$('compare-results').hidden) $('compare-resolution').focus();
    }).catch((err) => showPageError('Could not compare', err));
  });
  $('card-url').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      fetchCard();
    }
  });
  $('card-file').addEventListener('change', (e) => {
    const f = e.target.files[0];
    if (f) readFile(f);
  });
  const area = $('card');
  area.addEventListener('dragover', (e) => {
    e.preventDefault();
    area.classList.add('drop');
  });
  area.addEventListener('dragleave', () => area.classList.remove('drop'));
  area.addEventListener('drop', (e) => {
    area.classList.remove('drop');
    const f = e.dataTransfer.files[0]; // a drop from the browser always carries a DataTransfer
    if (!f) return; // dropped text: the textarea inserts it itself
    e.preventDefault();
    readFile(f);
  });
}

window.addEventListener('error', (e) => showPageError('Unexpected error in the page', e.error || e.message));
window.addEventListener('unhandledrejection', (e) => showPageError('Unexpected error in the page', e.reason));

async function start() {
  wire();
  try {
    const mod = await import(MODULE_URL);
    await mod.default();
    cg = mod;
    headersFromModule(mod.DEFAULT_WATERMARK);
  } catch (err) {
    setVerdict('error', 'The cardgate core could not be loaded',
      `${MODULE_URL}: ${err && err.message ? err.message : err}. Build it with “make pkg”, then serve with “make www”.`);
    showPageError('The cardgate web build did not load', err);
    return;
  }
  document.documentElement.dataset.ready = 'true';
  // Exposed for the browser tests and for poking at from the console.
  window.cardgate = cg;
  evaluateNow();
}

start();
