// The hand-written part of the `cardgate` package, shared by every entry point.
//
// This file is not a module on its own: js/build.mjs wraps it for CommonJS (node/index.cjs) and
// for the browser ES module (web/index.js). It defines `createApi(raw, env)`, where `raw` is the
// wasm-bindgen glue (src/js.rs) and `env.ready()` throws if the wasm module is not instantiated
// yet, `env.isProxy(value)`, when the host has it (Node), tells a Proxy, and
// `env.filtersCorsHeaders` is true where fetch hides a cross-origin answer's unexposed headers
// (the browser build).
//
// Every decision comes from the Rust core, which reads requirement and observation objects
// itself (serde-wasm-bindgen) and returns canonical decision JSON; this file turns cards into bytes,
// supplies the clock, fetches, and maps the core's error objects to TypeError/RangeError.

/* eslint-disable no-unused-vars */
function createApi(raw, env) {
  'use strict';

  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const AGENT_CARD_PATH = '.well-known/agent-card.json';

  // ---------------------------------------------------------------- typed discovery errors

  /** Base class of the three discovery errors: the card was served but must not be used. */
  class CardGateError extends Error {
    constructor(decision, options) {
      const title = typeof decision.title === 'string' ? decision.title : 'Agent Card rejected';
      const detail = typeof decision.detail === 'string' ? decision.detail : '';
      super(detail ? `${title}: ${detail}` : title);
      this.name = new.target.name;
      /** The full decision object (RFC 9457 problem + cardgate extensions). */
      this.decision = decision;
      /** `stale_agent_card`, `capability_mismatch` or `malformed_card`. */
      this.errorClass = decision.error_class;
      /** The HTTP status the gate maps this class to (503, 409, 502). */
      this.status = decision.status;
      /** The card as received: the parsed object, or its text when it did not parse. */
      this.card = decision.card !== undefined ? decision.card : decision.card_text;
      /** `sha256:...` of the card, or null when the card did not parse. */
      this.cardHash = decision.card_hash !== undefined ? decision.card_hash : null;
      /** Every failed condition: `{code, condition, message, figures?, path?, offset?}`. */
      this.reasons = Array.isArray(decision.reasons) ? decision.reasons : [];
      /** Required capabilities the card does not declare. */
      this.missingCapabilities = Array.isArray(decision.missing_capabilities)
        ? decision.missing_capabilities
        : [];
      /** Staleness figure the gate used (ms), or null. */
      this.stalenessMs = typeof decision.staleness_ms === 'number' ? decision.staleness_ms : null;
      /** The card's `name`, when it parsed. */
      this.agent = decision.agent !== undefined ? decision.agent : null;
      /** Where the card was fetched from, when it was fetched by this package. */
      this.url = options && options.url !== undefined ? String(options.url) : null;
    }
  }

  /** Condition (a) or (b) failed: the card may be outdated. Re-resolving (from the leader or
   * another replica, or after the replica catches up) can succeed. */
  class StaleAgentCardError extends CardGateError {}
  /** Only condition (c) failed: this card is current but lacks capabilities the caller needs.
   * Re-resolving returns the same card; pick another agent or another capability. */
  class CapabilityMismatchError extends CardGateError {}
  /** The served body is not a readable Agent Card. Re-resolving may help when the body was
   * truncated or corrupted on the way; a card that stays malformed is a publishing bug. */
  class MalformedAgentCardError extends CardGateError {}

  Object.defineProperty(StaleAgentCardError.prototype, 'retry', { value: 're-resolve' });
  Object.defineProperty(CapabilityMismatchError.prototype, 'retry', { value: 'none' });
  Object.defineProperty(MalformedAgentCardError.prototype, 'retry', { value: 're-resolve' });

  const ERROR_CLASSES = {
    stale_agent_card: StaleAgentCardError,
    capability_mismatch: CapabilityMismatchError,
    malformed_card: MalformedAgentCardError,
  };

  /** The fetch itself failed: network error or a non-2xx answer. Not a decision of the gate. */
  class AgentCardFetchError extends Error {
    constructor(message, url, status, cause) {
      super(message, cause === undefined ? undefined : { cause });
      this.name = 'AgentCardFetchError';
      this.url = String(url);
      /** HTTP status, or null when no response arrived. */
      this.status = status;
      /** The URL that answered (`status`) when redirects led away from `url`, else null. */
      this.finalUrl = null;
    }
  }

  /** The resolution took longer than `options.timeoutMs` (default 10 s): no card was
   * evaluated. A subclass of AgentCardFetchError (a transport failure, not a gate decision). */
  class AgentCardTimeoutError extends AgentCardFetchError {
    constructor(url, timeoutMs) {
      super(`GET ${url} did not complete within ${timeoutMs} ms`, url, null);
      this.name = 'AgentCardTimeoutError';
      /** The timeout that fired, in ms. */
      this.timeoutMs = timeoutMs;
    }
  }

  /** Turns a rejected decision into its typed error; returns null for a valid decision. */
  function toError(decision, options) {
    if (decision === null || typeof decision !== 'object') {
      throw new TypeError('toError: decision must be a decision object');
    }
    if (decision.verdict === 'valid') return null;
    const Ctor = ERROR_CLASSES[decision.error_class];
    if (Ctor === undefined) {
      throw new TypeError(`toError: unknown error_class ${JSON.stringify(decision.error_class)}`);
    }
    return new Ctor(decision, options);
  }

  /** Returns the decision when it is valid, else throws its typed error. */
  function assertValid(decision, options) {
    const error = toError(decision, options);
    if (error !== null) throw error;
    return decision;
  }

  // ---------------------------------------------------------------- input conversion

  function describe(value) {
    if (value === null || value === undefined) return String(value);
    if (Array.isArray(value)) return 'an array';
    return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  }

  function stringify(value, what) {
    let text;
    try {
      text = JSON.stringify(value);
    } catch (e) {
      throw new TypeError(`${what}: cannot be serialized as JSON (${e && e.message})`);
    }
    if (typeof text !== 'string') throw new TypeError(`${what}: cannot be serialized as JSON`);
    return text;
  }

  /** Whether a string is well-formed UTF-16 (no lone surrogate). TextEncoder, and wasm-bindgen
   * passing a string to the core, replace a lone surrogate with U+FFFD: the core would read other
   * text than the caller holds (whose JSON.parse keeps the lone surrogate). */
  const wellFormed = typeof String.prototype.isWellFormed === 'function'
    ? (s) => s.isWellFormed()
    : (s) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

  /** The index of the first lone surrogate in `s`, or -1. */
  function loneSurrogate(s, from = 0) {
    for (let i = from; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0xd800 || c > 0xdfff) continue;
      if (c <= 0xdbff && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          i++;
          continue;
        }
      }
      return i;
    }
    return -1;
  }

  /** A string's UTF-8 bytes; a lone surrogate is written as its three-byte generalized UTF-8
   * form (ED A0 80 for U+D800), which is not UTF-8, so the core refuses the text
   * (`invalid_utf8` at that byte) instead of reading a U+FFFD the caller's text does not have. */
  function textBytes(s) {
    if (wellFormed(s)) return encoder.encode(s);
    const parts = [];
    let start = 0;
    for (let i = loneSurrogate(s); i !== -1; i = loneSurrogate(s, start)) {
      const c = s.charCodeAt(i);
      parts.push(encoder.encode(s.slice(start, i)), Uint8Array.of(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)));
      start = i + 1;
    }
    parts.push(encoder.encode(s.slice(start)));
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }

  /** A requirement or observation given as JSON text must be well-formed: the core gets it as a
   * string, which would reach it with U+FFFD for a lone surrogate (the core refuses a lone
   * surrogate, escaped or not). Any other value is returned as it is. */
  function wellFormedInput(value, what) {
    if (typeof value !== 'string' || wellFormed(value)) return value;
    const i = loneSurrogate(value);
    const code = value.charCodeAt(i).toString(16).toUpperCase();
    const error = new TypeError(`invalid ${what}: ${what} is not valid JSON: lone surrogate U+${code} at character ${i}`);
    error.input = what;
    error.path = '';
    throw error;
  }

  /** string -> UTF-8 bytes, bytes -> as is, other object -> JSON.stringify -> UTF-8. */
  function toBytes(value, what) {
    if (typeof value === 'string') return textBytes(value);
    if (value instanceof Uint8Array) return value;
    if (value instanceof ArrayBuffer) return new Uint8Array(value);
    if (ArrayBuffer.isView(value)) {
      return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    }
    if (value !== null && typeof value === 'object') return textBytes(stringify(value, what));
    throw new TypeError(
      `${what} must be a string, a Uint8Array/Buffer, an ArrayBuffer or an object, not ${describe(value)}`,
    );
  }

  function toRfc3339(now, what) {
    if (typeof now === 'string') return now;
    let date;
    if (now instanceof Date) date = now;
    else if (typeof now === 'number') date = new Date(now);
    else throw new TypeError(`${what} must be an RFC 3339 string, a Date or a number of ms, not ${describe(now)}`);
    if (!Number.isFinite(date.getTime())) throw new RangeError(`${what} is not a valid time`);
    return date.toISOString();
  }

  /** JSON.stringify's rule, kept now that objects go to the core as they are: a member set to
   * `undefined` is absent (serde-wasm-bindgen would read it as null, which the core refuses or
   * reads as an invalid watermark). */
  function defined(value) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const keys = Object.keys(value);
    if (!keys.some((k) => value[k] === undefined)) return value;
    const copy = {};
    for (const k of keys) if (value[k] !== undefined) copy[k] = value[k];
    return copy;
  }

  /** A requirement or observation object that is not kept by its JSON text (plainKey) is read
   * by the core straight from the JavaScript value (serde-wasm-bindgen), which reads some values
   * that its JSON text does not have: a Map's entries as members, a Set's (or any other
   * iterable's) elements as a list, a BigInt as a number, and a string with a lone surrogate as
   * one with U+FFFD. Those are refused with a TypeError naming the member (the JSON form is the
   * contract: `{}` for a Map, a TypeError for a BigInt; plainInput has already refused the
   * non-plain objects); anything else is left to the core. JSON text goes through
   * `wellFormedInput`. Returns `value`. */
  function coreInput(value, what) {
    if (typeof value === 'string') return wellFormedInput(value, what);
    if (value === null || typeof value !== 'object') return value;
    const at = [];
    let left = 100000;
    const problem = (v, depth) => {
      if (typeof v === 'bigint') return 'a BigInt (JSON has no BigInt: JSON.stringify throws)';
      if (typeof v === 'string') return wellFormed(v) ? null : 'a string with a lone surrogate';
      if (v === null || typeof v !== 'object' || depth > 64 || --left < 0) return null;
      if (!Array.isArray(v) && !ArrayBuffer.isView(v) && typeof v[Symbol.iterator] === 'function' &&
        Object.prototype.toString.call(v) !== '[object String]') {
        return 'an iterable that is not an array (a Map or Set is read as its entries, its JSON text has none)';
      }
      for (const k of Object.keys(v)) {
        at.push(k);
        if (!wellFormed(k)) return 'a member name with a lone surrogate';
        const found = problem(v[k], depth + 1);
        if (found !== null) return found;
        at.pop();
      }
      return null;
    };
    const found = problem(value, 0);
    if (found === null) return value;
    throw inputError(what, at, found);
  }

  /** The TypeError for the input `what` at the path `at` (keys and indices, outermost first:
   * `error.path` is its JSON Pointer). */
  function inputError(what, at, text) {
    const path = at.map((k) => '/' + String(k).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
    const error = new TypeError(`invalid ${what}${path === '' ? '' : ' at ' + path}: ${text}`);
    error.input = what;
    error.path = path;
    return error;
  }

  /** A requirement or observation object must be plain JSON data, as a card object must
   * (cardDataProblem; DESIGN.md "Card objects"), or it is a TypeError naming the member. The
   * gate reads one copy of it while the caller goes on using the object (the capabilities it
   * invokes): a getter, an inherited or non-enumerable member, a class instance or a Proxy can
   * tell the two different things. A `require` getter that named a capability on its first read
   * and nothing after had the gate check no capability, and an observation whose `lag_ms`
   * getter changed kept the decision for its first figures. A member the core reads that the
   * object only inherits (a polluted Object.prototype) is refused too. Checked before anything
   * reads a member; in an observation, `now` may also be a Date. Returns `value`. */
  function plainInput(value, what, members) {
    if (value === null || typeof value !== 'object') return value;
    const at = [];
    let problem = cardDataProblem(value, at, members === OBSERVATION_MEMBERS);
    if (problem === null && !Array.isArray(value)) {
      const k = members.find((m) => m in value && !Object.prototype.hasOwnProperty.call(value, m));
      if (k !== undefined) {
        at.push(k);
        problem = 'an inherited member (a polluted prototype?)';
      }
    }
    if (problem === null) return value;
    throw inputError(what, at, `${problem}; the gate and the caller could read it differently (pass plain JSON data, or JSON text)`);
  }

  /** The members the core reads from a requirement and from an observation. */
  const REQUIREMENT_MEMBERS = ['require', 'min_version', 'max_stale', 'pin', 'pin_mode', 'card_name'];
  const OBSERVATION_MEMBERS = ['lag_ms', 'lag_s', 'synced_at', 'consul_last_contact_ms', 'consul_known_leader',
    'age_s', 'now'];

  /** Objects get the host clock as `now` unless they set it (`now: null` leaves it out); JSON
   * text is verbatim; anything else goes to the core as is, which says what is wrong with it.
   * With `clock` false the host clock is left out (evaluateRaw gives it to the core apart). */
  function withClock(observation, clock = true) {
    if (observation === undefined || observation === null) return clock ? { now: toRfc3339(new Date(), 'observation.now') } : '{}';
    if (typeof observation !== 'object' || Array.isArray(observation) || ArrayBuffer.isView(observation)) return observation;
    // A copy with `now` where the caller put it (and last when the clock's), built member by
    // member: deleting a member would slow every later read of the object.
    const source = defined(observation);
    const copy = {};
    for (const k of Object.keys(source)) {
      if (k !== 'now') copy[k] = source[k];
      else if (source.now !== null) copy.now = toRfc3339(source.now, 'observation.now');
    }
    if (clock && !Object.prototype.hasOwnProperty.call(source, 'now')) copy.now = toRfc3339(new Date(), 'observation.now');
    return copy;
  }

  /** The core throws {kind, message, path}: the TypeError/RangeError for it (anything else is
   * returned as it is, to be rethrown). */
  function coreError(what, info) {
    if (info === null || typeof info !== 'object' || typeof info.kind !== 'string') return info;
    // evaluate reports paths under /requirement or /observation: name that input.
    let input = what;
    let path = info.path;
    const m = /^\/(requirement|observation)(\/.*)?$/.exec(path);
    if (what === 'input' && m) {
      input = m[1];
      path = m[2] === undefined ? '' : m[2];
    }
    const where = path === '' ? input : `${input} at ${path}`;
    const Ctor = info.kind === 'range' ? RangeError : TypeError;
    const error = new Ctor(`invalid ${where}: ${info.message}`);
    error.input = input;
    error.path = path;
    return error;
  }

  /** Runs a core call, its error objects made TypeError/RangeError. */
  function callCore(what, fn) {
    env.ready();
    try {
      return fn();
    } catch (info) {
      throw coreError(what, info);
    }
  }

  // ---------------------------------------------------------------- the core

  // ---------------------------------------------------------------- one evaluation, cheaply
  //
  // evaluate/evaluateRaw go through one GateRaw (src/js.rs), so that a call costs the gate and
  // little else (issue 10):
  // - the card is written straight into a buffer inside the module (bytes copied, text encoded
  //   into it with encodeInto): no allocation per call, no intermediate Uint8Array for text;
  // - a requirement or observation is read (crossed, parsed, validated) once per distinct input
  //   and kept in a slot of the module, found again by its exact JSON text: the text itself, or
  //   JSON.stringify of an object made only of plain JSON data (see plainData). At most
  //   `slots - 1` of each are kept, each from at most KEY_MAX characters; a new one replaces the
  //   oldest. An input the core refuses is never kept (the error is thrown on every call), and
  //   one that is not plain data or is too long is read into the scratch slot 0 for that call
  //   only. An object seen before is found again by identity when its data has not changed;
  // - the host clock (an observation object without `now`, or none) is not part of the kept
  //   observation: the core gets it apart, as ms (what toISOString of it would say).
  // The decision is the one raw.evaluateRaw gives for the same inputs (tests/node/prepared.test.mjs
  // compares them, the shared vectors compare with the native CLI).

  /** Longest requirement or observation (its text, or its object's JSON) kept prepared. */
  const KEY_MAX = 4096;
  /** Most values plainKey visits before it gives up (the input is then read uncached). */
  const KEY_NODES_MAX = 512;

  let gate = null;
  let memory = null;
  let heapView = null;
  let cardBufferMax = 0;
  let requirements = null;
  let observations = null;

  /** Inputs kept prepared in the slots 1..slots-1 of one kind, by exact text or object JSON. */
  class Prepared {
    constructor(slots, prepare) {
      this.text = new Map();
      this.json = new Map();
      // Object inputs seen, to their key: found again without computing the key.
      this.seen = new WeakMap();
      this.owner = new Array(slots).fill(null);
      this.slots = slots;
      this.next = 1;
      this.prepare = prepare;
      /** Whether the last `slot` call read its input (the key was not kept). */
      this.read = false;
    }

    /** The slot holding `value` (keyed `key` in `map`), read into the oldest slot if absent. */
    slot(map, key, value) {
      const found = map.get(key);
      this.read = found === undefined;
      if (found !== undefined) return found;
      const slot = this.next;
      this.next = slot + 1 < this.slots ? slot + 1 : 1;
      const old = this.owner[slot];
      if (old !== null) {
        old.map.delete(old.key);
        this.owner[slot] = null;
      }
      this.prepare(slot, value); // throws for a bad input: nothing is kept
      map.set(key, slot);
      this.owner[slot] = { map, key };
      return slot;
    }

    /** `{slot, clocked}` for an object seen before whose data has not changed since (checked
     * member by member against a copy, which costs less than JSON.stringify), else null. */
    known(object) {
      const seen = this.seen.get(object);
      if (seen === undefined || this.json.get(seen.key) !== seen.slot) return null;
      return sameData(object, seen.copy, true) ? seen : null;
    }

    /** Remembers that `object` (plain data, as `copy` holds it) is kept under `key`. */
    remember(object, copy, key, slot, clocked) {
      this.seen.set(object, { copy, key, slot, clocked });
    }
  }

  function theGate() {
    if (gate === null) {
      const g = new raw.GateRaw();
      const slots = raw.GateRaw.slots();
      memory = raw.wasmMemory();
      cardBufferMax = raw.GateRaw.cardBufferMax();
      requirements = new Prepared(slots, (slot, value) => g.prepareRequirement(slot, value));
      observations = new Prepared(slots, (slot, value) => g.prepareObservation(slot, value));
      gate = g;
    }
    return gate;
  }

  /** The module's memory as bytes (a new view once the memory grew, which detaches the old). */
  function heap() {
    if (heapView === null || heapView.byteLength === 0) heapView = new Uint8Array(memory.buffer);
    return heapView;
  }

  /** Whether `value` is plain JSON data, so that its JSON.stringify text says all the core
   * reads from it: strings, finite numbers other than -0, booleans, null, arrays without holes
   * and objects whose prototype is Object.prototype or null, none with a toJSON member, with no
   * undefined below the top level (the top level's are absent, as `defined` makes them).
   * `budget` counts the values. (A getter is read as a value: one whose result changes from read
   * to read is not supported.) */
  function plainData(value, top, budget) {
    switch (typeof value) {
      case 'string':
      case 'boolean':
        return true;
      case 'number':
        return Number.isFinite(value) && !Object.is(value, -0);
      case 'object': {
        if (value === null) return true;
        // toJSON (own or inherited, even on Object.prototype) would make JSON.stringify say
        // something else than the members the core reads. Tested by presence: a getter could
        // answer nothing to a read here and a method to JSON.stringify.
        if (--budget.left < 0 || 'toJSON' in value) return false;
        if (Array.isArray(value)) {
          if (top || Object.getPrototypeOf(value) !== Array.prototype) return false;
          for (let i = 0; i < value.length; i++) {
            if (!(i in value) || !plainData(value[i], false, budget)) return false;
          }
          return true;
        }
        const proto = Object.getPrototypeOf(value);
        if ((proto !== Object.prototype && proto !== null) || ArrayBuffer.isView(value)) return false;
        for (const k of Object.keys(value)) {
          const v = value[k];
          if (v === undefined ? !top : !plainData(v, false, budget)) return false;
        }
        return true;
      }
      default:
        return false;
    }
  }

  /** Whether `a` holds the same plain JSON data as `b` (a JSON.parse result), members in the same
   * order; at the top level a member of `a` set to undefined is absent. */
  function sameData(a, b, top) {
    if (b === null || typeof b !== 'object') return Object.is(a, b);
    if (a === null || typeof a !== 'object') return false;
    if (Array.isArray(b)) {
      if (!Array.isArray(a) || Object.getPrototypeOf(a) !== Array.prototype || a.length !== b.length) return false;
      for (let i = 0; i < b.length; i++) {
        if (!(i in a) || !sameData(a[i], b[i], false)) return false;
      }
      return true;
    }
    const proto = Object.getPrototypeOf(a);
    if (Array.isArray(a) || (proto !== Object.prototype && proto !== null) || ArrayBuffer.isView(a)) return false;
    const keys = Object.keys(b);
    let j = 0;
    for (const k of Object.keys(a)) {
      const v = a[k];
      if (v === undefined && top) continue;
      if (j === keys.length || keys[j] !== k || !sameData(v, b[k], false)) return false;
      j++;
    }
    return j === keys.length;
  }

  /** The key of an object input: its JSON text when it is plain data of at most KEY_MAX
   * characters, else undefined (not kept). */
  function plainKey(value) {
    if (!plainData(value, true, { left: KEY_NODES_MAX })) return undefined;
    const text = JSON.stringify(value);
    return text.length <= KEY_MAX ? text : undefined;
  }

  /** The slot holding the requirement (read into the scratch slot when it is not kept). */
  function requirementSlot(requirement) {
    if (typeof requirement === 'string') {
      if (requirement.length <= KEY_MAX) return requirements.slot(requirements.text, requirement, requirement);
    } else if (requirement === undefined || requirement === null) {
      // The core reads no requirement as the text `{}`.
      return requirements.slot(requirements.text, '{}', '{}');
    } else if (typeof requirement === 'object' && !Array.isArray(requirement)) {
      const known = requirements.known(requirement);
      if (known !== null) return known.slot;
      const key = plainKey(requirement);
      if (key !== undefined) {
        // Read from the key itself, so the slot holds exactly what its key says even if a
        // getter answered differently when the object was read again.
        const slot = requirements.slot(requirements.json, key, key);
        // Only the object that brought a key is remembered (a new object per call would pay
        // for a copy each time).
        if (requirements.read) requirements.remember(requirement, JSON.parse(key), key, slot);
        return slot;
      }
    }
    gate.prepareRequirement(0, coreInput(defined(requirement), 'requirement'));
    return 0;
  }

  /** The slot holding the observation `obs` withClock made of the caller's `observation`
   * (`clocked`: without the host clock that evaluateRaw gives the core apart). */
  function observationSlot(observation, obs, clocked) {
    if (typeof obs === 'string') {
      if (obs.length <= KEY_MAX) return observations.slot(observations.text, obs, obs);
    } else if (obs !== null && typeof obs === 'object' && !Array.isArray(obs)) {
      const key = plainKey(obs);
      if (key !== undefined) {
        const slot = observations.slot(observations.json, key, key);
        // The caller's object, when plain data, finds the slot next time without withClock
        // (only the object that brought the key, as for requirements). plainInput refused
        // getters, so this copy holds what withClock read.
        if (observations.read && plainData(observation, true, { left: KEY_NODES_MAX })) {
          observations.remember(observation, JSON.parse(JSON.stringify(observation)), key, slot, clocked);
        }
        return slot;
      }
    }
    gate.prepareObservation(0, coreInput(obs, 'observation'));
    return 0;
  }

  /** Whether withClock puts the host's clock into this observation. */
  function takesClock(observation) {
    if (observation === undefined || observation === null) return true;
    if (typeof observation !== 'object' || Array.isArray(observation) || ArrayBuffer.isView(observation)) return false;
    return !Object.prototype.hasOwnProperty.call(observation, 'now') || observation.now === undefined;
  }

  /** The card as text (a string, or an object's JSON: cardJson) or bytes, as cardBytes reads it. */
  function cardInput(card) {
    if (typeof card === 'string') return wellFormed(card) ? card : textBytes(card);
    if (isCardObject(card)) return cardJson(card, 'card');
    return toBytes(card, 'card');
  }

  /** Whether toBytes would read `value` as an object (its JSON), not as text or bytes. */
  function isCardObject(value) {
    return value !== null && typeof value === 'object' && !(value instanceof Uint8Array) &&
      !(value instanceof ArrayBuffer) && !ArrayBuffer.isView(value);
  }

  /** toBytes for a card: an object goes through cardJson. */
  function cardBytes(value, what) {
    return isCardObject(value) ? encoder.encode(cardJson(value, what)) : toBytes(value, what);
  }

  /** Deepest a card object is walked (the core refuses a card nested deeper than 64 levels);
   * deeper, or circular, is a TypeError. */
  const CARD_DEPTH_MAX = 1000;

  /** The JSON text of a card given as an object. The caller hands the same object to its SDK,
   * which reads the object itself (@a2a-js/sdk's normalizeAgentCard tests some members with
   * `in`, which sees inherited, non-enumerable and undefined members; every read calls a getter
   * again), while the core reads this text. So the object must be plain JSON data, for which
   * JSON.stringify says what the SDK reads; anything else is a TypeError naming where
   * (DESIGN.md "Card objects"): a value that is a function, a symbol or a non-finite number (a
   * bigint: JSON.stringify's own TypeError); an array element that is undefined or a hole; an
   * own member that is a getter/setter or not enumerable; an object whose prototype is not
   * Object.prototype or null (Date, Map, Set, a class instance, a boxed primitive), an array
   * whose prototype is not Array.prototype or with other members than its elements, a Proxy
   * (in Node: a browser cannot tell one); a toJSON on Object.prototype or Array.prototype, a
   * method or a getter (an own toJSON is a function member). A member set to undefined is
   * absent, as in the text, except where the SDK tests its presence (presenceProblem).
   * Symbol-keyed members are ignored, as by every reader. */
  function cardJson(card, what) {
    // Presence, not a read: a toJSON getter could answer nothing here and a method to
    // JSON.stringify.
    if ('toJSON' in Object.prototype || 'toJSON' in Array.prototype) {
      throw new TypeError(`${what}: Object.prototype or Array.prototype has a toJSON member, so the card's JSON text would not be its data`);
    }
    const at = [];
    let problem = cardDataProblem(card, at);
    if (problem === null) problem = presenceProblem(card, at);
    if (problem !== null) {
      const path = at.map((k) => '/' + String(k).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
      const error = new TypeError(`${what}${path === '' ? '' : ' at ' + path}: ${problem}; an SDK would not read this object as its JSON text (pass plain JSON data, or the card's bytes)`);
      error.input = what;
      error.path = path;
      throw error;
    }
    return stringify(card, what);
  }

  /** What makes `value` other than plain JSON data (cardJson), or null; `at` ends up holding the
   * path to it (keys and indices, outermost first). A member set to undefined is skipped
   * (absent, as JSON.stringify leaves it out; presenceProblem checks where that differs).
   * Reads members through their descriptors, so no getter runs (one descriptor per member:
   * Object.getOwnPropertyDescriptors costs ten times as much). With `dateNow` (an observation),
   * the top-level `now` is left to withClock (a Date or a number of ms is a clock value). */
  function cardDataProblem(value, at, dateNow = false) {
    switch (typeof value) {
      case 'string':
      case 'boolean':
      case 'bigint': // JSON.stringify throws its own TypeError for one
        return null;
      case 'number':
        return Number.isFinite(value) ? null : `the number ${value} is not JSON`;
      case 'object':
        break;
      default:
        return `${typeof value === 'undefined' ? 'undefined' : 'a ' + typeof value} is not JSON`;
    }
    if (value === null) return null;
    if (at.length >= CARD_DEPTH_MAX) return `nested deeper than ${CARD_DEPTH_MAX} levels, or circular`;
    if (env.isProxy !== undefined && env.isProxy(value)) return 'a Proxy';
    const keys = Object.keys(value);
    if (Array.isArray(value)) {
      if (Object.getPrototypeOf(value) !== Array.prototype) return 'an array whose prototype is not Array.prototype';
      // Every index an enumerable own data member (no hole, no hidden element, no getter), and
      // no other enumerable member: with every index among the keys, their count says there is
      // none (a count alone lets a hole and an extra member make up for each other). A
      // non-enumerable member other than an element is not looked for: no reader sees one, and
      // Object.getOwnPropertyNames costs four times Object.keys on a long array.
      for (let i = 0; i < value.length; i++) {
        const d = Object.getOwnPropertyDescriptor(value, i);
        at.push(i);
        if (d === undefined) return 'a hole in an array';
        if (!d.enumerable) return 'an element that is not enumerable';
        if (!('value' in d)) return 'a getter or setter';
        const problem = cardDataProblem(d.value, at);
        if (problem !== null) return problem;
        at.pop();
      }
      return keys.length === value.length ? null : 'an array with members other than its elements';
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      return 'an object whose prototype is not Object.prototype or null (a Date, Map, Set, class instance...)';
    }
    if (Object.getOwnPropertyNames(value).length !== keys.length) {
      for (const k of Object.getOwnPropertyNames(value)) {
        if (!Object.prototype.propertyIsEnumerable.call(value, k)) {
          at.push(k);
          return 'a member that is not enumerable';
        }
      }
    }
    for (let i = 0; i < keys.length; i++) {
      const d = Object.getOwnPropertyDescriptor(value, keys[i]);
      at.push(keys[i]);
      if (d === undefined || !('value' in d)) return 'a getter or setter';
      // An observation's `now` may also be a Date, or a number of ms: withClock reads it once,
      // with toRfc3339, which says what is wrong with it.
      if (d.value !== undefined && !(dateNow && at.length === 1 && keys[i] === 'now')) {
        const problem = cardDataProblem(d.value, at);
        if (problem !== null) return problem;
      }
      at.pop();
    }
    return null;
  }

  /** Members @a2a-js/sdk's normalizeAgentCard tests for presence (`in`, Object.values), where one
   * set to undefined, or inherited (a polluted Object.prototype), reads otherwise than the text:
   * the top-level supportedInterfaces, preferredTransport, additionalInterfaces and
   * supportsAuthenticatedExtendedCard (isLegacyAgentCard), and, inherited only, url,
   * protocolVersion, capabilities, skills, security, securitySchemes and a skill's security;
   * `schemes` in an element of the card's or a skill's `security`, a securitySchemes value and
   * its `type` (isProtoAgentCard). `card` is plain data (cardDataProblem), so reading it runs no
   * getter. A few `in` tests per card: run on every card object. */
  function presenceProblem(card, at) {
    const own = Object.prototype.hasOwnProperty;
    // A member the SDK would see that the text does not say: undefined, or not own.
    const unlike = (o, k) => o !== null && typeof o === 'object' && k in o && (!own.call(o, k) || o[k] === undefined);
    const problem = (...where) => {
      at.push(...where);
      const o = where.slice(0, -1).reduce((v, k) => v[k], card);
      return own.call(o, where[where.length - 1])
        ? 'undefined here is not absent: @a2a-js/sdk tests whether the member is present'
        : 'an inherited member (a polluted prototype?): @a2a-js/sdk reads it, the JSON text does not have it';
    };
    if (Array.isArray(card)) return null;
    for (const k of PRESENCE_TOP_LEVEL) if (unlike(card, k)) return problem(k);
    // Read by value: undefined is absent, but an inherited value is read.
    for (const k of VALUE_TOP_LEVEL) if (k in card && !own.call(card, k)) return problem(k);
    const security = (list, where) => {
      if (!Array.isArray(list)) return null;
      for (let i = 0; i < list.length; i++) if (unlike(list[i], 'schemes')) return problem(...where, i, 'schemes');
      return null;
    };
    let found = security(card.security, ['security']);
    if (found !== null) return found;
    if (Array.isArray(card.skills)) {
      for (let i = 0; i < card.skills.length; i++) {
        const skill = card.skills[i];
        if (skill !== null && typeof skill === 'object' && 'security' in skill) {
          if (!own.call(skill, 'security')) return problem('skills', i, 'security');
          found = security(skill.security, ['skills', i, 'security']);
          if (found !== null) return found;
        }
      }
    }
    const schemes = card.securitySchemes;
    if (schemes !== null && typeof schemes === 'object' && !Array.isArray(schemes)) {
      for (const k of Object.keys(schemes)) {
        if (schemes[k] === undefined) return problem('securitySchemes', k);
        if (unlike(schemes[k], 'type')) return problem('securitySchemes', k, 'type');
      }
    }
    return null;
  }

  /** The top-level members isLegacyAgentCard tests with `in`, and those normalizeAgentCard reads
   * by value to choose its path (only an inherited one is refused). */
  const PRESENCE_TOP_LEVEL = ['supportedInterfaces', 'preferredTransport', 'additionalInterfaces',
    'supportsAuthenticatedExtendedCard'];
  const VALUE_TOP_LEVEL = ['url', 'protocolVersion', 'capabilities', 'skills', 'security', 'securitySchemes'];

  /** The decision for a card from cardInput, the two slots and the host clock (NaN: none). */
  function decide(g, card, req, obs, nowMs) {
    if (typeof card === 'string') {
      const room = card.length * 3; // UTF-8 takes at most 3 bytes per UTF-16 unit
      if (room > cardBufferMax) return decide(g, encoder.encode(card), req, obs, nowMs);
      const at = g.cardBuffer(room);
      const { written } = encoder.encodeInto(card, heap().subarray(at, at + room));
      return g.evaluate(written, req, obs, nowMs);
    }
    if (card.length > cardBufferMax) return g.evaluateBytes(card, req, obs, nowMs);
    const at = g.cardBuffer(card.length);
    heap().set(card, at);
    return g.evaluate(card.length, req, obs, nowMs);
  }

  /** The canonical decision JSON text, byte for byte what the CLI and Envoy produce. */
  function evaluateRaw(card, requirement, observation) {
    const input = cardInput(card);
    wellFormedInput(requirement, 'requirement');
    wellFormedInput(observation, 'observation');
    plainInput(requirement, 'requirement', REQUIREMENT_MEMBERS);
    plainInput(observation, 'observation', OBSERVATION_MEMBERS);
    // An observation object seen before, unchanged, needs no withClock.
    const seen = observations !== null && observation !== null && typeof observation === 'object'
      ? observations.known(observation)
      : null;
    const clocked = seen !== null ? seen.clocked : takesClock(observation);
    const obs = seen !== null ? null : withClock(observation, false);
    const nowMs = clocked ? clockMs() : NaN;
    env.ready();
    try {
      const g = theGate();
      const reqSlot = requirementSlot(requirement);
      const obsSlot = seen !== null ? seen.slot : observationSlot(observation, obs, clocked);
      return decide(g, input, reqSlot, obsSlot, nowMs);
    } catch (info) {
      throw coreError('input', info);
    }
  }

  /** The host clock in ms, checked as toRfc3339 checks it. */
  function clockMs() {
    const ms = new Date().getTime();
    if (!Number.isFinite(ms)) throw new RangeError('observation.now is not a valid time');
    return ms;
  }

  /** The decision object (what JSON.parse of evaluateRaw gives). Never throws for a bad card: a
   * bad card is a `malformed_card` decision. Throws TypeError/RangeError for a bad requirement
   * or observation. */
  function evaluate(card, requirement, observation) {
    return JSON.parse(evaluateRaw(card, requirement, observation));
  }

  /** `sha256:<hex>` over the RFC 8785 form of the card minus top-level `signatures`. */
  function cardHash(card) {
    const bytes = cardBytes(card, 'card');
    return callCore('card', () => raw.cardHash(bytes));
  }

  /** What the card grants, as the core reads it: `{granted, readings:[{sdk, capabilities}]}`
   * (each SDK reading alone), or `{defect:{code, path, message}}` for a card the gate cannot
   * read. For display: a decision's `missing_capabilities` is what gates. */
  function declaredCapabilities(card) {
    const bytes = cardBytes(card, 'card');
    return JSON.parse(callCore('card', () => raw.declaredCapabilities(bytes)));
  }

  /** Replica vs primary, for display: `{replica, primary}` (each card's decision under the same
   * requirement with its own observation), `comparison` (what differs between the two cards as
   * the gate reads them) and `re_resolution` (what re-resolving, replica first, concludes). */
  function compareCards(replica, primary, requirement, replicaObservation, primaryObservation) {
    const r = cardBytes(replica, 'replica');
    const p = cardBytes(primary, 'primary');
    const ro = coreInput(withClock(plainInput(replicaObservation, 'replica_observation', OBSERVATION_MEMBERS)), 'replica_observation');
    const po = coreInput(withClock(plainInput(primaryObservation, 'primary_observation', OBSERVATION_MEMBERS)), 'primary_observation');
    const req = coreInput(defined(plainInput(requirement, 'requirement', REQUIREMENT_MEMBERS)), 'requirement');
    return JSON.parse(callCore('input', () => raw.compareCards(r, p, req, ro, po)));
  }

  /** RFC 8785 canonical JSON of a JSON text, bytes or a JavaScript value. */
  function canonicalize(json) {
    const bytes = toBytes(json, 'json');
    return callCore('json', () => raw.canonicalize(bytes));
  }

  /** Validates a policy document; throws TypeError/RangeError naming the member. */
  function checkPolicy(policy) {
    const bytes = toBytes(policy, 'policy');
    callCore('policy', () => raw.checkPolicy(bytes));
  }

  /** Version of the Rust core inside the wasm module. */
  function coreVersion() {
    env.ready();
    return raw.version();
  }

  // ---------------------------------------------------------------- fetching a card

  const DEFAULT_WATERMARK = Object.freeze({
    lagMsHeader: 'x-replica-lag-ms',
    lagSHeader: 'x-replica-lag-s',
    syncedAtHeader: 'x-replica-synced-at',
    consul: true,
    age: true,
    corsExposed: false,
  });

  function headerValue(headers, name) {
    if (name === null || name === false || name === '') return undefined;
    const value = headers.get(name);
    return value === null ? undefined : value;
  }

  const WATERMARK_HEADERS = ['lagMsHeader', 'lagSHeader', 'syncedAtHeader'];
  const WATERMARK_FLAGS = ['consul', 'age', 'corsExposed'];
  // RFC 9110 token: what a header name may be (the Envoy filter's `watermark` asks the same).
  const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

  /** The watermark options with their defaults, or a TypeError naming the member that is not
   * one (a misspelt name, as the filter's snake_case `lag_ms_header`, would otherwise leave the
   * defaults in force without a word), or has the wrong type. */
  function watermarkOf(watermark) {
    if (watermark === undefined || watermark === null) return DEFAULT_WATERMARK;
    if (typeof watermark !== 'object' || Array.isArray(watermark)) {
      throw new TypeError(`options.watermark must be an object, not ${describe(watermark)}`);
    }
    // A member set to `undefined` is absent, as everywhere in the package: it keeps its default.
    // (Copied over, `age: undefined` had switched Age off, so a card's time in caches was not
    // counted; `consul: undefined` likewise.)
    const w = Object.assign({}, DEFAULT_WATERMARK);
    for (const key of Object.keys(watermark)) {
      const v = watermark[key];
      if (WATERMARK_HEADERS.includes(key)) {
        if (!(v === undefined || v === null || v === false || v === '' || (typeof v === 'string' && TOKEN.test(v)))) {
          throw new TypeError(`options.watermark.${key} must be a header name (a token), null or false, not ${describe(v)}`);
        }
      } else if (WATERMARK_FLAGS.includes(key)) {
        if (!(v === undefined || typeof v === 'boolean')) {
          throw new TypeError(`options.watermark.${key} must be a boolean, not ${describe(v)}`);
        }
      } else {
        throw new TypeError(
          `options.watermark.${key} is not a watermark option (${WATERMARK_HEADERS.concat(WATERMARK_FLAGS).join(', ')})`,
        );
      }
      if (v !== undefined) w[key] = v;
    }
    return w;
  }

  /** The watermark headers a browser may have hidden from `response` (a list for the message),
   * or null. A browser shows a cross-origin (`cors`) answer's headers only when its server lists
   * them in Access-Control-Expose-Headers (or they are CORS-safelisted, which no watermark header
   * is), and nothing tells a hidden header from an absent one: a hidden `Age`, or a hidden source
   * that contradicts an exposed one, would let a card pass that the same answer read in full
   * refuses. So such an answer is a failed source unless the caller states that its server
   * exposes them (`corsExposed`). Only where the host filters (`env.filtersCorsHeaders`: the
   * browser build); Node's fetch reports `cors` after a cross-origin redirect but shows every
   * header. */
  function hiddenWatermark(response, watermark) {
    if (!env.filtersCorsHeaders || response.type !== 'cors') return null;
    const w = watermarkOf(watermark);
    if (w.corsExposed) return null;
    const names = [w.lagMsHeader, w.lagSHeader, w.syncedAtHeader].filter((n) => typeof n === 'string' && n !== '');
    if (w.consul) names.push('X-Consul-LastContact', 'X-Consul-KnownLeader');
    if (w.age) names.push('Age');
    return names.join(', ');
  }

  /** Reads the configured watermark headers of a fetch Response into an observation. */
  function observationFromHeaders(headers, watermark, now) {
    const w = watermarkOf(watermark);
    const obs = {};
    const put = (key, value) => {
      if (value !== undefined) obs[key] = value;
    };
    put('lag_ms', headerValue(headers, w.lagMsHeader));
    put('lag_s', headerValue(headers, w.lagSHeader));
    put('synced_at', headerValue(headers, w.syncedAtHeader));
    if (w.consul) {
      put('consul_last_contact_ms', headerValue(headers, 'x-consul-lastcontact'));
      put('consul_known_leader', headerValue(headers, 'x-consul-knownleader'));
    }
    if (w.age) put('age_s', headerValue(headers, 'age'));
    obs.now = now === undefined ? toRfc3339(new Date(), 'now') : now === null ? null : toRfc3339(now, 'now');
    return obs;
  }

  // Every resolution ends within this many ms unless options.timeoutMs says otherwise.
  const DEFAULT_TIMEOUT_MS = 10000;
  // setTimeout's largest delay; a longer timeout is no timeout.
  const MAX_TIMER_MS = 2147483647;

  function discard(response) {
    try {
      if (response.body && typeof response.body.cancel === 'function') response.body.cancel().catch(() => {});
    } catch (_) {
      // best effort: the body is not needed
    }
  }

  function timeoutOf(opts) {
    const t = opts.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : opts.timeoutMs;
    if (typeof t !== 'number' || Number.isNaN(t)) {
      throw new TypeError(`options.timeoutMs must be a number of milliseconds (Infinity: none), not ${describe(t)}`);
    }
    if (!(t > 0)) throw new RangeError(`options.timeoutMs must be more than 0 ms (Infinity: none), not ${t}`);
    return t;
  }

  function reasonText(reason) {
    if (reason && typeof reason.message === 'string') return reason.message;
    return String(reason);
  }

  // Errors that mean "the caller cancelled": they end a resolution over several sources instead
  // of counting as a failed source.
  const callerAborts = new WeakSet();

  /** One fetch's deadline: its timeout combined with the caller's signal.
   * `signal` goes to fetch; `race(p)` settles with p or with the typed error once either fires. */
  function startDeadline(url, timeoutMs, outer) {
    if (outer !== undefined && outer !== null && (typeof outer !== 'object' || typeof outer.addEventListener !== 'function')) {
      throw new TypeError(`options.signal must be an AbortSignal, not ${describe(outer)}`);
    }
    const controller = new AbortController();
    let failure = null;
    let rejectFired;
    const fired = new Promise((_, reject) => {
      rejectFired = reject;
    });
    fired.catch(() => {});
    const fail = (error) => {
      if (failure !== null) return;
      failure = error;
      rejectFired(error);
      controller.abort(error);
    };
    const timer = timeoutMs <= MAX_TIMER_MS ? setTimeout(() => fail(new AgentCardTimeoutError(url, timeoutMs)), timeoutMs) : null;
    const onAbort = () => {
      const error = new AgentCardFetchError(`GET ${url} was aborted by the caller: ${reasonText(outer.reason)}`, url, null, outer.reason);
      callerAborts.add(error);
      fail(error);
    };
    if (outer) {
      if (outer.aborted) onAbort();
      else outer.addEventListener('abort', onAbort, { once: true });
    }
    return {
      signal: controller.signal,
      race: (promise) => Promise.race([promise, fired]),
      failed: () => failure,
      done() {
        if (timer !== null) clearTimeout(timer);
        if (outer) outer.removeEventListener('abort', onAbort);
      },
    };
  }

  /** Reads at most `limit + 1` bytes of the body, then cancels the rest. Returns
   * `{bytes, over, seen, complete}`: `over` when the body is longer than `limit`; then `seen`
   * is its size, exact (`complete`) when known (the whole body was read, or an identity
   * `Content-Length` declares it), else the lower bound read so far. */
  async function readBody(response, limit, deadline) {
    const stream = response.body;
    if (!stream || typeof stream.getReader !== 'function') {
      const all = new Uint8Array(await deadline.race(response.arrayBuffer()));
      if (all.length <= limit) return { bytes: all, over: false, seen: all.length, complete: true };
      return { bytes: all.subarray(0, limit + 1), over: true, seen: all.length, complete: true };
    }
    const reader = stream.getReader();
    const chunks = [];
    let total = 0;
    let ended = false;
    try {
      for (;;) {
        const { done, value } = await deadline.race(reader.read());
        if (done) {
          ended = true;
          break;
        }
        chunks.push(value);
        total += value.length;
        if (total > limit) break;
      }
    } catch (e) {
      reader.cancel().catch(() => {});
      throw e;
    }
    if (!ended) reader.cancel().catch(() => {});
    const out = new Uint8Array(Math.min(total, limit + 1));
    let at = 0;
    for (const chunk of chunks) {
      const take = Math.min(chunk.length, out.length - at);
      out.set(take === chunk.length ? chunk : chunk.subarray(0, take), at);
      at += take;
      if (at === out.length) break;
    }
    if (total <= limit) return { bytes: out, over: false, seen: total, complete: true };
    let seen = total;
    let complete = ended;
    if (!ended) {
      // A declared length for the identity-encoded body gives the exact figure; anything else
      // (absent, compressed, smaller than what arrived, beyond 2^32) leaves the lower bound.
      const encoding = (response.headers.get('content-encoding') || 'identity').trim().toLowerCase();
      const declared = response.headers.get('content-length');
      if (encoding === 'identity' && declared !== null && /^[0-9]{1,10}$/.test(declared.trim())) {
        const n = Number(declared.trim());
        if (n >= total && n <= 0xffffffff) {
          seen = n;
          complete = true;
        }
      }
    }
    return { bytes: out, over: true, seen, complete };
  }

  // Request headers a fetch drops when a redirect leaves the origin (Fetch standard: the
  // `Authorization` header; undici also drops these two).
  const CROSS_ORIGIN_DROPPED = ['authorization', 'cookie', 'proxy-authorization'];

  /**
   * A `Location` header value as fetch reads it when it follows the redirect itself: header values
   * arrive as byte strings (one code unit per byte), and undici decodes a `Location`'s bytes as
   * UTF-8 before resolving it (`/é` sent as UTF-8 is asked as `/%C3%A9`; read as the byte string it
   * would be `/%C3%83%C2%A9`, another path than the SDK's fetch asks). A value that is no byte
   * string (a caller's fetch) is kept as it is.
   */
  function utf8Location(value) {
    if (typeof value !== 'string' || !/[\x80-\xff]/.test(value) || /[^\x00-\xff]/.test(value)) return value;
    return new TextDecoder().decode(Uint8Array.from(value, (c) => c.charCodeAt(0)));
  }

  /** `url` without its fragment (what fetch's `response.url` shows), or `url` when it does not
   * parse. */
  function withoutFragment(url) {
    try {
      const u = new URL(url);
      u.hash = '';
      return u.href;
    } catch (_) {
      return url;
    }
  }

  /** The first response header name that is not an RFC 9110 token, or null. undici keeps a name
   * written with whitespace before its colon (`x-replica-lag-ms : 50000` is the header
   * `"x-replica-lag-ms "`), where ureq and h11 refuse the answer and a proxy trims the name (RFC
   * 9112 section 5.1). A fetch whose headers cannot be listed (only `get`) is taken as it is. */
  function nonTokenHeaderName(headers) {
    if (typeof headers.keys !== 'function') return null;
    try {
      for (const name of headers.keys()) {
        if (typeof name !== 'string' || !TOKEN.test(name)) return String(name);
      }
    } catch (e) {
      // Names that cannot be listed cannot be shown to be tokens.
      return `(the header names could not be listed: ${e && e.message ? e.message : e})`;
    }
    return null;
  }

  /** A failed source whose attempt records `why` as it is (the core's redirect refusal or
   * status rule, the same text as `cardgate resolve`'s). */
  function redirectFailure(url, why, status, finalUrl) {
    const error = new AgentCardFetchError(`GET ${url} failed: ${why}`, url, status);
    error.finalUrl = finalUrl;
    redirectRefusals.set(error, why);
    return error;
  }
  const redirectRefusals = new WeakMap();

  /** The URL that answered when a fetch followed redirects itself (`response.redirected`, or a
   * `response.url` other than the one asked), else null. */
  function followedTo(response, asked) {
    const answered = typeof response.url === 'string' ? response.url : '';
    if (response.redirected === true || (answered !== '' && answered !== withoutFragment(asked))) {
      return answered !== '' ? answered : null;
    }
    return null;
  }

  /** GETs one card URL within `timeoutMs`: `{bytes, over, seen, complete, observation,
   * finalUrl}`, or throws AgentCardFetchError (AgentCardTimeoutError when the timeout fired).
   *
   * Redirects (DESIGN.md "Redirects"): in Node, each is followed here (`redirect: 'manual'`),
   * asking the core's `redirectRefusal` first: more than 5, or a source asked over https
   * redirected to http (at any hop), is a failed source; a fetch that followed redirects itself
   * anyway cannot show the hops, so it fails an https source. In the browser build the browser
   * follows (`redirect: 'manual'` gives an opaque answer there) and only the URL that answered
   * is checked; see `browserRedirect`. */
  async function fetchCard(fetchImpl, url, opts, timeoutMs) {
    const manual = !env.filtersCorsHeaders;
    // The URL as fetch reads it (WHATWG URL parsing drops leading and trailing spaces and C0
    // controls, and tabs and newlines anywhere: `' https://…'` and `'ht\ttps://…'` are https
    // URLs to fetch): the https checks below read its scheme from there, never from the text.
    const asked = parsedHref(url);
    // In Node the gate asks for the bytes as served (`identity`), as `cardgate resolve` does:
    // fetch would otherwise ask for gzip/deflate/br and decode them itself (a browser sets this
    // header itself).
    const headers = Object.assign({ accept: 'application/json', 'a2a-version': '1.0' }, manual ? { 'accept-encoding': 'identity' } : {}, opts.headers || {});
    const deadline = startDeadline(url, timeoutMs, opts.signal);
    try {
      let response;
      let current = asked;
      let hopHeaders = headers;
      let followed = 0;
      for (;;) {
        try {
          // `no-store`: a browser's HTTP cache would otherwise answer with a stored card and its
          // headers as they were when stored (the lag then, `Age` not brought up to date: seen in
          // Chromium 156), so a card of any age could pass. The browser then also sends
          // `Cache-Control: no-cache`, and caches on the way revalidate (Fetch standard). Node's
          // fetch keeps no cache; a caller's own fetch gets the same request.
          response = await deadline.race(
            fetchImpl(current, {
              method: 'GET',
              headers: hopHeaders,
              signal: deadline.signal,
              cache: 'no-store',
              redirect: manual ? 'manual' : 'follow',
            }),
          );
        } catch (e) {
          if (deadline.failed()) throw deadline.failed();
          const code = e && e.cause && e.cause.code ? ` (${e.cause.code})` : '';
          const via = current === asked ? '' : ` (redirected to ${current})`;
          throw new AgentCardFetchError(`GET ${url} failed${via}: ${e && e.message ? e.message : e}${code}`, url, null, e);
        }
        // The race prefers a fetch that had settled when it began, even after the caller's signal
        // or the timeout fired (a fetch that ignores its signal): that resolution has failed.
        if (deadline.failed()) {
          if (response !== null && typeof response === 'object') discard(response);
          throw deadline.failed();
        }
        if (response === null || typeof response !== 'object' || response.headers === null ||
          typeof response.headers !== 'object' || typeof response.headers.get !== 'function') {
          throw new AgentCardFetchError(`GET ${url}: fetch returned ${describe(response)} without headers, not a Response`, url, null);
        }
        // The statuses fetch follows (the core's followsRedirect, as `cardgate resolve`).
        if (!manual || !raw.followsRedirect(response.status)) break;
        discard(response);
        const location = utf8Location(response.headers.get('location'));
        let to = null;
        try {
          // Recorded as fetch's `response.url` shows it: without the fragment (as `cardgate
          // resolve` records it; fetch never sends one).
          to = location === null ? null : withoutFragment(new URL(location, current).href);
        } catch (_) {
          // not a URL: below
        }
        if (to === null) {
          const why = location === null ? 'without a Location header' : `with a Location that is not a URL: ${JSON.stringify(location)}`;
          throw redirectFailure(url, `${current} answered ${response.status} ${why}`, response.status, current === asked ? null : current);
        }
        const why = raw.redirectRefusal(asked, to, followed);
        if (why !== undefined && why !== null) throw redirectFailure(url, why, response.status, null);
        if (new URL(to).origin !== new URL(current).origin) {
          hopHeaders = Object.assign({}, hopHeaders);
          for (const name of Object.keys(hopHeaders)) {
            if (CROSS_ORIGIN_DROPPED.includes(name.toLowerCase())) delete hopHeaders[name];
          }
        }
        current = to;
        followed += 1;
      }
      let finalUrl = current === asked ? null : current;
      const itself = followedTo(response, current);
      if (itself !== null || response.redirected === true) {
        if (manual) {
          // A fetch that ignored `redirect: 'manual'` (a caller's): the hops it followed are
          // unknown, so a source asked over https cannot be shown to have stayed on https (a
          // source asked over http was never protected; nor can its hops be counted).
          if (isHttps(asked)) {
            discard(response);
            throw redirectFailure(
              url,
              `${url}: options.fetch followed redirects itself (it ignored redirect: 'manual'), so whether every hop stayed on https cannot be checked`,
              response.status,
              itself,
            );
          }
        } else {
          browserRedirect(url, asked, itself, response);
        }
        finalUrl = itself;
      }
      if (!response.ok) {
        discard(response);
        const text = response.statusText ? ` ${response.statusText}` : '';
        throw withFinal(new AgentCardFetchError(`GET ${url} answered ${response.status}${text}, not 2xx`, url, response.status), finalUrl);
      }
      // A 204 or 205 has no content and a 206 part of a card (the core's statusWithoutCard, the
      // rule of `cardgate resolve`): a failed source. A 206 used to be refused here alone; a
      // 205 with a body was read by the CLI and not by fetch.
      const noCard = raw.statusWithoutCard(response.status);
      if (noCard !== undefined && noCard !== null) {
        discard(response);
        throw redirectFailure(url, noCard, response.status, finalUrl);
      }
      const badName = nonTokenHeaderName(response.headers);
      if (badName !== null) {
        discard(response);
        throw withFinal(
          new AgentCardFetchError(
            `GET ${url} answered with a header name that is not an HTTP token: ${JSON.stringify(badName)} ` +
              `(RFC 9112 forbids whitespace before the colon; a proxy would trim it and pass another ` +
              `header, say a second watermark the gate never saw, so the answer is refused as ` +
              `\`cardgate resolve\` and httpx refuse it)`,
            url,
            response.status,
          ),
          finalUrl,
        );
      }
      const hidden = hiddenWatermark(response, opts.watermark);
      if (hidden !== null) {
        discard(response);
        throw new AgentCardFetchError(
          `GET ${url} answered cross-origin: the browser hides every response header its server does not list in ` +
            `Access-Control-Expose-Headers, so a watermark header missing here may be hidden, not absent ` +
            `(a hidden Age or a contradicting lag would make the card look fresher than it is). List ${hidden} ` +
            `there (or *), then set options.watermark.corsExposed = true`,
          url,
          response.status,
        );
      }
      const read = {
        get(name) {
          try {
            return response.headers.get(name);
          } catch (e) {
            throw new AgentCardFetchError(`GET ${url}: reading the header ${name} failed: ${e && e.message ? e.message : e}`, url, response.status, e);
          }
        },
      };
      // Node: a Content-Encoding other than identity (any value fetch shows, its headers joined)
      // is the core's `body_encoded` decision, as in `cardgate resolve` and the Envoy filter;
      // the body fetch decoded is not read. fetch decodes gzip, x-gzip, deflate and br, which
      // a2a-sdk's httpx reads otherwise (x-gzip, and br without brotli, as the encoded bytes).
      // The browser build reads what the browser decoded (it cannot ask for identity).
      if (manual) {
        const coding = read.get('content-encoding');
        const encoded = typeof coding === 'string' ? raw.bodyEncodedRaw(coding) : undefined;
        if (encoded !== undefined && encoded !== null) {
          discard(response);
          return { encoded: coding, bytes: new Uint8Array(0), over: false, seen: 0, complete: true,
            observation: observationFromHeaders(read, opts.watermark, opts.now), finalUrl };
        }
      }
      let body;
      try {
        // The core's default card limit: a longer body is body_too_large, so reading one byte
        // past it is enough to decide, whatever the server keeps sending.
        body = await readBody(response, raw.maxCardBytes(), deadline);
      } catch (e) {
        if (deadline.failed()) throw deadline.failed();
        throw new AgentCardFetchError(`GET ${url}: reading the body failed: ${e && e.message ? e.message : e}`, url, response.status, e);
      }
      if (deadline.failed()) throw deadline.failed();
      body.observation = observationFromHeaders(read, opts.watermark, opts.now);
      body.finalUrl = finalUrl;
      return body;
    } finally {
      deadline.done();
    }
  }

  function withFinal(error, finalUrl) {
    error.finalUrl = finalUrl;
    return error;
  }

  /** The browser build's check of a fetch the browser followed: the URL that answered
   * (`response.url`) must be https when the source was asked over https (else the core's
   * refusal). The hops in between are not visible; on an https page the browser blocks each
   * http hop as mixed content (Fetch standard, main fetch runs on every redirect), so an answer
   * there stayed on https (loopback hosts aside: they are not mixed content). On any other page
   * nothing shows an http hop, so a redirected https source fails. */
  function browserRedirect(url, asked, answered, response) {
    if (!isHttps(asked)) return;
    const why = answered === null ? null : raw.redirectRefusal(asked, answered, 0);
    if (why !== undefined && why !== null) {
      discard(response);
      throw redirectFailure(url, why, response.status, answered);
    }
    const page = typeof globalThis.location === 'object' && globalThis.location !== null ? globalThis.location.protocol : undefined;
    if (page !== 'https:') {
      discard(response);
      throw redirectFailure(
        url,
        `${url} redirected to ${answered === null ? 'another URL' : answered}: on a page that is not https the browser does not block http hops, and it does not show them, so whether every hop stayed on https cannot be checked`,
        response.status,
        answered,
      );
    }
  }

  /** Why an answer with this 2xx `status` carries no whole card (204, 205, 206: the core's
   * rule, as `resolveAgentCard` and `cardgate resolve` apply it), or null: for callers (and the
   * inspector) that fetch a card themselves. */
  function statusWithoutCard(status) {
    if (!Number.isInteger(status) || status < 0 || status > 65535) {
      throw new TypeError(`statusWithoutCard: status must be an integer HTTP status, not ${describe(status)}`);
    }
    const why = raw.statusWithoutCard(status);
    return why === undefined ? null : why;
  }

  /** Whether the card URL `target` lies within the source `base`: the same origin, and a path
   * under the base's directory, with no encoded `/` or `\` below it (a server that decodes them
   * would read `..%2F` as a step up). The directory is where a relative path from the base
   * resolves (`https://host/a2a` + `.well-known/agent-card.json` is the host's card), except
   * for a path given per call that is not the resolver's own: then a base without a trailing
   * slash is a directory itself (`…/agents/worker-7` + `worker-8/card` would be a sibling,
   * another agent). */
  function withinBase(target, base, strict) {
    const t = new URL(target);
    const b = new URL(base);
    const dir = b.pathname.endsWith('/') || !strict ? b.pathname.slice(0, b.pathname.lastIndexOf('/') + 1) : `${b.pathname}/`;
    const below = t.pathname.slice(dir.length);
    // A dot segment a server still reads as one: with `;parameters` (Tomcat and Spring drop
    // them: `..;` is `..`) or dots escaped as `%2e`.
    const dotSegment = below.split('/').some((seg) => ['.', '..'].includes(seg.split(';')[0].replace(/%2e/gi, '.')));
    return t.origin === b.origin && t.pathname.startsWith(dir) && !/%2f|%5c/i.test(below) && !dotSegment;
  }

  /** `url` as the URL parser (and so fetch) reads it: in a browser relative to the page, as
   * fetch resolves it (`'/card'` on an https page is an https URL); the text itself when it is
   * not a URL (fetch then fails on it). */
  function parsedHref(url) {
    const page = typeof globalThis.location === 'object' && globalThis.location !== null ? globalThis.location.href : undefined;
    try {
      return new URL(String(url), typeof page === 'string' ? page : undefined).href;
    } catch (_) {
      return String(url);
    }
  }

  /** Whether a parsed URL (`parsedHref`) is an https URL. */
  function isHttps(href) {
    return /^https:/i.test(href);
  }

  function fetchOf(opts) {
    const fetchImpl = opts.fetch || (typeof fetch === 'function' ? fetch : undefined);
    if (typeof fetchImpl !== 'function') throw new TypeError('resolveAgentCard: no fetch available; pass options.fetch');
    return fetchImpl;
  }

  async function fetchDecision(url, requirement, options) {
    const opts = options || {};
    const fetchImpl = fetchOf(opts);
    // Check the URL, the requirement and the watermark options before touching the network.
    withoutCredentials(url, 'url');
    callCore('input', () => raw.checkRequirement(coreInput(defined(plainInput(requirement, 'requirement', REQUIREMENT_MEMBERS)), 'requirement')));
    watermarkOf(opts.watermark);
    const timeoutMs = timeoutOf(opts);
    const body = await fetchCard(fetchImpl, String(url), opts, timeoutMs);
    const observation = body.observation;
    const decision = body.encoded !== undefined
      ? JSON.parse(raw.bodyEncodedRaw(body.encoded))
      : body.over
        ? JSON.parse(raw.bodyTooLargeRaw(body.bytes, body.seen, body.complete))
        : evaluate(body.bytes, requirement, observation);
    if (typeof opts.onDecision === 'function') opts.onDecision(decision, withFinalUrl({ url: String(url), observation }, body.finalUrl));
    return { decision, body: body.bytes, requirement, finalUrl: body.finalUrl };
  }

  /** `info` with `finalUrl` when redirects led elsewhere (absent otherwise, as before). */
  function withFinalUrl(info, finalUrl) {
    if (finalUrl) info.finalUrl = finalUrl;
    return info;
  }

  // ---------------------------------------------------------------- re-resolution over sources

  /** `options.maxAttempts` re-resolution default (the first attempt included). */
  const DEFAULT_MAX_ATTEMPTS = 3;

  function maxAttemptsOf(opts) {
    const n = opts.maxAttempts === undefined ? DEFAULT_MAX_ATTEMPTS : opts.maxAttempts;
    if (typeof n !== 'number' || Number.isNaN(n)) throw new TypeError(`options.maxAttempts must be a whole number, not ${describe(n)}`);
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`options.maxAttempts must be a whole number of at least 1, not ${n}`);
    return n;
  }

  function deadlineOf(opts) {
    if (opts.deadlineMs === undefined) return timeoutOf(opts);
    const t = opts.deadlineMs;
    if (typeof t !== 'number' || Number.isNaN(t)) {
      throw new TypeError(`options.deadlineMs must be a number of milliseconds (Infinity: none), not ${describe(t)}`);
    }
    if (!(t > 0)) throw new RangeError(`options.deadlineMs must be more than 0 ms (Infinity: none), not ${t}`);
    return t;
  }

  /** Refuses a card URL with user information (`user:password@`), named by its host alone: the
   * package sends no credentials (fetch refuses such a URL; a caller's fetch might not), and every
   * attempt and message would print them. A text that is not a URL is left to the caller. */
  function withoutCredentials(url, what) {
    let parsed;
    try {
      parsed = new URL(String(url));
    } catch (_) {
      return;
    }
    if (parsed.username !== '' || parsed.password !== '') {
      throw new TypeError(
        `${what}: the URL for ${JSON.stringify(parsed.host)} carries user information (user:password@): ` +
          'the gate sends no credentials and would print them in the decision; give the URL without them',
      );
    }
  }

  /** The card URLs of a source list, checked before any request. */
  function sourceUrls(list, what) {
    if (!Array.isArray(list) || list.length === 0) {
      throw new TypeError(`${what} must be a non-empty array of URLs, not ${Array.isArray(list) ? 'an empty array' : describe(list)}`);
    }
    return list.map((u, i) => {
      if (typeof u !== 'string' && !(u !== null && typeof u === 'object' && typeof u.href === 'string')) {
        throw new TypeError(`${what}[${i}] must be a URL string or a URL, not ${describe(u)}`);
      }
      let href;
      try {
        href = new URL(String(u)).href;
      } catch (_) {
        throw new TypeError(`${what}[${i}] is not an absolute URL: ${JSON.stringify(String(u))}`);
      }
      withoutCredentials(href, `${what}[${i}]`);
      return href;
    });
  }

  /** What a failed source's attempt records: the error without the `GET <url> ` prefix. */
  function failureText(error, url) {
    if (redirectRefusals.has(error)) return redirectRefusals.get(error);
    const text = error && error.message ? String(error.message) : String(error);
    const prefix = `GET ${url} `;
    return text.startsWith(prefix) ? text.slice(prefix.length) : text;
  }

  /** Asks each source in turn; the core's Resolution says after each answer whether to accept,
   * ask the next source or stop, and gives the final decision. */
  async function resolveSources(urls, requirement, options) {
    const opts = options || {};
    wellFormedInput(requirement, 'requirement');
    const fetchImpl = fetchOf(opts);
    const maxAttempts = maxAttemptsOf(opts);
    const fetchTimeout = opts.timeoutMs === undefined ? Infinity : timeoutOf(opts);
    const deadlineMs = deadlineOf(opts);
    watermarkOf(opts.watermark);
    const clock = () => monotonicMs();
    const resolution = callCore('input', () => new raw.ResolutionRaw(coreInput(defined(plainInput(requirement, 'requirement', REQUIREMENT_MEMBERS)), 'requirement'), maxAttempts, deadlineMs, clock()));
    try {
      let step = 'try_next';
      let accepted = null;
      for (const url of urls) {
        if (step !== 'try_next') break;
        const remaining = resolution.remainingMs(clock());
        if (!(remaining > 0)) {
          resolution.stop('deadline_passed');
          step = 'stop';
          break;
        }
        let body;
        const timeout = Math.min(fetchTimeout, remaining);
        const askedAt = clock();
        try {
          body = await fetchCard(fetchImpl, url, opts, timeout);
        } catch (e) {
          if (!(e instanceof AgentCardFetchError) || callerAborts.has(e)) {
            e.attempts = JSON.parse(resolution.attempts());
            throw e;
          }
          // A fetch that timed out took its whole timeout (a timer may fire a moment before the
          // clock says so): given the rest of the deadline, the deadline has passed.
          const now = e instanceof AgentCardTimeoutError ? Math.max(clock(), askedAt + timeout) : clock();
          step = resolution.recordFailed(url, failureText(e, url), now, e.finalUrl || undefined);
          continue;
        }
        const observation = body.observation;
        const finalUrl = body.finalUrl || undefined;
        step = body.encoded !== undefined
          ? resolution.recordEncoded(url, body.encoded, clock(), finalUrl)
          : body.over
          ? resolution.recordTooLarge(url, body.bytes, body.seen, body.complete, clock(), finalUrl)
          : callCore('input', () => resolution.recordCard(url, body.bytes, withClock(observation), clock(), finalUrl));
        const decision = JSON.parse(resolution.lastDecision());
        if (typeof opts.onDecision === 'function') opts.onDecision(decision, withFinalUrl({ url, observation }, body.finalUrl));
        if (step === 'accept') accepted = { url, body: body.bytes, finalUrl: body.finalUrl };
      }
      if (step === 'try_next') resolution.stop('sources_exhausted');
      const attempts = JSON.parse(resolution.attempts());
      const decision = JSON.parse(resolution.finish());
      const url = accepted !== null ? accepted.url : decision.resolution ? decision.resolution.source : attempts[0].source;
      // The URL that served the card of the final decision, when redirects led elsewhere.
      const served = accepted !== null ? accepted : attempts.filter((a) => a.verdict !== 'failed' && a.source === url).pop();
      const finalUrl = served ? served.finalUrl || served.final_url : undefined;
      const outcome = withFinalUrl({ url: url === null ? null : url, decision, attempts }, finalUrl);
      if (typeof opts.onResolution === 'function') opts.onResolution(decision, withFinalUrl({ url: outcome.url, attempts }, finalUrl));
      if (decision.verdict !== 'valid' || accepted === null) {
        const error = toError(decision, url === null ? undefined : { url });
        error.attempts = attempts;
        throw error;
      }
      return Object.assign(outcome, { body: accepted.body, requirement });
    } finally {
      resolution.free();
    }
  }

  /** Fetches an Agent Card, reads the watermark headers, evaluates it, and returns the card
   * object (as received) or throws StaleAgentCardError / CapabilityMismatchError /
   * MalformedAgentCardError (or AgentCardFetchError when no 2xx answer arrived, and its subclass
   * AgentCardTimeoutError when the resolution outlived `options.timeoutMs`). */
  async function resolveAgentCard(url, requirement, options) {
    return (await resolveWithDecision(url, requirement, options)).card;
  }

  /** One URL: the plain resolution (typed errors, AgentCardFetchError); an array of URLs: the
   * sources of a re-resolution. */
  async function resolveWithDecision(url, requirement, options) {
    if (Array.isArray(url)) {
      const urls = sourceUrls(url, 'sources');
      const got = await resolveSources(urls, requirement, options);
      return Object.assign(got, { card: JSON.parse(decoder.decode(got.body)) });
    }
    const { decision, body, requirement: req, finalUrl } = await fetchDecision(url, requirement, options);
    assertValid(decision, { url });
    // The core parsed these exact bytes strictly (I-JSON, no duplicate members), so JSON.parse
    // reads the same document the decision was made on.
    return withFinalUrl({ card: JSON.parse(decoder.decode(body)), decision, body, requirement: req, url: String(url), attempts: null }, finalUrl);
  }

  /** Gates a card the caller already holds (e.g. before `ClientFactory.createFromAgentCard`):
   * returns `card` when the decision is valid, else throws the typed error. Without a watermark
   * in `observation`, only a pinned card (requirement `pin`) can pass. */
  function gateAgentCard(card, requirement, observation) {
    assertValid(evaluate(card, requirement, observation));
    return card;
  }

  /** The requirement members an extended card is not judged by: freshness is the gated card's
   * (max_stale, and a pin, which names that card), and so is the interface the client sends to
   * (binding:, protocol:). */
  const NOT_FOR_EXTENDED = ['max_stale', 'pin', 'pin_mode'];
  const interfaceCapability = (c) => typeof c === 'string' && (c.startsWith('binding:') || c.startsWith('protocol:'));

  /** What the client holding an extended card reads of it for the requirement: `name`,
   * `version`, each skill, `capabilities`' flags and extensions, copied member by member as
   * the client holds them (no value converted: a wrong type is the core's malformed_card).
   * The SDK's transports hand the card over in its own form (`$case` unions in security
   * schemes), not as card JSON, so the rest of it is left out. */
  function extendedCardJson(card) {
    if (card === null || typeof card !== 'object' || Array.isArray(card)) return JSON.stringify(card ?? null);
    const pick = (from, keys) => {
      if (from === null || typeof from !== 'object' || Array.isArray(from)) return from;
      const out = {};
      for (const k of keys) if (Object.prototype.hasOwnProperty.call(from, k)) out[k] = from[k];
      return out;
    };
    const caps = pick(card.capabilities, ['streaming', 'pushNotifications', 'extendedAgentCard', 'extensions']);
    if (caps !== null && typeof caps === 'object' && Array.isArray(caps.extensions)) {
      caps.extensions = caps.extensions.map((e) => pick(e, ['uri', 'required']));
    }
    const skills = Array.isArray(card.skills)
      ? card.skills.map((s) => pick(s, ['id', 'name', 'description', 'tags']))
      : card.skills;
    return JSON.stringify({ name: card.name, description: card.description, version: card.version, capabilities: caps, skills });
  }

  /** A CallInterceptor for @a2a-js/sdk's `ClientConfig.interceptors` that refuses the extended
   * card `Client.getAgentCard()` fetches from the agent (it replaces the client's card) when
   * that card fails the requirement's version floor, capabilities or card name: the call
   * rejects with the typed error and the client keeps its card. Freshness and the interface
   * were settled on the gated card the client was built from; the extended card came from the
   * agent over that interface, so the decision pins the card to itself (freshness `pinned`). */
  function extendedCardInterceptor(requirement) {
    // The core reads the requirement first, as for every other entry point: a bad one (also JSON
    // text that is not JSON, or that holds a member twice) is refused here with its typed error,
    // not at the first call. JSON.parse then reads the same members from text the core accepted.
    evaluate('{}', requirement, {});
    const req = typeof requirement === 'string' ? JSON.parse(requirement) : requirement;
    if (req === null || typeof req !== 'object' || Array.isArray(req)) {
      throw new TypeError('extendedCardInterceptor: requirement must be a requirement object or its JSON text');
    }
    const checked = {};
    for (const k of Object.keys(req)) if (!NOT_FOR_EXTENDED.includes(k)) checked[k] = req[k];
    if (Array.isArray(checked.require)) checked.require = checked.require.filter((c) => !interfaceCapability(c));
    Object.freeze(checked.require);
    Object.freeze(checked);
    return Object.freeze({
      async before() {},
      async after(args) {
        if (!args || !args.result || args.result.method !== 'getAgentCard') return;
        const text = extendedCardJson(args.result.value);
        let pin;
        try {
          pin = cardHash(text);
        } catch (_) {
          pin = undefined; // not a card the core reads: the decision says why
        }
        const decision = evaluate(text, pin === undefined ? checked : Object.assign({}, checked, { pin }), {});
        assertValid(decision);
      },
    });
  }

  /** Whether @a2a-js/sdk's default resolver (`isProtoAgentCard`) converts `card` with
   * `AgentCard.fromJSON` (DESIGN.md "How the SDKs read a card"): the first element of the card's
   * or of a skill's non-empty `security` list is an object with a `schemes` member, or the first
   * value of a non-empty `securitySchemes` (in property order) is an object without `type`. */
  function protoShaped(card) {
    const isObject = (v) => v !== null && typeof v === 'object';
    const protoSecurity = (list) => Array.isArray(list) && list.length > 0 && isObject(list[0]) && 'schemes' in list[0];
    if (!isObject(card)) return false;
    if (protoSecurity(card.security)) return true;
    if (isObject(card.securitySchemes)) {
      const values = Object.values(card.securitySchemes);
      if (values.length > 0 && isObject(values[0]) && !('type' in values[0])) return true;
    }
    return Array.isArray(card.skills) && card.skills.some((s) => isObject(s) && protoSecurity(s.security));
  }

  const monotonicMs = () =>
    typeof performance !== 'undefined' && performance && typeof performance.now === 'function' ? performance.now() : Date.now();

  // Cards a CardGateResolver accepted, remembered by hash so that the same card handed back to
  // ClientFactory.createFromAgentCard is re-checked with its watermark aged by the time since.
  const MAX_REMEMBERED = 256;

  /** An `AgentCardResolver` for @a2a-js/sdk's ClientFactory that refuses stale or incomplete
   * cards before any client is built, on both of the factory's paths: `createFromUrl` (through
   * `resolve`) and `createFromAgentCard` (through `normalizeAgentCard`). */
  class CardGateResolver {
    constructor(options) {
      const opts = options || {};
      if (opts.requirement === undefined) {
        throw new TypeError('CardGateResolver: options.requirement is required (use {} to require nothing)');
      }
      this.options = opts;
      /** The last `resolve`'s outcome: `{url, decision, attempts}` (`url`: the source whose card
       * was accepted or refused; `attempts`: the re-resolution's, null for a single URL). */
      this.lastResolution = null;
      Object.defineProperty(this, '_accepted', { value: new Map() });
    }

    /** Same path rule as the SDK's DefaultAgentCardResolver: `path` argument, then
     * `options.path`, then `.well-known/agent-card.json`, resolved against `baseUrl`. */
    async resolve(baseUrl, path) {
      try {
        return await this._resolve(baseUrl, path);
      } catch (e) {
        // A refusal by the gate set lastResolution; anything else (a fetch error, a bad option,
        // an abort) ended without a decision: an earlier resolution's would mislead.
        if (!(e instanceof CardGateError)) this.lastResolution = null;
        throw e;
      }
    }

    async _resolve(baseUrl, path) {
      const o = this.options;
      // `??`, as the SDK's resolver: a null path is no path (not the relative URL "null").
      const cardPath = path ?? o.path ?? AGENT_CARD_PATH;
      const url = new URL(cardPath, baseUrl);
      const requirement = typeof o.requirement === 'function' ? await o.requirement(url.href) : o.requirement;
      let target = url.href;
      if (o.sources !== undefined) {
        const bases = typeof o.sources === 'function' ? await o.sources(String(baseUrl)) : o.sources;
        if (!Array.isArray(bases) || bases.length === 0) {
          throw new TypeError('CardGateResolver: options.sources must be (or return) a non-empty array of base URLs');
        }
        const baseHrefs = sourceUrls(bases, 'options.sources');
        target = sourceUrls(
          baseHrefs.map((b) => new URL(cardPath, b)),
          'options.sources',
        );
        // The sources are one agent's replicas and primary: a path that leads any of them out of
        // its base (another origin, or above the base's directory: `../worker-8/...`, an
        // absolute path elsewhere, a protocol-relative URL) or makes two of them one URL would
        // ask another agent's card, or one place twice, in their name.
        // A path given per call that leads elsewhere than the resolver's own path (compared as
        // the URLs they resolve to, not as text) reads a base without a trailing slash as a
        // directory itself.
        const own = o.path ?? AGENT_CARD_PATH;
        const perCall = path !== undefined && path !== null;
        const outside = target.findIndex(
          (t, i) => !withinBase(t, baseHrefs[i], perCall && t !== new URL(own, baseHrefs[i]).href),
        );
        if (outside >= 0) {
          throw new TypeError(
            `CardGateResolver: the card path ${JSON.stringify(String(cardPath))} leads ${baseHrefs[outside]} to ` +
              `${target[outside]}, out of that source (another origin, or outside its directory): with ` +
              'options.sources, give a path within each source (a source ending in / is a directory)',
          );
        }
        if (new Set(target).size !== target.length) {
          throw new TypeError(
            `CardGateResolver: the card path ${JSON.stringify(String(cardPath))} makes two of options.sources ` +
              `one URL (${target.join(', ')}): each source must be asked at its own card URL`,
          );
        }
        if (typeof o.sources !== 'function' && !target.includes(url.href)) {
          throw new TypeError(
            `CardGateResolver: ${url.href} is not one of options.sources (${target.join(', ')}); ` +
              'list it, or give options.sources as a function of the base URL',
          );
        }
      }
      let got;
      try {
        got = await resolveWithDecision(target, requirement, o);
      } catch (e) {
        if (e instanceof CardGateError) this.lastResolution = { url: e.url, decision: e.decision, attempts: e.attempts || null };
        throw e;
      }
      const { card, decision, body, requirement: req } = got;
      this.lastResolution = withFinalUrl({ url: got.url, decision, attempts: got.attempts }, got.finalUrl);
      const normalized = this._normalize(card, got.url);
      const entry = {
        url: got.url,
        body,
        requirement: req,
        stalenessMs: decision.freshness === 'watermark' ? decision.staleness_ms : null,
        at: monotonicMs(),
      };
      this._remember(card, Object.assign({ normalized: normalized === card }, entry));
      if (normalized !== card) this._remember(normalized, Object.assign({ normalized: true }, entry));
      return normalized;
    }

    /** The gate on ClientFactory.createFromAgentCard(card), which calls this before building
     * a client. A card this resolver returned (same content, by hash) is re-checked with its
     * watermark aged by the time since it was accepted; any other card has no watermark, so it
     * passes only when pinned (`options.cardRequirement`, by default `options.requirement`
     * when that is not a function). Fails closed with the typed error; returns the card with
     * `options.normalize` applied. */
    normalizeAgentCard(card) {
      const entry = this._lookup(card);
      if (entry !== null) {
        const elapsed = Math.max(0, Math.ceil(monotonicMs() - entry.at));
        const observation = entry.stalenessMs === null ? { now: null } : { lag_ms: String(entry.stalenessMs + elapsed), now: null };
        // A card that `normalize` reads is judged itself: the same hash is the same content, not
        // the same member order, and the SDK's normalization reads the first securitySchemes
        // value (a canonicalized copy may be proto-shaped where the accepted bytes were not).
        assertValid(evaluate(entry.normalized ? entry.body : card, entry.requirement, observation), { url: entry.url });
        return entry.normalized ? card : this._normalize(card, entry.url);
      }
      const o = this.options;
      let requirement = o.cardRequirement;
      if (requirement === undefined) requirement = typeof o.requirement === 'function' ? {} : o.requirement;
      gateAgentCard(card, requirement, {});
      return this._normalize(card);
    }

    /** `options.normalize(card)`; without it the card as it is, which is what @a2a-js/sdk's
     * resolver returns, and what the gate reads, unless the card is proto-shaped: that resolver
     * reads one through `AgentCard.fromJSON` (snake_case names, values converted), the gate reads
     * it so, and the client built from the card as it is would read other interfaces. Such a
     * card is refused with a TypeError (pass `normalize`). */
    _normalize(card, url) {
      if (typeof this.options.normalize === 'function') return this.options.normalize(card);
      if (protoShaped(card)) {
        const where = url ? ` at ${url}` : '';
        const error = new TypeError(
          `CardGateResolver: the card${where} is proto-shaped (a security requirement with \`schemes\`, or a ` +
            'security scheme without `type`): @a2a-js/sdk reads such a card through AgentCard.fromJSON, as the gate ' +
            'does, not as it is; pass options.normalize, e.g. (c) => new DefaultAgentCardResolver().normalizeAgentCard(c)',
        );
        error.input = 'card';
        error.path = '';
        throw error;
      }
      return card;
    }

    _hash(card) {
      try {
        return cardHash(card);
      } catch (_) {
        return null;
      }
    }

    _remember(card, entry) {
      const hash = this._hash(card);
      if (hash === null) return;
      const map = this._accepted;
      map.delete(hash);
      map.set(hash, entry);
      while (map.size > MAX_REMEMBERED) map.delete(map.keys().next().value);
    }

    _lookup(card) {
      if (card === null || typeof card !== 'object') return null;
      const hash = this._hash(card);
      const entry = hash === null ? undefined : this._accepted.get(hash);
      return entry === undefined ? null : entry;
    }
  }

  return {
    evaluate,
    evaluateRaw,
    cardHash,
    declaredCapabilities,
    compareCards,
    canonicalize,
    checkPolicy,
    coreVersion,
    statusWithoutCard,
    toError,
    assertValid,
    resolveAgentCard,
    gateAgentCard,
    extendedCardInterceptor,
    observationFromHeaders,
    CardGateResolver,
    CardGateError,
    StaleAgentCardError,
    CapabilityMismatchError,
    MalformedAgentCardError,
    AgentCardFetchError,
    AgentCardTimeoutError,
    DEFAULT_WATERMARK,
    DEFAULT_TIMEOUT_MS,
    DEFAULT_MAX_ATTEMPTS,
  };
}
