// Declarations of the cardgate package API (shared by the Node and browser entry points).
// Self-contained: needs only the ES2020 library (no DOM, no @types/node).

/** A card: its exact text, its exact bytes, or a value to serialize with JSON.stringify.
 * Text with a lone surrogate is written as generalized UTF-8, which the core refuses
 * (`invalid_utf8`): it is never read as the U+FFFD text TextEncoder would make of it.
 * The hash covers the RFC 8785 form, so an object hashes like its text; but a text that the
 * core rejects (duplicate members, lone surrogates, ...) can only be checked as text or bytes.
 * An object must be plain JSON data (no getters, inherited or non-enumerable members, toJSON,
 * Date/Map/class instances, Proxy, functions, array holes; DESIGN.md "Card objects"): the SDK
 * reads the object itself, so anything else throws a TypeError. */
export type CardInput = string | Uint8Array | ArrayBuffer | ArrayBufferView | object;

/** The requirement JSON form (DESIGN.md "Requirement"), generated as `RequirementInput`.
 * Unknown members throw a TypeError. A requirement or observation object must be plain JSON data,
 * as a card object must (no getters, inherited or non-enumerable members, class instances, Map,
 * Set, Proxy; in an observation `now` may be a Date), and hold no BigInt or lone surrogate: the
 * gate reads one copy while the caller keeps the object. Anything else throws a TypeError. */
export type RequirementJson = RequirementInput;

/** The observation JSON form (DESIGN.md "Observation"), generated as `ObservationInput`, with
 * the package's conveniences for `now`: RFC 3339 text, a Date, or ms since the epoch. Omitted:
 * the current time (`new Date()`). `null`: send no clock at all. */
export type ObservationJson = Omit<ObservationInput, 'now'> & { now?: string | Date | number | null };

// The wire types (RequirementInput, ObservationInput, DecisionJson and its parts, the
// re-resolution record ResolutionSummary, DeclaredCapabilities, and compareCards' SideBySideJson
// and its parts) are generated from the Rust types (tsify) and prepended to this file by
// js/build.mjs. What follows cannot be generated: the names this package has always exported
// for some of them, and the JavaScript functions, classes and options.

/** One failed check. */
export type Reason = ReasonJson;
/** One condition's outcome. */
export type Condition = ConditionOutcome;
/** Why a re-resolution ended. */
export type ResolutionOutcome = Outcome;

/** A valid decision as this package returns it: the package always judges a card, so the
 * members read from it are present (the wire type also covers the Envoy filter's
 * freshness-only decision on a 304, which has no card). */
export type ValidDecision = Extract<DecisionJson, { verdict: 'valid' }> &
  Required<Pick<ValidJson, 'card_hash' | 'conditions'>> & { freshness: FreshnessBasis };

/** An RFC 9457 problem object with cardgate's extensions. */
export type RejectedDecision = Extract<DecisionJson, { verdict: 'rejected' }>;

export type Decision = ValidDecision | RejectedDecision;

/** What a caller should do about a rejected card. */
export type RetryHint = 're-resolve' | 'none';

export interface ErrorContext {
  /** Where the card came from; becomes `.url`. */
  url?: string | { toString(): string };
}

/** Base class of the discovery errors: a card was served, and the gate refused it. */
export declare class CardGateError extends Error {
  protected constructor(decision: RejectedDecision, context?: ErrorContext);
  readonly decision: RejectedDecision;
  readonly errorClass: ErrorClass;
  readonly status: number;
  /** The parsed card, or the body text (first 4096 characters) when it did not parse. */
  readonly card: unknown;
  /** `sha256:...`, or null when the card did not parse. */
  readonly cardHash: string | null;
  readonly reasons: Reason[];
  readonly missingCapabilities: string[];
  readonly stalenessMs: number | null;
  readonly agent: string | null;
  readonly url: string | null;
  readonly retry: RetryHint;
  /** Every attempt of a resolution over a list of sources (`resolveAgentCard([...])`,
   * `CardGateResolver({sources})`), the refused ones first; absent for a single URL. */
  readonly attempts?: ResolutionAttempt[];
}

