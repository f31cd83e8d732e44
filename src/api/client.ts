/**
 * The Events API client: one keep-alive undici dispatcher and one Digest session per base URL,
 * a request budget per scope, and retries classified by retry-policy.ts.
 */
import { sleep } from '../abort.js';
import type { Dispatcher } from 'undici';
import { DEFAULT_API_VERSION, acceptHeader, isVersionRefusal, type ApiDialect } from '../api-dialect.js';
import { apiSourceOf, requireApiCredentials, type Config } from '../config.js';
import { DEFAULT_CREDENTIAL } from '../credentials.js';
import { ConfigError, errorMessage } from '../errors.js';
import { silentLogger, type Logger } from '../logger.js';
import { eventsPath, type Scope } from '../scope.js';
import { ApiError, ApiTransientError, describeFailure } from './api-error.js';
import { readBucketHint } from './bucket-hints.js';
import { DigestSession } from './digest-session.js';
import { MAX_ITEMS_PER_PAGE, buildEventsTarget, type EventsQuery } from './events-query.js';
import { readListedProject, type ListedProject } from './projects.js';
import { readCatalogType, type CatalogType } from './event-types.js';
import { createHttpDispatcher, type HttpAgentOptions } from './http-agent.js';
import { probeApi } from './probe.js';
import type { ApiMetrics } from './metrics.js';
import { ApiReachability } from './reachability.js';
import { ServiceAccountTokens } from './service-account-tokens.js';
import { PageWalk, windowPages, type EventsPage } from './pages.js';
import { memoryRequestBudget, type RequestBudget } from './request-budget.js';
import { resultTexts, textsPairWith } from './result-texts.js';
import { type RequestContext } from './response.js';
import { classifyStatus, nextDelayMs } from './retry-policy.js';
import { sendWithDigest, type ExchangeDeps } from './send-with-digest.js';
import type { ListBody } from './validate.js';
import { validateEvents } from '../events/validate-event.js';

export type { EventsQuery } from './events-query.js';
export type { EventsPage } from './pages.js';
export type { ListedProject } from './projects.js';
export type { CatalogType } from './event-types.js';

/** The catalogue's requests are budgeted, logged and counted under this pseudo-scope. */
const CATALOG_SCOPE: Scope = { kind: 'org', id: 'eventTypes', key: 'eventTypes' };

export interface EventsClientOptions {
  baseUrl: string;
  /** `v1` (default) or `atlas-v2`: the versioned media type, includeCount paging, version refusals. */
  dialect?: ApiDialect;
  /** The resource version atlas-v2 requests ask for; default 2023-01-01. */
  apiVersion?: string;
  /** The config key that sets apiVersion, named when the service refuses it. */
  versionKey?: string;
  /** The credential's name, for the metrics' `source` label; default `default`. */
  source?: string;
  /** The key pair for Digest; with `serviceAccount`, ignored. */
  publicKey: string;
  privateKey: string;
  /** Authenticate with OAuth 2.0 tokens of this service account instead of Digest. */
  serviceAccount?: { credential: string; clientId: string; clientSecret: string };
  caFile?: string;
  insecureSkipTlsVerify?: boolean;
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
  requestTimeoutMs?: number;
  /** Default 500, the service's maximum. */
  itemsPerPage?: number;
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number; deadlineMs?: number };
  /** Default: in memory, 100 a minute per group, 250 per org. */
  budget?: RequestBudget;
  metrics?: ApiMetrics;
  /** A debug line per request (never the Authorization header). */
  logger?: Logger;
  /** Injectable for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Injectable for tests: the clock for the retry deadline and Retry-After dates. */
  now?: () => number;
  /** Injectable for tests: the jitter source, in [0, 1). */
  random?: () => number;
  /** Injectable for tests: a ready dispatcher instead of one built from the TLS/proxy options. */
  dispatcher?: Dispatcher;
}

export interface WindowQuery {
  minDate: Date;
  maxDate: Date;
  eventTypes?: readonly string[];
  includeRaw?: boolean;
  excludedEventTypes?: readonly string[];
  clusterNames?: readonly string[];
}

/**
 * How long a refused resource version stops the credential's requests unsent before one asks again
 * (a version refused is refused for every scope; a minute spares the service a refused request a
 * scope, and a version accepted again is noticed within it).
 */
export const VERSION_RECHECK_MS = 60_000;

const RETRY_DEFAULTS = { maxAttempts: 8, baseDelayMs: 500, maxDelayMs: 60_000, deadlineMs: 10 * 60_000 };

