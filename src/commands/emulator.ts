/**
 * `events-mirror emulator`: serves the Events API from generated data until SIGINT/SIGTERM, and
 * prints one `export` line with the base URL, the throwaway key and the scopes, ready to paste into
 * a shell, and a comment line saying so.
 */
import type { Command } from 'commander';
import { ConfigError, UsageError } from '../errors.js';
import { loadKeysFile, loadServiceAccountsFile } from '../emulator/keys.js';
import type { FaultOptions } from '../emulator/faults.js';
import { ATLAS_TOKEN_BUCKETS } from '../emulator/token-buckets.js';
import { DEFAULT_PUSH, type PushOptions } from '../emulator/push-export.js';
import { startEmulator, type EmulatorOptions } from '../emulator/server.js';
import { tryParseScope } from '../scope.js';
import { EXIT_OK, action, createContext } from './context.js';
import { listenForShutdown } from '../shutdown-signals.js';

interface EmulatorFlags {
  host: string;
  port: string;
  seed: string;
  org: string[];
  group: string[];
  projects?: string;
  eventsPerScope: string;
  days: string;
  keys?: string;
  serviceAccounts?: string;
  liveRate: string;
  nonceTtlSeconds: string;
  fault429Rate?: string;
  faultRetryAfter?: string;
  fault5xxRate?: string;
  faultDropRate?: string;
  faultCutBodyRate?: string;
  latencyMs?: string;
  lateEventsSeconds?: string;
  retentionDays?: string;
  poisonTextRate?: string;
  faultDropLinksRate?: string;
  totalCountShare?: string;
  rateLimitPerMinute?: string;
  malformedRate?: string;
  timeoutPagingDepth?: string;
  tokenBuckets?: boolean;
  tokenBucketPeriodSeconds?: string;
  tokenBucketHints?: boolean;
  retiredVersion?: string[];
  pushTo?: string;
  pushToken?: string;
  pushIntervalMs?: string;
  pushDropRate?: string;
  pushDuplicateRate?: string;
}

/** The line after the `export` line: what to do with it (a shell comment, harmless if pasted too). */
export const PASTE_HINT =
  '# paste the line above into a shell (sh, bash, zsh) to point events-mirror at this emulator, then: npx events-mirror sync --once';

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function integer(flag: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw new UsageError(`--${flag} must be a whole number from ${min} to ${max}, got "${value}"`);
  }
  return number;
}

function decimal(flag: string, value: string, min: number, max = Number.POSITIVE_INFINITY): number {
  const number = /^\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= min && number <= max)) throw new UsageError(`--${flag} must be a number from ${min} to ${max}, got "${value}"`);
  return number;
}

function ids(flag: string, values: string[]): string[] | undefined {
  for (const id of values) {
    if (!tryParseScope(`org:${id}`)) throw new UsageError(`--${flag} "${id}" is not an id: use 1-64 letters, digits, - or _`);
  }
  return values.length > 0 ? values : undefined;
}