/** (a) or (b) failed: stale, too old, or freshness unverifiable. `retry` is `'re-resolve'`. */
export declare class StaleAgentCardError extends CardGateError {
  constructor(decision: RejectedDecision, context?: ErrorContext);
  readonly errorClass: 'stale_agent_card';
  readonly retry: 're-resolve';
}

/** Only (c) failed: the card lacks capabilities. `retry` is `'none'`: re-resolving returns the
 * same card. */
export declare class CapabilityMismatchError extends CardGateError {
  constructor(decision: RejectedDecision, context?: ErrorContext);
  readonly errorClass: 'capability_mismatch';
  readonly retry: 'none';
}

/** The body is not a readable Agent Card. `retry` is `'re-resolve'` (a truncated or corrupted
 * transfer is the transient cause); a card that stays malformed is a publishing bug. */
export declare class MalformedAgentCardError extends CardGateError {
  constructor(decision: RejectedDecision, context?: ErrorContext);
  readonly errorClass: 'malformed_card';
  readonly retry: 're-resolve';
}

/** The fetch failed (network error, non-2xx answer, a refused redirect: more than 5, or from
 * https to http): no card was evaluated. */
export declare class AgentCardFetchError extends Error {
  constructor(message: string, url: string, status: number | null, cause?: unknown);
  readonly url: string;
  /** The URL that answered (`status`) when redirects led away from `url`, else null. */
  readonly finalUrl: string | null;
  /** HTTP status, or null when no response arrived. */
  readonly status: number | null;
  /** With a list of sources, only the caller's `signal` ends the resolution with this error
   * (a failing source is an attempt): the attempts made until then. */
  readonly attempts?: ResolutionAttempt[];
}

/** The resolution outlived `ResolveOptions.timeoutMs` (default `DEFAULT_TIMEOUT_MS`, 10 s): no
 * card was evaluated. A subclass of AgentCardFetchError. */
export declare class AgentCardTimeoutError extends AgentCardFetchError {
  constructor(url: string, timeoutMs: number);
  readonly status: null;
  /** The timeout that fired, in ms. */
  readonly timeoutMs: number;
}

/** Thrown (as TypeError or RangeError) for bad input; the message names the field. */
export interface InputErrorFields {
  /** `requirement`, `observation`, `card`, `json`, `policy` or `input`. */
  input?: string;
  /** JSON Pointer inside that input, `""` for the whole input. */
  path?: string;
}

/** Evaluates a card. A bad card is a `malformed_card` decision; a bad requirement or observation
 * throws a TypeError/RangeError naming the field. */
export declare function evaluate(
  card: CardInput,
  requirement?: RequirementJson | string | null,
  observation?: ObservationJson | string | null,
): Decision;

/** Same as `evaluate`, returning the canonical decision JSON text (identical bytes to the CLI
 * and the Envoy filter). */
export declare function evaluateRaw(
  card: CardInput,
  requirement?: RequirementJson | string | null,
  observation?: ObservationJson | string | null,
): string;

/** `sha256:<hex>` of the card's RFC 8785 form without top-level `signatures`. Throws a
 * TypeError/RangeError for a card that does not parse. */
export declare function cardHash(card: CardInput): string;

/** What a card grants as the core reads it: `granted` (every A2A SDK reading has it) and each
 * SDK reading alone; or, for a card that parses but is not a usable card (`missing_field`,
 * `not_an_object`, ...), its defect. Text that is not I-JSON throws a TypeError like `cardHash`.
 * For display only. */
export declare function declaredCapabilities(card: CardInput): DeclaredCapabilities;

/** Replica vs primary: each decision, what differs between the cards (`added`: only the primary
 * has it; `removed`: only the replica; a side that is not a readable card carries its defect),
 * and what re-resolution (replica first) concludes. */
export type CardComparison = SideBySideJson;
export declare function compareCards(
  replica: CardInput,
  primary: CardInput,
  requirement?: RequirementJson | string | null,
  replicaObservation?: ObservationJson | string | null,
  primaryObservation?: ObservationJson | string | null,
): CardComparison;

