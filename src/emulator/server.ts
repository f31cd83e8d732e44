/**
 * The Events API emulator over node:http: Digest and OAuth authentication, roles, both list
 * endpoints and the single-event endpoints under the v1.0 and Atlas v2 prefixes, the service's
 * headers and errors, and the faults of faults.ts; the other resources (projects, event types) are
 * resource-answers.ts's. One debug log line per request; never the Authorization header.
 */
import { listenOn, urlHost } from '../listen.js';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { Dataset, defaultScopeIds, generatedProjects } from './dataset.js';
import { DigestVerifier } from './digest-verifier.js';
import {
  EmulatorHttpError,
  cannotAccessGroup,
  cannotAccessOrg,
  eventNotFound,
  groupDeleted,
  groupNotFound,
  ipNotOnAccessList,
  methodNotAllowed,
  orgNotFound,
  invalidParameter,
  rateLimited,
  rateLimitedTokenBucket,
  resourceNotFound,
  timeoutWhilePaging,
  serviceUnavailable,
  unauthorized,
  unexpectedError,
} from './errors.js';
import { FaultInjector, type FaultDecision, type FaultOptions } from './faults.js';
import { canReadGroup, canReadOrg, generateDefaultKey, isOnAccessList, type ApiKeyGrant } from './keys.js';
import { LiveEvents } from './live-events.js';
import { PushExport, type PushOptions, type PushStats } from './push-export.js';
import { TokenIssuer, type TokenLimits } from './oauth-tokens.js';
import { TOKEN_PATH, answerTokenRequest, grantOf, type ServiceAccountGrant } from './token-endpoint.js';
import { eventTypesAnswer, projectsAnswer } from './resource-answers.js';
import { booleanParam, listLinks, parseListParams } from './query.js';
import { Rng } from './random.js';
import { ATLAS_EVENTS_VERSION, ATLAS_V1_PREFIX, ATLAS_V2_PREFIX, checkAccept, type AtlasVersions } from './atlas-v2.js';
import { EventTypeCatalog } from './event-type-catalog.js';
import { sendChallenge, sendError, sendOk } from './responses.js';

export type { ApiKeyGrant } from './keys.js';
export type { FaultOptions } from './faults.js';
export type { ServiceAccountGrant } from './token-endpoint.js';
export { Dataset } from './dataset.js';

export const API_PREFIX = '/api/public/v1.0';

export interface EmulatorOptions {
  host?: string;
  /** Default 8080; 0 picks a free port. */
  port?: number;
  seed?: number;
  orgs?: string[];
  /** Projects; they belong to the first organization. */
  groups?: string[];
  /** Projects of any organization of `orgs`, with an optional name. */
  projects?: Array<{ id: string; orgId: string; name?: string }>;
  /** This many generated projects in each organization (instead of the three default projects); their events are generated when first read. */
  projectsPerOrg?: number;
  eventsPerScope?: number;
  days?: number;
  /** Default: one generated key with ORG_OWNER on every org and GROUP_OWNER on every project. */
  keys?: ApiKeyGrant[];
  /** Service accounts: OAuth 2.0 client credentials at `POST /api/oauth/token`, Bearer tokens beside Digest. */
  serviceAccounts?: ServiceAccountGrant[];
  /** The token endpoint's limits (default: tokens live 3600 s, 10 requests a minute, 100 live tokens). */
  tokenLimits?: Partial<TokenLimits>;
  liveRatePerSecond?: number;
  /** Live events are also pushed as the service's event export does (OTLP/HTTP JSON to `push.url`). */
  push?: PushOptions;
  nonceTtlSeconds?: number;
  faults?: Partial<FaultOptions>;
  /** Atlas v2: the resource versions served and those retired (default: 2023-01-01 served, none retired). */
  atlasVersions?: Partial<AtlasVersions>;
  /** Events older than this many days leave the feed (the service's retention); default: none. */
  retentionDays?: number;
  now?: () => number;
  logger?: Logger;
}