export function emulatorOptionsFromFlags(flags: EmulatorFlags): EmulatorOptions {
  const faults: Partial<FaultOptions> = {};
  const probability = (flag: string, value: string | undefined, key: keyof FaultOptions): void => {
    if (value !== undefined) (faults as Record<string, number>)[key] = decimal(flag, value, 0, 1);
  };
  probability('fault-429-rate', flags.fault429Rate, 'rate429');
  probability('fault-5xx-rate', flags.fault5xxRate, 'rate5xx');
  probability('fault-drop-rate', flags.faultDropRate, 'dropRate');
  probability('fault-cut-body-rate', flags.faultCutBodyRate, 'cutBodyRate');
  probability('malformed-rate', flags.malformedRate, 'malformedRate');
  probability('poison-text-rate', flags.poisonTextRate, 'poisonTextRate');
  probability('fault-drop-links-rate', flags.faultDropLinksRate, 'dropLinksRate');
  probability('total-count-share', flags.totalCountShare, 'totalCountShare');
  if (flags.faultRetryAfter !== undefined) faults.retryAfterSeconds = integer('fault-retry-after', flags.faultRetryAfter, 0, 86_400);
  if (flags.latencyMs !== undefined) faults.latencyMs = integer('latency-ms', flags.latencyMs, 0, 600_000);
  if (flags.lateEventsSeconds !== undefined)
    faults.lateEventsMaxSeconds = integer('late-events-seconds', flags.lateEventsSeconds, 0, 86_400 * 30);
  if (flags.rateLimitPerMinute !== undefined)
    faults.rateLimitPerMinute = integer('rate-limit-per-minute', flags.rateLimitPerMinute, 0, 1_000_000);
  if (flags.timeoutPagingDepth !== undefined)
    faults.timeoutPagingDepth = integer('timeout-paging-depth', flags.timeoutPagingDepth, 0, 1_000_000);
  if (flags.tokenBuckets || flags.tokenBucketPeriodSeconds !== undefined) {
    faults.tokenBuckets = {
      ...ATLAS_TOKEN_BUCKETS,
      hints: flags.tokenBucketHints ?? true,
      ...(flags.tokenBucketPeriodSeconds !== undefined
        ? { periodSeconds: decimal('token-bucket-period-seconds', flags.tokenBucketPeriodSeconds, 0.001, 86_400) }
        : {}),
    };
  }
  const retired = flags.retiredVersion ?? [];
  for (const version of retired) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(version)) throw new UsageError(`--retired-version must be a date such as 2019-01-01, got "${version}"`);
  }
  const push = pushOptions(flags);
  const orgs = ids('org', flags.org);
  const groups = ids('group', flags.group);
  return {
    host: flags.host,
    port: integer('port', flags.port, 0, 65_535),
    seed: integer('seed', flags.seed, 0, 0xffffffff),
    orgs,
    groups,
    ...(flags.projects !== undefined ? { projectsPerOrg: integer('projects', flags.projects, 0, 100_000) } : {}),
    eventsPerScope: integer('events-per-scope', flags.eventsPerScope, 0, 5_000_000),
    days: decimal('days', flags.days, 0.001, 3650),
    keys: flags.keys === undefined ? undefined : loadKeysFile(flags.keys),
    ...(flags.serviceAccounts === undefined ? {} : { serviceAccounts: loadServiceAccountsFile(flags.serviceAccounts) }),
    liveRatePerSecond: decimal('live-rate', flags.liveRate, 0, 10_000),
    ...(push ? { push } : {}),
    nonceTtlSeconds: integer('nonce-ttl-seconds', flags.nonceTtlSeconds, 1, 86_400),
    ...(retired.length > 0 ? { atlasVersions: { retired } } : {}),
    ...(flags.retentionDays !== undefined ? { retentionDays: decimal('retention-days', flags.retentionDays, 0.001, 3650) } : {}),
    faults,
  };
}

/** `--push-to` and its companions: the emulated event export. */
function pushOptions(flags: EmulatorFlags): PushOptions | undefined {
  const companions = [flags.pushToken, flags.pushIntervalMs, flags.pushDropRate, flags.pushDuplicateRate];
  if (flags.pushTo === undefined) {
    if (companions.some((value) => value !== undefined))
      throw new UsageError('--push-token, --push-interval-ms and the push fault rates need --push-to URL');
    return undefined;
  }
  if (!URL.canParse(flags.pushTo) || !['http:', 'https:'].includes(new URL(flags.pushTo).protocol)) {
    throw new UsageError(`--push-to must be an http(s) URL such as http://127.0.0.1:4318/v1/logs, got "${flags.pushTo}"`);
  }
  return {
    ...DEFAULT_PUSH,
    url: flags.pushTo,
    ...(flags.pushToken !== undefined ? { token: flags.pushToken } : {}),
    ...(flags.pushIntervalMs !== undefined ? { intervalMs: integer('push-interval-ms', flags.pushIntervalMs, 10, 600_000) } : {}),
    ...(flags.pushDropRate !== undefined ? { dropRate: decimal('push-drop-rate', flags.pushDropRate, 0, 1) } : {}),
    ...(flags.pushDuplicateRate !== undefined ? { duplicateRate: decimal('push-duplicate-rate', flags.pushDuplicateRate, 0, 1) } : {}),
  };
}

/** The usual reasons a port cannot be listened on, as a line saying what to change. */
function listenProblem(error: unknown, host: string, port: number): ConfigError | undefined {
  const code = (error as { code?: unknown }).code;
  const why =
    code === 'EADDRINUSE'
      ? `port ${port} on ${host} is in use: pick another --port (0 picks a free one)`
      : code === 'EADDRNOTAVAIL'
        ? `--host ${host} is not an address of this machine: use 127.0.0.1, or 0.0.0.0 for every interface`
        : code === 'EACCES'
          ? `port ${port} on ${host} needs privileges: use a --port above 1023 (0 picks a free one)`
          : undefined;
  return why === undefined ? undefined : new ConfigError(why, { cause: error });
}