export class EventsClient {
  readonly #origin: string;
  readonly #basePath: string;
  readonly #itemsPerPage: number;
  readonly #retry: typeof RETRY_DEFAULTS;
  readonly #deps: ExchangeDeps;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #dialect: ApiDialect;
  readonly #version: string;
  readonly #versionKey: string;
  readonly #source: string;
  /**
   * Set when the service refused the resource version: the source's requests fail with it, unsent,
   * for VERSION_RECHECK_MS; the next one asks again, and an answer that is no refusal clears it.
   */
  #versionRefused: { error: ApiError; atMs: number } | undefined;
  /** Whether requests have been getting answers (the worker's /healthz reports it). */
  readonly reachability = new ApiReachability();
  /** A dispatcher for one readiness probe: the shared one when injected, else a fresh one. */
  readonly #probeDispatcher: () => { dispatcher: Dispatcher; owned: boolean };
  #probing: Promise<void> | undefined;

  constructor(options: EventsClientOptions) {
    const base = new URL(options.baseUrl);
    this.#origin = base.origin;
    this.#basePath = base.pathname.replace(/\/+$/, '');
    this.#itemsPerPage = options.itemsPerPage ?? 500;
    this.#retry = { ...RETRY_DEFAULTS, ...definedOnly(options.retry ?? {}) };
    this.#sleep = options.sleep ?? sleep;
    this.#random = options.random ?? Math.random;
    this.#dialect = options.dialect ?? 'v1';
    this.#version = options.apiVersion ?? DEFAULT_API_VERSION;
    this.#versionKey = options.versionKey ?? 'api.version (EVENTS_API_VERSION)';
    this.#source = options.source ?? DEFAULT_CREDENTIAL;
    options.metrics?.versionRefused.set({ source: this.#source }, 0);
    const logger = options.logger ?? silentLogger();
    if (options.insecureSkipTlsVerify) {
      logger.warn(
        { baseUrl: this.#origin + this.#basePath },
        'TLS CERTIFICATE VERIFICATION IS OFF for the Events API (EVENTS_API_INSECURE_SKIP_TLS_VERIFY): anyone on the path can read and alter this traffic; use EVENTS_API_CA_FILE instead',
      );
    }
    const timeout = options.requestTimeoutMs ?? 30_000;
    const http: HttpAgentOptions = {
      caFile: options.caFile,
      insecureSkipTlsVerify: options.insecureSkipTlsVerify,
      httpProxy: options.httpProxy,
      httpsProxy: options.httpsProxy,
      noProxy: options.noProxy,
      requestTimeoutMs: timeout,
    };
    const dispatcher = options.dispatcher ?? createHttpDispatcher(http);
    const injected = options.dispatcher;
    this.#probeDispatcher = injected
      ? () => ({ dispatcher: injected, owned: false })
      : () => ({ dispatcher: createHttpDispatcher({ ...http, connections: 1 }), owned: true });
    const account = options.serviceAccount;
    const budget = options.budget ?? memoryRequestBudget();
    const metrics = options.metrics;
    this.#deps = {
      dispatcher,
      session: new DigestSession({ username: options.publicKey, password: options.privateKey }),
      publicKey: account ? account.clientId : options.publicKey,
      tokens: account
        ? new ServiceAccountTokens({
            tokenUrl: `${this.#origin}/api/oauth/token`,
            credential: account.credential,
            clientId: account.clientId,
            clientSecret: account.clientSecret,
            dispatcher,
            requestTimeoutMs: timeout,
            retryDeadlineMs: this.#retry.deadlineMs,
            logger,
            ...(options.now ? { now: options.now } : {}),
          })
        : undefined,
      budget,
      metrics,
      reachability: this.reachability,
      logger,
      requestTimeoutMs: timeout,
      now: options.now ?? Date.now,
      accept: acceptHeader(this.#dialect, this.#version),
      // The budget follows what the service says is left of the scope's token bucket.
      onRateLimitHeaders: async (scope, answer, request) => {
        const hint = readBucketHint(answer);
        if (!hint) return;
        metrics?.budgetRemaining.set({ scope_kind: scope.kind, scope: scope.key }, hint.remaining);
        try {
          await budget.heard?.(scope, hint, request);
        } catch (error) {
          logger.debug({ scope: scope.key, err: error }, `${scope.key}: the request budget could not record the service's rate-limit hint`);
        }
      },
    };
  }

  get dialect(): ApiDialect {
    return this.#dialect;
  }

  /** One page. Permanent failures throw ApiError; transient ones are retried, then ApiTransientError. */
  async listEvents(scope: Scope, query: EventsQuery, signal?: AbortSignal): Promise<EventsPage> {
    const v2 = this.#dialect === 'atlas-v2';
    // Atlas v2 counts unless told not to; a page that timed out counting is asked again without.
    const asked = v2 ? { ...query, includeCount: query.includeCount ?? true } : { ...query, includeCount: undefined };
    const uncounted =
      asked.includeCount && query.countOptional
        ? buildEventsTarget(scope, { ...asked, includeCount: false }, this.#itemsPerPage)
        : undefined;
    const { list, bytes, requests, text } = await this.#getList(scope, buildEventsTarget(scope, asked, this.#itemsPerPage), signal, {
      countRequired: asked.includeCount !== false,
      uncounted,
    });
    // Each event's text as received, so the warehouse need not serialise the parsed events again;
    // the texts are used only when they pair one to one (by id) with the parsed results.
    const texts = resultTexts(text);
    const paired = texts !== undefined && textsPairWith(list.results, texts);
    if (texts !== undefined && !paired) {
      this.#deps.metrics?.unpairedTexts.inc({ scope_kind: scope.kind });
      this.#deps.logger.warn(
        { scope: scope.key, pageNum: query.pageNum ?? 1 },
        `${scope.key}: the page's event texts did not pair with its parsed events; their payloads are stored from the parsed events`,
      );
    }
    const { events, rejected } = validateEvents(list.results, paired ? texts : undefined);
    return {
      pageNum: query.pageNum ?? 1,
      events,
      rejected,
      totalCount: list.totalCount,
      hasNext: list.links.some((link) => link.rel === 'next'),
      requests,
      bytes,
    };
  }

  /**
   * Every project of an organization (`GET /orgs/{orgId}/groups`, 500 a page, until a short page).
   * A listed item without an id is skipped and reported in `skipped`.
   */
  async listProjects(org: Scope, signal?: AbortSignal): Promise<{ projects: ListedProject[]; skipped: string[] }> {
    const projects: ListedProject[] = [];
    const skipped: string[] = [];
    const path = `/orgs/${encodeURIComponent(org.id)}/groups`;
    const walk = new PageWalk('projects', MAX_ITEMS_PER_PAGE, `GET ${path} for ${org.key}`);
    for (let pageNum = 1; ; pageNum += 1) {
      // Counted on both dialects: the walk's guard reads the count.
      const { list } = await this.#getList(org, `${path}?pageNum=${pageNum}&itemsPerPage=${MAX_ITEMS_PER_PAGE}`, signal);
      const ids: string[] = [];
      for (const item of list.results) {
        const project = readListedProject(item, org.id);
        if (typeof project === 'string') skipped.push(project);
        else projects.push(project);
        if (typeof project !== 'string') ids.push(project.id);
      }
      walk.check(pageNum, ids, list.totalCount);
      if (list.results.length < MAX_ITEMS_PER_PAGE) return { projects, skipped };
    }
  }

  /**
   * Atlas v2's event type catalogue (`GET /eventTypes`, 500 a page, until a short page): every
   * page is read or the call throws, so a caller never takes a partial catalogue for the whole.
   */
  async listEventTypes(signal?: AbortSignal): Promise<CatalogType[]> {
    if (this.#dialect !== 'atlas-v2') throw new Error('the event type catalogue is an Atlas v2 resource');
    const types: CatalogType[] = [];
    const walk = new PageWalk('event types', MAX_ITEMS_PER_PAGE, 'GET /eventTypes');
    for (let pageNum = 1; ; pageNum += 1) {
      const { list } = await this.#getList(CATALOG_SCOPE, `/eventTypes?pageNum=${pageNum}&itemsPerPage=${MAX_ITEMS_PER_PAGE}`, signal);
      const names: string[] = [];
      for (const item of list.results) {
        const found = readCatalogType(item);
        if (!found) continue;
        types.push(found);
        names.push(found.type);
      }
      walk.check(pageNum, names, list.totalCount);
      if (list.results.length < MAX_ITEMS_PER_PAGE) return types;
    }
  }

  /** GET `target` (a path under the base URL) for `scope` with Digest, budget and retries; the body must be a list. */
  async #getList(
    scope: Scope,
    firstTarget: string,
    signal?: AbortSignal,
    expect: { countRequired: boolean; uncounted?: string | undefined } = { countRequired: true },
  ): Promise<{ list: ListBody; bytes: number; requests: number; text: string }> {
    const { now, logger, metrics, budget } = this.#deps;
    const refused = this.#versionRefused;
    if (refused && now() - refused.atMs < VERSION_RECHECK_MS) throw refusedForScope(refused.error, scope);
    let target = firstTarget;
    let countRequired = expect.countRequired;
    const started = now();
    const counter = { requests: 0 };
    for (let attempt = 1; ; attempt += 1) {
      const uri = this.#basePath + target;
      const context: RequestContext = { scope: scope.key, method: 'GET', url: this.#origin + uri, target };
      try {
        const { list, bytes, text } = await sendWithDigest(this.#deps, scope, context, uri, counter, signal, countRequired);
        this.#versionAccepted();
        return { list, bytes, requests: counter.requests, text };
      } catch (error) {
        signal?.throwIfAborted();
        if (error instanceof ApiError && this.#dialect === 'atlas-v2' && isVersionRefusal(error.status, error.errorCode)) {
          const refusal = versionRefusal(error, this.#version, this.#versionKey);
          this.#versionRefused = { error: refusal, atMs: now() };
          metrics?.versionRefused.set({ source: this.#source }, 1);
          throw refusal;
        }
        if (!(error instanceof ApiTransientError)) throw error;
        if (this.#dialect === 'atlas-v2' && error.errorCode === 'TIMEOUT_WHILE_PAGING') {
          // Retry with includeCount=false, as the service says; timing out without the count too,
          // the page's window is split by the caller (never skipped).
          if (expect.uncounted === undefined || target === expect.uncounted) throw error.exhausted(attempt, now() - started, 'attempts');
          logger.info(
            { scope: scope.key, target },
            `${scope.key}: the service timed out counting a deep page: asking again without the count`,
          );
          metrics?.retries.inc({ scope_kind: scope.kind, reason: error.code });
          target = expect.uncounted;
          countRequired = false;
          continue;
        }
        const elapsed = now() - started;
        const wait = nextDelayMs(attempt, error.retryAfterMs, this.#retry, this.#random);
        const policy = error.status === undefined ? undefined : classifyStatus(error.status, error.errorCode);
        // The service asked every client of this scope to wait: say so to the shared budget
        // before giving up, or the other workers keep hitting the limit. (A 429 from the token
        // endpoint is about the credential, not this scope's feed: its target is not ours.)
        if (policy?.retry && policy.rateLimited && error.target === target) await budget.pause(scope, wait);
        if (attempt >= this.#retry.maxAttempts) throw error.exhausted(attempt, elapsed, 'attempts');
        if (elapsed + wait > this.#retry.deadlineMs) throw error.exhausted(attempt, elapsed, 'deadline');
        metrics?.retries.inc({ scope_kind: scope.kind, reason: error.code });
        if (policy?.retry && policy.note) logger.warn({ scope: scope.key, target, errorCode: error.errorCode }, policy.note);
        logger.info(
          { scope: scope.key, target, code: error.code, status: error.status, attempt, waitMs: wait },
          `retrying ${context.method} ${target} for ${scope.key} in ${wait} ms (attempt ${attempt + 1} of ${this.#retry.maxAttempts}): ${error.message}`,
        );
        await this.#sleep(wait, signal);
      }
    }
  }

  /** A list answered: the version is accepted, and a refusal remembered earlier is over. */
  #versionAccepted(): void {
    if (!this.#versionRefused) return;
    this.#versionRefused = undefined;
    this.#deps.metrics?.versionRefused.set({ source: this.#source }, 0);
    this.#deps.logger.info({ source: this.#source }, `the Atlas Administration API accepts resource version ${this.#version} again`);
  }

  /** The pages of one window, pageNum 1, 2, … until a short page (links and counts are not trusted). */
  pages(scope: Scope, window: WindowQuery, signal?: AbortSignal): AsyncIterable<EventsPage, void> {
    const itemsPerPage = this.#itemsPerPage;
    const walk = new PageWalk('events', itemsPerPage, `GET ${eventsPath(scope)} for ${scope.key}`);
    // Atlas v2: the first page asks for the count (the split planner reads it), later pages do not.
    const counting = (pageNum: number) => (this.#dialect === 'atlas-v2' ? { includeCount: pageNum === 1, countOptional: true } : {});
    return windowPages(
      (pageNum) => this.listEvents(scope, { ...window, pageNum, itemsPerPage, ...counting(pageNum) }, signal),
      itemsPerPage,
      walk,
    );
  }

  /**
   * Readiness: resolves when the API answered within ApiReachability.FRESH_ANSWER_MS, or answers
   * a probe now (any status) within `timeoutMs`; throws naming the URL and the last answer otherwise.
   * Concurrent calls share one probe.
   */
  async probe(timeoutMs: number): Promise<void> {
    if (this.reachability.answeredRecently()) return;
    this.#probing ??= probeApi({ url: this.#origin + this.#basePath, dispatcher: this.#probeDispatcher }, timeoutMs)
      .then(
        () => this.reachability.answered(),
        (error: unknown) => {
          const last = this.reachability.lastAnsweredAt;
          throw new Error(`${errorMessage(error)} (last answer: ${last === undefined ? 'never' : new Date(last).toISOString()})`, {
            cause: error,
          });
        },
      )
      .finally(() => (this.#probing = undefined));
    return this.#probing;
  }

  async close(): Promise<void> {
    await this.#deps.dispatcher.close();
  }

  /** Keeps the key pair out of util.inspect and JSON (private fields are not shown anyway). */
  toJSON(): object {
    return { baseUrl: this.#origin + this.#basePath, dialect: this.#dialect, publicKey: this.#deps.publicKey };
  }
}

/** The permanent configuration error a refused resource version is: it names the key to change. */
function versionRefusal(error: ApiError, version: string, versionKey: string): ApiError {
  const fix =
    version === DEFAULT_API_VERSION
      ? `the Atlas Administration API refused resource version ${version} (${versionKey}): check that the base URL is an Atlas v2 one, or set api.dialect to v1`
      : `the Atlas Administration API refused resource version ${version}: set ${versionKey} to ${DEFAULT_API_VERSION}, the events resources' version`;
  return new ApiError(error, { code: 'API_VERSION_REFUSED', message: `${describeFailure(error)} (${fix})` });
}

/** The same refusal for another scope of the source, without asking the service again. */
function refusedForScope(refused: ApiError, scope: Scope): ApiError {
  return new ApiError({ ...refused, scope: scope.key }, { code: refused.code, message: `${scope.key} not read: ${refused.message}` });
}

export function createEventsClient(
  config: Config,
  deps: { logger?: Logger; metrics?: ApiMetrics; budget?: RequestBudget } = {},
  credentialName: string = DEFAULT_CREDENTIAL,
): EventsClient {
  const api = config.api;
  const credential = credentialName === DEFAULT_CREDENTIAL ? undefined : config.credentials[credentialName];
  const source = apiSourceOf(api, credential);
  return new EventsClient({
    baseUrl: source.baseUrl,
    dialect: source.dialect,
    apiVersion: source.version,
    versionKey: source.versionKey,
    source: credentialName,
    ...authOptions(config, credentialName),
    ...definedOnly({
      caFile: api.caFile,
      insecureSkipTlsVerify: api.insecureSkipTlsVerify,
      httpProxy: api.httpProxy,
      httpsProxy: api.httpsProxy,
      noProxy: api.noProxy,
      logger: deps.logger,
      metrics: deps.metrics,
    }),
    requestTimeoutMs: api.requestTimeoutMs,
    itemsPerPage: api.itemsPerPage,
    retry: {
      maxAttempts: api.maxAttempts,
      baseDelayMs: api.baseRetryDelayMs,
      maxDelayMs: api.maxRetryDelayMs,
      deadlineMs: api.retryDeadlineMs,
    },
    budget: deps.budget ?? memoryRequestBudget(api.requestsPerMinute),
  });
}

/** The key pair or service account a credential name stands for; an unknown name is a ConfigError. */
function authOptions(config: Config, name: string): Pick<EventsClientOptions, 'publicKey' | 'privateKey' | 'serviceAccount'> {
  if (name === DEFAULT_CREDENTIAL) return requireApiCredentials(config);
  const credential = config.credentials[name];
  if (!credential) {
    throw new ConfigError(`credential "${name}" is not defined here: define it under "credentials" in this process's config file too`);
  }
  if (credential.kind === 'apiKey') return { publicKey: credential.publicKey, privateKey: credential.privateKey };
  return {
    publicKey: credential.clientId,
    privateKey: '',
    serviceAccount: { credential: name, clientId: credential.clientId, clientSecret: credential.clientSecret },
  };
}

function definedOnly<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as never;
}