export interface EmulatorStats {
  requests: number;
  byStatus: Record<number, number>;
  challenges: number;
  staleChallenges: number;
  dropped: number;
  cutBodies: number;
  /** 429 RATE_LIMITED_TOKEN_BUCKET answers (an empty v2 token bucket), a part of byStatus[429]. */
  tokenBucketRefusals: number;
}

export interface RunningEmulator {
  readonly url: string;
  readonly baseUrl: string;
  /** The same data in the Atlas Administration API v2 dialect (`…/api/atlas/v2`). */
  readonly atlasV2BaseUrl: string;
  readonly port: number;
  /** Atlas v2's eventTypes catalogue (add or remove types while running). */
  readonly catalog: EventTypeCatalog;
  readonly keys: ApiKeyGrant[];
  readonly dataset: Dataset;
  setFaults(faults: Partial<FaultOptions>): void;
  /** Atlas v2: changes the resource versions served and retired, as the service's releases do. */
  setAtlasVersions(changes: Partial<AtlasVersions>): void;
  setLiveRate(perSecond: number): void;
  /** Tokens issued so far, token requests refused for the limits, and each token (to check none reaches a log). */
  tokens(): { issued: number; refused: number; all: string[] };
  /** Revokes every live token of a service account, as rotating its secret does. */
  revokeTokens(clientId: string): number;
  /** A new project of `orgId` (default: the first organization), listed and served from now on. */
  addProject(groupId: string, options?: { orgId?: string; name?: string }): void;
  /** The project is deleted: no longer listed, its events answer 404 GROUP_NOT_FOUND. */
  removeProject(groupId: string): void;
  stats(): EmulatorStats;
  /** The push export's counts (undefined without `push`). */
  pushStats(): PushStats | undefined;
  /** Stops the push export after sending what it holds (live events keep coming into the feed). */
  stopPush(): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_EVENTS_PER_SCOPE = 1000;
export const DEFAULT_DAYS = 30;

// Paths below the dialect's prefix (API_PREFIX, /api/atlas/v1.0 or /api/atlas/v2).
const ROUTE = /^\/(groups|orgs)\/([^/]+)\/events(?:\/([^/]+))?\/?$/;

/** The dialect a path speaks, and the path below its prefix; undefined for no known prefix. */
function splitPrefix(path: string): { prefix: string; rest: string; v2: boolean } | undefined {
  for (const prefix of [API_PREFIX, ATLAS_V1_PREFIX, ATLAS_V2_PREFIX]) {
    if (path.startsWith(`${prefix}/`)) return { prefix, rest: path.slice(prefix.length), v2: prefix === ATLAS_V2_PREFIX };
  }
  return undefined;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const now = options.now ?? Date.now;
  const seed = options.seed ?? 1;
  const defaults = options.orgs === undefined && options.groups === undefined ? defaultScopeIds(seed) : undefined;
  const groups = options.groups ?? (options.projectsPerOrg === undefined ? defaults?.groups : undefined) ?? [];
  const orgs = options.orgs ?? defaults?.orgs ?? (groups.length > 0 ? defaultScopeIds(seed).orgs : []);
  const rng = new Rng(seed ^ 0x5eed);
  const faults = new FaultInjector(options.faults ?? {}, now, () => rng.next());
  const dataset = new Dataset({
    seed,
    orgs,
    groups,
    ...(options.projects || options.projectsPerOrg
      ? { projects: [...(options.projects ?? []), ...generatedProjects(seed, orgs, options.projectsPerOrg ?? 0)] }
      : {}),
    now,
    baseUrl: '',
    eventsPerScope: options.eventsPerScope ?? DEFAULT_EVENTS_PER_SCOPE,
    days: options.days ?? DEFAULT_DAYS,
    malformedRate: faults.options.malformedRate,
  });
  if (options.retentionDays !== undefined) dataset.setRetentionDays(options.retentionDays);
  const keys = options.keys ?? [generateDefaultKey(orgs, groups)];
  const keyByPublic = new Map(keys.map((key) => [key.publicKey, key]));
  const accounts = new Map((options.serviceAccounts ?? []).map((account) => [account.clientId, account]));
  const issuer = new TokenIssuer(options.tokenLimits ?? {}, now);
  const verifier = new DigestVerifier({
    nonceTtlSeconds: options.nonceTtlSeconds ?? 60,
    now,
    passwordOf: (username) => keyByPublic.get(username)?.privateKey,
  });
  const stats: EmulatorStats = {
    requests: 0,
    byStatus: {},
    challenges: 0,
    staleChallenges: 0,
    dropped: 0,
    cutBodies: 0,
    tokenBucketRefusals: 0,
  };
  const pushRng = new Rng(seed ^ 0x9054);
  const push = options.push
    ? new PushExport(
        options.push,
        () => pushRng.next(),
        (message) => options.logger?.warn(message),
      )
    : undefined;
  const live = new LiveEvents(
    dataset,
    now,
    () => rng.next(),
    () => faults.options,
    options.liveRatePerSecond ?? 0,
    push ? (event, createdMs) => push.add(event, createdMs) : undefined,
  );
  const logger = options.logger;
  const catalog = new EventTypeCatalog();
  let versions: AtlasVersions = {
    supported: options.atlasVersions?.supported ?? [ATLAS_EVENTS_VERSION],
    retired: options.atlasVersions?.retired ?? [],
  };
  let origin = '';

  async function route(req: IncomingMessage, res: ServerResponse, rawUrl: string): Promise<{ status: number; scope?: string }> {
    if (rawUrl.split('?')[0] === TOKEN_PATH) return { status: await answerTokenRequest(req, res, accounts, issuer) };
    if (req.method !== 'GET') {
      sendError(res, methodNotAllowed(req.method ?? '').body(), { headers: { Allow: 'GET' } });
      return { status: 405 };
    }
    let key: ApiKeyGrant;
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    if (bearer !== undefined) {
      const account = accounts.get(issuer.verify(bearer) ?? '');
      if (!account) {
        sendError(res, unauthorized(), { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
        return { status: 401 };
      }
      key = grantOf(account);
    } else {
      const auth = verifier.verify('GET', rawUrl, req.headers.authorization);
      if (!auth.ok) {
        stats.challenges += 1;
        if (auth.stale) stats.staleChallenges += 1;
        sendChallenge(res, verifier.challenge(auth.stale), unauthorized());
        return { status: 401 };
      }
      key = keyByPublic.get(auth.username) as ApiKeyGrant;
    }
    const queryAt = rawUrl.indexOf('?');
    const path = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
    const search = new URLSearchParams(queryAt === -1 ? '' : rawUrl.slice(queryAt + 1));
    let envelope = false;
    let pretty = false;
    // Atlas v2 answers carry the bucket's headers, errors included.
    const bucketHeaders: Record<string, string> = {};
    try {
      envelope = booleanParam(search, 'envelope');
      pretty = booleanParam(search, 'pretty');
      if (!isOnAccessList(key, req.socket.remoteAddress)) throw ipNotOnAccessList(req.socket.remoteAddress ?? 'unknown');
      const dialect = splitPrefix(path);
      if (!dialect) throw resourceNotFound(path);
      const { rest, v2 } = dialect;
      if (v2) {
        const version = checkAccept(req.headers.accept, versions);
        if (typeof version !== 'string') throw version;
      }
      const listBase = `${origin}${dialect.prefix}`;
      const eventTypes = v2 ? eventTypesAnswer(catalog, rest, listBase, search) : undefined;
      if (eventTypes) {
        sendOk(res, eventTypes, { pretty });
        return { status: 200 };
      }
      const projects = projectsAnswer(dataset, key, rest, listBase, search);
      if (projects) {
        if (v2) takeToken('org', projects.scope, path, bucketHeaders);
        const decision = faults.decide(projects.scope);
        if (decision !== 'none')
          return {
            status: actOnFault(res, decision, faults.options.retryAfterSeconds, envelope, pretty, bucketHeaders),
            scope: projects.scope,
          };
        const body = !envelope
          ? projects.body
          : projects.list
            ? { ...projects.body, status: 200 }
            : { status: 200, content: projects.body };
        sendOk(res, body, { pretty, cut: false, headers: bucketHeaders });
        return { status: 200, scope: projects.scope };
      }
      const match = ROUTE.exec(rest);
      if (!match) throw resourceNotFound(path);
      const kind = match[1] === 'groups' ? 'group' : 'org';
      const scopeId = decodeURIComponent(match[2] as string);
      const scopeKey = `${kind}:${scopeId}`;
      if (!dataset.hasScope(scopeKey)) throw kind === 'group' ? groupNotFound(scopeId) : orgNotFound(scopeId);
      if (v2 && kind === 'group' && faults.options.deletedGroups.includes(scopeId)) throw groupDeleted(scopeId);
      if (kind === 'group' ? !canReadGroup(key, scopeId, dataset.orgIdOf(scopeId)) : !canReadOrg(key, scopeId)) {
        throw kind === 'group' ? cannotAccessGroup(scopeId) : cannotAccessOrg(scopeId);
      }
      if (v2) takeToken(kind, scopeKey, path, bucketHeaders);
      const decision = faults.decide(scopeKey);
      const { latencyMs, retryAfterSeconds } = faults.options;
      if (latencyMs > 0) await sleep(latencyMs);
      if (decision !== 'none')
        return { status: actOnFault(res, decision, retryAfterSeconds, envelope, pretty, bucketHeaders), scope: scopeKey };
      const cut = faults.cutBody();
      if (cut) stats.cutBodies += 1;
      const eventId = match[3];
      if (eventId !== undefined) {
        const event = dataset.findEvent(scopeKey, decodeURIComponent(eventId), booleanParam(search, 'includeRaw'));
        if (!event) throw eventNotFound(eventId);
        sendOk(res, envelope ? { status: 200, content: event } : event, { pretty, cut, headers: bucketHeaders });
        return { status: 200, scope: scopeKey };
      }
      const params = parseListParams(search);
      if ((params.excludedEventTypes || params.clusterNames) && !(v2 && kind === 'group')) {
        const name = params.excludedEventTypes ? 'excludedEventType' : 'clusterNames';
        throw invalidParameter(name, search.get(name) ?? '', 'only the project events resource of /api/atlas/v2 takes it');
      }
      const counted = !v2 || params.includeCount;
      if (v2 && counted && faults.options.timeoutPagingDepth > 0 && params.pageNum > faults.options.timeoutPagingDepth) {
        throw timeoutWhilePaging();
      }
      const { totalCount, results } = dataset.query(scopeKey, {
        eventTypes: params.eventTypes,
        ...(params.excludedEventTypes ? { excludedEventTypes: params.excludedEventTypes } : {}),
        ...(params.clusterNames ? { clusterNames: params.clusterNames } : {}),
        minSec: params.minSec,
        maxSec: params.maxSec,
        includeRaw: params.includeRaw,
        offset: (params.pageNum - 1) * params.itemsPerPage,
        limit: params.itemsPerPage,
      });
      const reported = faults.reportedTotal(totalCount);
      const links = faults.dropLinks()
        ? []
        : listLinks(`${listBase}${rest.replace(/\/$/, '')}`, search, params, counted ? reported : totalCount);
      const body: Record<string, unknown> = { links, results: results.map((event) => faults.poisonText(event)) };
      // With includeCount=false the service leaves the count out.
      if (counted) body.totalCount = reported;
      if (envelope) body.status = 200;
      sendOk(res, body, { pretty, cut, headers: bucketHeaders });
      return { status: 200, scope: scopeKey };
    } catch (error) {
      const known = error instanceof EmulatorHttpError ? error : undefined;
      if (!known) logger?.error({ err: error, path }, 'emulator request failed');
      const body = (known ?? unexpectedError()).body();
      sendError(res, body, { envelope, pretty, headers: bucketHeaders });
      return { status: envelope ? 200 : body.error };
    }
  }

  /**
   * Takes a token of the scope's v2 bucket (when buckets are on): the headers go into `headers`, an
   * empty bucket throws the 429 (whose Retry-After the error path adds).
   */
  function takeToken(kind: 'group' | 'org', scopeKey: string, path: string, headers: Record<string, string>): void {
    const answer = faults.takeToken(kind, scopeKey);
    if (!answer) return;
    const hints = faults.options.tokenBuckets?.hints ?? true;
    if (hints) {
      headers['RateLimit-Limit'] = String(answer.limit);
      headers['RateLimit-Remaining'] = String(answer.ok ? answer.remaining : 0);
    }
    if (answer.ok) return;
    stats.tokenBucketRefusals += 1;
    headers['Retry-After'] = String(answer.retryAfterSec);
    throw rateLimitedTokenBucket(path, answer.retryAfterSec, answer.size.capacity, answer.size.refill, answer.periodSeconds, hints);
  }

  function actOnFault(
    res: ServerResponse,
    decision: FaultDecision,
    retryAfter: number | undefined,
    envelope: boolean,
    pretty: boolean,
    bucketHeaders: Record<string, string>,
  ): number {
    if (decision === 'drop') {
      stats.dropped += 1;
      res.socket?.destroy();
      return 0;
    }
    const error = decision === 'error500' ? unexpectedError() : decision === 'error503' ? serviceUnavailable() : rateLimited();
    const headers: Record<string, string> = { ...bucketHeaders };
    if (error.status === 429 && retryAfter !== undefined) headers['Retry-After'] = String(retryAfter);
    sendError(res, error.body(), { envelope, pretty, headers });
    return envelope ? 200 : error.status;
  }

  const server = createServer((req, res) => {
    const started = performance.now();
    const rawUrl = req.url ?? '/';
    stats.requests += 1;
    void route(req, res, rawUrl)
      .catch((error: unknown) => {
        logger?.error({ err: error }, 'emulator could not answer');
        if (!res.headersSent) sendError(res, unexpectedError().body());
        return { status: 500, scope: undefined };
      })
      .then(({ status, scope }) => {
        if (status > 0) stats.byStatus[status] = (stats.byStatus[status] ?? 0) + 1;
        logger?.debug({ method: req.method, url: rawUrl, status, scope, ms: Math.round(performance.now() - started) }, 'emulator request');
      });
  });
  server.keepAliveTimeout = 30_000;

  const port = await listenOn(server, options.port ?? 8080, options.host ?? '127.0.0.1');
  const url = `http://${urlHost(options.host ?? '127.0.0.1')}:${port}`;
  const baseUrl = `${url}${API_PREFIX}`;
  origin = url;
  dataset.setBaseUrl(baseUrl);

  return {
    url,
    baseUrl,
    atlasV2BaseUrl: `${url}${ATLAS_V2_PREFIX}`,
    port,
    catalog,
    keys,
    dataset,
    setFaults: (changes) => faults.set(changes),
    setAtlasVersions: (changes) => (versions = { ...versions, ...changes }),
    setLiveRate: (perSecond) => live.setRate(perSecond),
    tokens: () => ({ issued: issuer.issued, refused: issuer.refused, all: issuer.tokens() }),
    revokeTokens: (clientId) => issuer.revokeAll(clientId),
    addProject: (groupId, project = {}) => dataset.addProject(groupId, project.orgId ?? (orgs[0] as string), project.name),
    removeProject: (groupId) => dataset.removeProject(groupId),
    stats: () => ({ ...stats, byStatus: { ...stats.byStatus } }),
    pushStats: () => (push ? { ...push.stats, droppedIds: [...push.stats.droppedIds] } : undefined),
    stopPush: async () => push?.close(),
    close: async () => {
      live.stop();
      await push?.close();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}