/** RFC 8785 canonical form of JSON text, bytes or a value. */
export declare function canonicalize(json: CardInput): string;

/** Validates a policy document (text, bytes or value); throws a TypeError/RangeError naming the
 * member. */
export declare function checkPolicy(policy: CardInput): void;

/** Version of the Rust core in the wasm module. */
export declare function coreVersion(): string;

/** Why an answer with this 2xx status carries no whole card (204, 205, 206: the rule
 * `resolveAgentCard` and `cardgate resolve` apply), or null. For callers that fetch a card
 * themselves. */
export declare function statusWithoutCard(status: number): string | null;

/** The typed error for a rejected decision, or null for a valid one. */
export declare function toError(decision: ValidDecision, context?: ErrorContext): null;
export declare function toError(
  decision: Decision,
  context?: ErrorContext,
): StaleAgentCardError | CapabilityMismatchError | MalformedAgentCardError | null;

/** Returns a valid decision; throws the typed error for a rejected one. */
export declare function assertValid(decision: Decision, context?: ErrorContext): ValidDecision;

/** Minimal `Headers` as fetch returns it. */
export interface HeadersLike {
  get(name: string): string | null;
}

/** Minimal `Response` as fetch returns it. With a `body` stream, at most 65537 bytes are read;
 * without one, `arrayBuffer()` is used. Anything without `headers.get` (null, undefined) is an
 * AgentCardFetchError, as is a `headers.get` that throws. */