export function registerEmulatorCommand(program: Command): void {
  program
    .command('emulator')
    .description('Serve the Events API from generated data: Digest auth, paging, filters, errors and faults')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'port; 0 picks a free one', '8080')
    .option('--seed <n>', 'same seed, same data', '1')
    .option('--org <id>', 'organization id (repeatable; default: one generated org)', collect, [])
    .option('--group <id>', 'project id, in the first org (repeatable; default: three generated projects)', collect, [])
    .option('--projects <n>', 'generated projects in each org instead of the default three; their events are made when first read')
    .option('--events-per-scope <n>', 'generated events per org and per project', '1000')
    .option('--days <n>', 'days of history the generated events span', '30')
    .option('--keys <file>', 'JSON list of {publicKey, privateKey, roles: [{orgId|groupId, roleName}]}')
    .option('--service-accounts <file>', 'JSON list of {clientId, clientSecret, roles}: OAuth tokens at POST /api/oauth/token')
    .option('--live-rate <perSecond>', 'new events per second per scope while running', '0')
    .option('--push-to <url>', "also push live events as the service's event export does: OTLP/HTTP JSON POSTs to this URL (…/v1/logs)")
    .option('--push-token <token>', 'bearer token sent with each push (Authorization: Bearer …)')
    .option('--push-interval-ms <ms>', 'how often a batch is pushed (default 1000; the service flushes about once a minute)')
    .option('--push-drop-rate <p>', 'share of push batches lost without a trace (0..1)')
    .option('--push-duplicate-rate <p>', 'share of push batches sent twice (0..1)')
    .option('--nonce-ttl-seconds <n>', 'Digest nonce lifetime; older nonces get stale=true', '60')
    .option('--fault-429-rate <p>', 'share of requests answered 429 RATE_LIMITED (0..1)')
    .option('--fault-retry-after <seconds>', 'Retry-After header on 429s (default: none)')
    .option('--fault-5xx-rate <p>', 'share answered 500 UNEXPECTED_ERROR or 503 (0..1)')
    .option('--fault-drop-rate <p>', 'share of connections dropped before answering (0..1)')
    .option('--fault-cut-body-rate <p>', 'share of 200s whose body is cut short (0..1)')
    .option('--latency-ms <ms>', 'delay added before each answer')
    .option('--late-events-seconds <n>', 'live events are created up to N seconds in the past')
    .option('--rate-limit-per-minute <n>', 'per-scope request budget per minute, 429 beyond (0 = off)')
    .option('--retention-days <n>', 'events older than N days leave the feed, as the service drops them (default: kept)')
    .option('--fault-drop-links-rate <p>', 'share of list pages served without links (0..1)')
    .option('--total-count-share <p>', 'list pages report this share of the true totalCount, links following it (0..1; default 1)')
    .option('--poison-text-rate <p>', 'share of events whose text fields carry a NUL character (0..1)')
    .option('--malformed-rate <p>', 'share of generated and live events that are malformed (0..1)')
    .option('--timeout-paging-depth <n>', 'Atlas v2: counted list pages past page N answer 500 TIMEOUT_WHILE_PAGING (0 = off)')
    .option('--token-buckets', "Atlas v2: the service's token buckets (project 300, 100 per 60 s; organization 500, 250 per 60 s)")
    .option('--token-bucket-period-seconds <n>', 'Atlas v2: token buckets on, refilled every N seconds instead of 60')
    .option('--no-token-bucket-hints', 'Atlas v2: no RateLimit-Limit / RateLimit-Remaining headers, no parameters in the 429 body')
    .option('--retired-version <date>', 'Atlas v2: a resource version answered 410 VERSION_GONE (repeatable)', collect, [])
    .action(
      action(async (flags: EmulatorFlags) => {
        const options = emulatorOptionsFromFlags(flags);
        const { logger } = createContext({ logFd: 1 });
        const emulator = await startEmulator({ ...options, logger }).catch((error: unknown) => {
          throw listenProblem(error, options.host ?? '127.0.0.1', options.port ?? 8080) ?? error;
        });
        const [key] = emulator.keys;
        const credentials =
          flags.keys === undefined && key
            ? `EVENTS_API_PUBLIC_KEY=${key.publicKey} EVENTS_API_PRIVATE_KEY=${key.privateKey}`
            : `EVENTS_API_PUBLIC_KEY=${key?.publicKey ?? ''}`;
        // Thousands of generated projects are found by discovery rather than listed in the line.
        const scopes = options.projectsPerOrg
          ? `EVENTS_SCOPES=${emulator.dataset
              .scopes()
              .filter((scope) => scope.startsWith('org:'))
              .join(',')} EVENTS_DISCOVER_PROJECTS=true`
          : `EVENTS_SCOPES=${emulator.dataset.scopes().join(',')}`;
        process.stdout.write(`export EVENTS_API_BASE_URL=${emulator.baseUrl} ${credentials} ${scopes}\n${PASTE_HINT}\n`);
        logger.info({ atlasV2BaseUrl: emulator.atlasV2BaseUrl }, `Atlas v2 dialect at ${emulator.atlasV2BaseUrl}`);
        logger.info({ port: emulator.port, scopes: emulator.dataset.scopes().length }, 'emulator listening');
        const shutdown = listenForShutdown();
        await shutdown.first;
        shutdown.dispose();
        await emulator.close();
        logger.info('emulator stopped');
        return EXIT_OK;
      }),
    );
}