export interface ResponseLike {
  ok: boolean;
  status: number;
  statusText?: string;
  headers: HeadersLike;
  /** The URL that answered; with `redirected`, how a fetch that followed redirects itself (one
   * that ignores `redirect: 'manual'`) is told: then an https source fails in the Node build. */
  url?: string;
  redirected?: boolean;
  body?: unknown;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** What `ResolveOptions.signal` needs of an `AbortSignal` (the DOM's and Node's both fit). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Minimal `fetch`: the global one, undici's, or a test double. The Node build asks for
 * `redirect: 'manual'` and follows 301/302/303/307/308 itself (at most 5; never from an https
 * source to http); the browser build asks for `'follow'`. */
export type FetchLike = (
  url: string,
  init: {
    method: string;
    headers: Record<string, string>;
    signal?: unknown;
    cache?: 'no-store';
    redirect?: 'manual' | 'follow';
  },
) => Promise<ResponseLike>;

/** Which response headers carry the watermark. A header name set to `null` or `false` is not
 * read. Defaults in `DEFAULT_WATERMARK`; a member set to `undefined` keeps its default. */
/** Another member, a header name that is not an HTTP token or a flag that is not a boolean
 * throws a TypeError naming it (before any request). */
export interface WatermarkOptions {
  /** Replica lag in milliseconds. Default `x-replica-lag-ms`. */
  lagMsHeader?: string | null | false;
  /** Replica lag in seconds. Default `x-replica-lag-s`. */
  lagSHeader?: string | null | false;
  /** Time of the last successful sync (RFC 3339). Default `x-replica-synced-at`. */
  syncedAtHeader?: string | null | false;
  /** Read `X-Consul-LastContact` and `X-Consul-KnownLeader`. Default true. */
  consul?: boolean;
  /** Read `Age` (cache time, added to the lag). Default true. */
  age?: boolean;
  /** Browser build: the card's server lists every watermark header read here (or `*`) in
   * `Access-Control-Expose-Headers`. Without it a cross-origin (`response.type === 'cors'`)
   * answer is a failed source (`AgentCardFetchError`): the browser hides unexposed headers, and a
   * hidden `Age` or contradicting lag cannot be told from an absent one. Default false; the Node
   * build sees every header and ignores it. */
  corsExposed?: boolean;
}

export declare const DEFAULT_WATERMARK: Readonly<Required<WatermarkOptions>>;

/** Reads the configured watermark headers into an observation (with `now`). */
export declare function observationFromHeaders(
  headers: HeadersLike,
  watermark?: WatermarkOptions,
  now?: string | Date | number | null,
): ObservationJson;

export interface ResolveOptions {
  /** Defaults to the global fetch. */
  fetch?: FetchLike;
  watermark?: WatermarkOptions;
  /** Extra request headers (`accept` and `a2a-version: 1.0` are sent by default). */
  headers?: Record<string, string>;
  /** The clock; default `new Date()` when the response arrives. */
  now?: string | Date | number | null;
  /** The caller's cancellation: combined with the timeout into the signal passed to fetch.
   * When it fires first, the resolution rejects with an AgentCardFetchError (`cause`: the
   * signal's reason), also when `fetch` ignores its signal and answers anyway. */
  signal?: AbortSignalLike;
  /** Per-resolution timeout in ms, covering the request and the body: when it fires, the
   * fetch is aborted and an AgentCardTimeoutError is thrown. Default `DEFAULT_TIMEOUT_MS`
   * (10000); `Infinity` for none. */
  timeoutMs?: number;
  /** Called with every decision (valid or not) before the card is returned or the error thrown:
   * the place for logs and metrics. With a list of sources, once per source that served a card. */
  onDecision?: (
    decision: Decision,
    info: {
      url: string;
      /** The URL that served the card, when redirects led away from `url`. */
      finalUrl?: string;
      observation: ObservationJson;
    },
  ) => void;
  /** With a list of sources: most attempts, the first included. Default `DEFAULT_MAX_ATTEMPTS`
   * (3). */
  maxAttempts?: number;
  /** With a list of sources: no source is asked after this many ms from the start, and each
   * fetch's timeout is at most what is left. Default `timeoutMs`, else `DEFAULT_TIMEOUT_MS`.
   * (`timeoutMs`, when given, then bounds each fetch.) */
  deadlineMs?: number;
  /** With a list of sources: called once with the final decision (its `resolution` lists the
   * attempts) and the source it came from, before the card is returned or the error thrown. */
  onResolution?: (decision: Decision, info: ResolutionResult) => void;
}

/** The default `ResolveOptions.timeoutMs`: 10000. */
export declare const DEFAULT_TIMEOUT_MS: number;
/** The default `ResolveOptions.maxAttempts`: 3. */
export declare const DEFAULT_MAX_ATTEMPTS: number;

/** Where a resolution's card came from. */
export interface ResolutionResult {
  /** The card URL whose card was accepted, or refused in the final decision; null when no
   * source served a card. */
  url: string | null;
  /** The URL that served that card, when redirects led away from `url` (the attempt's
   * `final_url`); absent otherwise. */
  finalUrl?: string;
  /** Every attempt (null for a single URL). */
  attempts: ResolutionAttempt[] | null;
}

/** A card URL, or an ordered list of them: the sources of a re-resolution. */
export type CardSources = ReadonlyArray<string | { readonly href: string }>;

/** Fetches the card at `url`, evaluates it with the watermark headers of the response, and
 * returns the parsed card; throws StaleAgentCardError, CapabilityMismatchError,
 * MalformedAgentCardError, or AgentCardFetchError (network error, non-2xx; its subclass
 * AgentCardTimeoutError when `timeoutMs` passed).
 *
 * With an array of URLs (`[replicaUrl, primaryUrl]`), re-resolves: asks each in order until the
 * core's rule accepts a card (a stale or malformed card, or a failing source, moves on to the
 * next; a fresh card lacking a capability stops), within `maxAttempts` and `deadlineMs`. A
 * failure throws the typed error of the final decision with `.attempts`; a failing source is an
 * attempt, not an AgentCardFetchError (no source served a card: `source_unavailable`). */
export declare function resolveAgentCard<Card = any>(
  url: string | { toString(): string } | CardSources,
  requirement: RequirementJson | string | null | undefined,
  options?: ResolveOptions,
): Promise<Card>;

/** Gates a card the caller already holds, e.g. before `ClientFactory.createFromAgentCard` on a
 * factory without CardGateResolver: returns `card` when the decision is valid, else throws its
 * typed error. Without a watermark in `observation` only a pinned card can pass. */
export declare function gateAgentCard<Card>(
  card: Card,
  requirement: RequirementJson | string | null | undefined,
  observation?: ObservationJson | string | null,
): Card;

/** The interceptor `extendedCardInterceptor` returns: structurally a `CallInterceptor` of
 * `@a2a-js/sdk/client` (put it in `ClientConfig.interceptors`, first). */
export interface ExtendedCardInterceptor {
  before(args: unknown): Promise<void>;
  after(args: { readonly result?: { readonly method: string; readonly value?: unknown } }): Promise<void>;
}

/** For `@a2a-js/sdk`'s `ClientConfig.interceptors`: `Client.getAgentCard()` replaces the
 * client's card with the extended card it fetches from the agent; this refuses that card, with
 * the typed error (the client keeps its card), when it fails the requirement's `min_version`,
 * capabilities or `card_name`. `max_stale`, `pin`, `pin_mode`, `binding:` and `protocol:` are
 * not applied to it: freshness and the interface were settled on the gated card the client was
 * built from. Throws TypeError/RangeError for a bad requirement. */
export declare function extendedCardInterceptor(
  requirement: RequirementJson | string,
): ExtendedCardInterceptor;

export interface CardGateResolverOptions<Card = any> extends ResolveOptions {
  /** The requirement, or a function of the card URL returning it. Required (`{}` to require
   * nothing, which still demands a watermark and `max_stale`, or a pin). */
  requirement:
    | RequirementJson
    | string
    | ((url: string) => RequirementJson | string | Promise<RequirementJson | string>);
  /** Card path against the base URL when `resolve` gets none. Default
   * `.well-known/agent-card.json`. */
  path?: string;
  /** Applied to every accepted card, e.g. the SDK's own normalization
   * (`(c) => new DefaultAgentCardResolver().normalizeAgentCard(c)`). Without it a proto-shaped
   * card (which the SDK's resolver, and the gate, read through `AgentCard.fromJSON`) is refused
   * with a TypeError: the card as it is would read otherwise. */
  normalize?: (card: any) => Card;
  /** The requirement for a card handed to `ClientFactory.createFromAgentCard` that this
   * resolver did not fetch. Such a card has no watermark, so only a `pin` lets it pass.
   * Default: `requirement` when that is not a function, else `{}` (nothing passes). */
  cardRequirement?: RequirementJson | string;
  /** Re-resolution sources: the agent's base URLs in the order to ask them (`[replicaBase,
   * primaryBase]`), each resolved with the path rule; `resolve(baseUrl)` must name one of them.
   * Or a function of the base URL `resolve` got, returning that agent's list. */
  sources?: CardSources | ((baseUrl: string) => CardSources | Promise<CardSources>);
}

/** An `AgentCardResolver` for `@a2a-js/sdk` (peer range `>=1.0.1 <2`): `new ClientFactory({
 * ..., cardResolver: new CardGateResolver({ requirement }) })`. Gates both `createFromUrl`
 * (`resolve`) and `createFromAgentCard` (`normalizeAgentCard`). */
export declare class CardGateResolver<Card = any> {
  constructor(options: CardGateResolverOptions<Card>);
  readonly options: CardGateResolverOptions<Card>;
  resolve(baseUrl: string, path?: string): Promise<Card>;
  /** The last `resolve`'s outcome (accepted or refused by the gate): the source and the
   * attempts (null for a single URL); null when the last `resolve` ended without a decision
   * (a fetch error, an abort, a bad option). With several `resolve` calls at once on one
   * resolver, the one that ended last; use `onResolution` to tie an outcome to its call. */
  lastResolution: (ResolutionResult & { decision: Decision }) | null;
  /** The gate on `createFromAgentCard`: a card this resolver returned is re-checked with its
   * watermark aged by the time since; any other card passes only when pinned. Throws the
   * typed error; returns the card (normalized). */
  normalizeAgentCard(card: unknown): Card;
}
