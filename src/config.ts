/**
 * Configuration, read once and frozen. Layers, later wins:
 *   built-in defaults ← config/default.json ← config/$NODE_ENV.json ← $EVENTS_MIRROR_CONFIG
 *   ← environment (a `.env` file in the working directory, under the real environment)
 *   ← command-line overrides.
 * This is the only module that reads process.env. Secrets (the private key) come from the
 * environment only; a config file that holds one is refused.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { readUtf8File } from './utf8-text.js';
import { z } from 'zod';
import { API_DIALECTS, DEFAULT_API_VERSION, dialectMismatch, inferDialect, type ApiDialect } from './api-dialect.js';
import { credentialsSchema, readSecretFile, resolveCredentials, type Credential } from './credentials.js';
import { ConfigError, jsonSyntaxProblem } from './errors.js';
import { SCOPE_FORM, tryParseScope, type Scope } from './scope.js';
import { parseIsoDate } from './time.js';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const isoDate = z.string().refine((v) => parseIsoDate(v) !== undefined, {
  message: 'expected an ISO 8601 date or date-time such as 2026-11-01 or 2026-11-01T00:00:00Z',
});
const scopeText = z.string().refine((v) => tryParseScope(v) !== undefined, { message: `expected ${SCOPE_FORM}` });
const positiveInt = z.number().int().positive();
const urlWithScheme = (schemes: readonly string[], example: string) =>
  z.string().refine((v) => URL.canParse(v) && schemes.includes(new URL(v).protocol), { message: `expected a URL such as ${example}` });
const nonNegativeInt = z.number().int().nonnegative();

const scopeEntrySchema = z.union([
  scopeText,
  z
    .object({
      scope: scopeText,
      eventTypes: z.array(z.string().min(1)).optional(),
      /** Atlas v2 project feeds: types the service leaves out (`excludedEventType`). */
      excludeEventTypes: z.array(z.string().min(1)).optional(),
      /** Atlas v2 project feeds: only these clusters' events (`clusterNames`). */
      clusterNames: z.array(z.string().min(1)).optional(),
      includeRaw: z.boolean().optional(),
      startDate: isoDate.optional(),
      /** An `org:` scope: also mirror each of its projects. */
      discoverProjects: z.boolean().optional(),
      /** Projects discovery leaves out: ids, or names with `*` wildcards (case-insensitive). */
      excludeProjects: z.array(z.string().min(1)).optional(),
      /** A name under `credentials`; absent: EVENTS_API_PUBLIC_KEY / EVENTS_API_PRIVATE_KEY. */
      credential: z.string().min(1).optional(),
      /** The service's event export feeds this scope (`receive`): the scheduler polls it every scheduler.pushedPollIntervalSeconds. */
      pushed: z.boolean().optional(),
    })
    .strict(),
]);

/** The configuration's schema: every key, its form and its default (docs/configuration.md lists them; a test checks). */
export const configSchema = z
  .object({
    api: z
      .object({
        baseUrl: urlWithScheme(['https:', 'http:'], 'https://cloud.mongodb.com/api/public/v1.0').default(
          'https://cloud.mongodb.com/api/public/v1.0',
        ),
        /** `v1` or `atlas-v2`; absent: from the base URL (…/api/atlas/v2 is atlas-v2). */
        dialect: z.enum(API_DIALECTS).optional(),
        /** The resource version atlas-v2 requests ask for (`Accept: application/vnd.atlas.<version>+json`). */
        version: z
          .string()
          .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a resource version date such as 2023-01-01')
          .default(DEFAULT_API_VERSION),
        publicKey: z.string().min(1).optional(),
        privateKey: z.string().min(1).optional(),
        caFile: z.string().min(1).optional(),
        /** Turns certificate verification off. Never the default; logged loudly when on. */
        insecureSkipTlsVerify: z.boolean().default(false),
        httpProxy: z.string().optional(),
        httpsProxy: z.string().optional(),
        noProxy: z.string().optional(),
        requestTimeoutMs: positiveInt.default(30_000),
        itemsPerPage: z.number().int().min(1).max(500).default(500),
        maxAttempts: positiveInt.default(8),
        baseRetryDelayMs: positiveInt.default(500),
        maxRetryDelayMs: positiveInt.default(60_000),
        /** Total time one request may spend across its retries. */
        retryDeadlineMs: positiveInt.default(10 * 60_000),
        requestsPerMinute: z
          .object({ group: positiveInt.default(100), org: positiveInt.default(250) })
          .strict()
          .default({ group: 100, org: 250 }),
      })
      .strict()
      .prefault({}),
    scopes: z.array(scopeEntrySchema).default([]),
    credentials: credentialsSchema,
    sync: z
      .object({
        startDate: isoDate.optional(),
        /** Used when startDate is unset: a scope's first run starts this many days back. */
        initialDays: positiveInt.default(30),
        lookbackSeconds: nonNegativeInt.default(900),
        settleSeconds: nonNegativeInt.default(5),
        windowSeconds: positiveInt.default(86_400),
        maxPagesPerWindow: positiveInt.default(20),
        concurrency: positiveInt.default(4),
        includeRaw: z.boolean().default(false),
        eventTypes: z.array(z.string().min(1)).default([]),
        /** Every configured `org:` scope also mirrors each of its projects. */
        discoverProjects: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    scheduler: z
      .object({
        pollIntervalSeconds: positiveInt.default(60),
        discoveryIntervalSeconds: positiveInt.default(300),
        /** Poll period of a scope the event export feeds (`pushed: true`): the pull only proves the push. */
        pushedPollIntervalSeconds: positiveInt.max(86_400).default(3600),
        /** The scheduler's /livez, /readyz, /healthz and /metrics; 0 picks a free port. */
        metricsPort: nonNegativeInt.max(65_535).default(9465),
      })
      .strict()
      .prefault({}),
    housekeeping: z
      .object({
        /** sync_runs rows older than this are deleted. */
        runRetentionDays: positiveInt.default(30),
        /** A run still `running` this long after it started, with no runner on its scope, was cut off. */
        abandonAfterSeconds: positiveInt.default(3600),
      })
      .strict()
      .prefault({}),
    reconcile: z
      .object({
        /** Default range of `reconcile`: this many days up to each scope's checkpoint. */
        days: positiveInt.default(7),
        /** Scheduled reconcile of every scope; 0 turns it off. */
        intervalSeconds: nonNegativeInt.default(21_600),
        /** A differing window at most this many pages deep is re-read; a deeper one is split first. */
        reReadPages: positiveInt.default(4),
      })
      .strict()
      .prefault({}),
    worker: z
      .object({
        concurrency: positiveInt.default(4),
        metricsPort: nonNegativeInt.max(65_535).default(9464),
        shutdownTimeoutMs: positiveInt.default(30_000),
        /** A job running longer is abandoned (its slot freed, its scope lock released) and retried. */
        jobTimeoutMs: positiveInt.default(15 * 60_000),
      })
      .strict()
      .prefault({}),
    receiver: z
      .object({
        /** Where `receive` listens for the event export's OTLP/HTTP requests (4318: OTLP/HTTP's port). */
        host: z.string().min(1).default('0.0.0.0'),
        port: nonNegativeInt.max(65_535).default(4318),
        /** The bearer token senders present (`Authorization: Bearer …`); a secret, from the environment only. */
        token: z.string().min(16, 'must be at least 16 characters: make one with openssl rand -hex 32').optional(),
        /** A request body over this (on the wire, and inflated) is answered 413. */
        maxBodyBytes: z
          .number()
          .int()
          .min(1024)
          .max(256 * 1024 * 1024)
          .default(16 * 1024 * 1024),
        /** Requests waiting on the warehouse at once; more are answered 429 with Retry-After. */
        maxPendingRequests: z.number().int().min(1).max(10_000).default(64),
        /** Retry-After of a 429 or 503. */
        retryAfterSeconds: z.number().int().min(1).max(3600).default(5),
        /** PEM certificate and key files: the port speaks HTTPS (most set-ups terminate TLS in front). */
        tlsCertFile: z.string().min(1).optional(),
        tlsKeyFile: z.string().min(1).optional(),
        /** The receiver's /livez, /readyz, /healthz and /metrics; 0 picks a free port. */
        metricsPort: nonNegativeInt.max(65_535).default(9466),
      })
      .strict()
      .prefault({}),
    database: z
      .object({
        url: urlWithScheme(['postgres:', 'postgresql:'], 'postgres://user:password@host:5432/database').optional(),
        schema: z.string().regex(IDENTIFIER, 'expected a plain lower-case SQL identifier such as events_mirror').default('events_mirror'),
        dataDir: z.string().min(1).default('./data'),
        /** Connecting, and waiting for a pooled connection. */
        connectTimeoutMs: positiveInt.default(10_000),
        /** One query, measured on the client: a silent database is noticed within it. */
        queryTimeoutMs: positiveInt.default(30_000),
      })
      .strict()
      .prefault({}),
    redis: z
      .object({
        url: urlWithScheme(['redis:', 'rediss:'], 'redis://127.0.0.1:6379 or rediss://user:password@host:6380').default(
          'redis://127.0.0.1:6379',
        ),
        prefix: z
          .string()
          .regex(/^[A-Za-z0-9_.:-]+$/, 'expected letters, digits, _ . : or - such as events-mirror')
          .default('events-mirror'),
        connectTimeoutMs: positiveInt.default(10_000),
        /**
         * A connection that hears nothing this long while a command waits is closed and reopened.
         * Above BullMQ's longest blocking wait (10 s), or an idle worker's wait would trip it.
         */
        socketTimeoutMs: z
          .number()
          .int()
          .min(11_000, 'must exceed BullMQ’s longest blocking wait of 10 s (10000 ms); the default is 20000')
          .default(20_000),
      })
      .strict()
      .prefault({}),
    /** Unset: `warn` for the commands a person runs (sync --once, status, …), `info` for services. */
    logLevel: z.enum(LOG_LEVELS).optional(),
  })
  .strict();

export type ConfigInput = z.input<typeof configSchema>;
type ParsedConfig = z.output<typeof configSchema>;

export interface ScopeSettings {
  readonly scope: Scope;
  readonly eventTypes: readonly string[];
  readonly includeRaw: boolean;
  readonly startDate: string | undefined;
  /** An organization: its projects are discovered and mirrored too (absent: false). */
  readonly discoverProjects?: boolean;
  /** Projects discovery leaves out: ids, or name patterns with `*`. */
  readonly excludeProjects?: readonly string[];
  /** The named credential this scope is read with (its discovered projects too); absent: the default key pair. */
  readonly credential?: string;
  /** Atlas v2 project feeds: types the service leaves out (absent: none). */
  readonly excludeEventTypes?: readonly string[];
  /** Atlas v2 project feeds: only these clusters' events (absent: every cluster). */
  readonly clusterNames?: readonly string[];
  /** The event export feeds this scope: polled every scheduler.pushedPollIntervalSeconds (absent: false). */
  readonly pushed?: boolean;
}

export type Config = Readonly<Omit<ParsedConfig, 'scopes' | 'credentials'>> & {
  readonly scopes: readonly ScopeSettings[];
  /** Named credentials, resolved (secrets included: never log them; see redactedConfig). */
  readonly credentials: Readonly<Record<string, Credential>>;
};

interface EnvBinding {
  readonly name: string;
  readonly path: readonly string[];
  readonly kind: 'string' | 'int' | 'bool' | 'list';
}

/** Every environment variable the project reads, and the config key it sets. */
export const ENV_BINDINGS: readonly EnvBinding[] = [
  { name: 'EVENTS_API_BASE_URL', path: ['api', 'baseUrl'], kind: 'string' },
  { name: 'EVENTS_API_DIALECT', path: ['api', 'dialect'], kind: 'string' },
  { name: 'EVENTS_API_VERSION', path: ['api', 'version'], kind: 'string' },
  { name: 'EVENTS_API_PUBLIC_KEY', path: ['api', 'publicKey'], kind: 'string' },
  { name: 'EVENTS_API_PRIVATE_KEY', path: ['api', 'privateKey'], kind: 'string' },
  { name: 'EVENTS_API_CA_FILE', path: ['api', 'caFile'], kind: 'string' },
  { name: 'EVENTS_API_INSECURE_SKIP_TLS_VERIFY', path: ['api', 'insecureSkipTlsVerify'], kind: 'bool' },
  { name: 'HTTP_PROXY', path: ['api', 'httpProxy'], kind: 'string' },
  { name: 'HTTPS_PROXY', path: ['api', 'httpsProxy'], kind: 'string' },
  { name: 'NO_PROXY', path: ['api', 'noProxy'], kind: 'string' },
  { name: 'EVENTS_SCOPES', path: ['scopes'], kind: 'list' },
  { name: 'EVENTS_START_DATE', path: ['sync', 'startDate'], kind: 'string' },
  { name: 'EVENTS_LOOKBACK_SECONDS', path: ['sync', 'lookbackSeconds'], kind: 'int' },
  { name: 'EVENTS_SYNC_CONCURRENCY', path: ['sync', 'concurrency'], kind: 'int' },
  { name: 'EVENTS_POLL_INTERVAL_SECONDS', path: ['scheduler', 'pollIntervalSeconds'], kind: 'int' },
  { name: 'EVENTS_DISCOVER_PROJECTS', path: ['sync', 'discoverProjects'], kind: 'bool' },
  { name: 'EVENTS_DISCOVERY_INTERVAL_SECONDS', path: ['scheduler', 'discoveryIntervalSeconds'], kind: 'int' },
  { name: 'EVENTS_PUSHED_POLL_INTERVAL_SECONDS', path: ['scheduler', 'pushedPollIntervalSeconds'], kind: 'int' },
  { name: 'EVENTS_RECONCILE_DAYS', path: ['reconcile', 'days'], kind: 'int' },
  { name: 'EVENTS_RUN_RETENTION_DAYS', path: ['housekeeping', 'runRetentionDays'], kind: 'int' },
  { name: 'EVENTS_RECONCILE_INTERVAL_SECONDS', path: ['reconcile', 'intervalSeconds'], kind: 'int' },
  { name: 'WORKER_CONCURRENCY', path: ['worker', 'concurrency'], kind: 'int' },
  { name: 'METRICS_PORT', path: ['worker', 'metricsPort'], kind: 'int' },
  { name: 'SCHEDULER_METRICS_PORT', path: ['scheduler', 'metricsPort'], kind: 'int' },
  { name: 'WORKER_SHUTDOWN_TIMEOUT_MS', path: ['worker', 'shutdownTimeoutMs'], kind: 'int' },
  { name: 'WORKER_JOB_TIMEOUT_MS', path: ['worker', 'jobTimeoutMs'], kind: 'int' },
  { name: 'RECEIVER_HOST', path: ['receiver', 'host'], kind: 'string' },
  { name: 'RECEIVER_PORT', path: ['receiver', 'port'], kind: 'int' },
  { name: 'RECEIVER_TOKEN', path: ['receiver', 'token'], kind: 'string' },
  { name: 'RECEIVER_MAX_BODY_BYTES', path: ['receiver', 'maxBodyBytes'], kind: 'int' },
  { name: 'RECEIVER_MAX_PENDING_REQUESTS', path: ['receiver', 'maxPendingRequests'], kind: 'int' },
  { name: 'RECEIVER_RETRY_AFTER_SECONDS', path: ['receiver', 'retryAfterSeconds'], kind: 'int' },
  { name: 'RECEIVER_TLS_CERT_FILE', path: ['receiver', 'tlsCertFile'], kind: 'string' },
  { name: 'RECEIVER_TLS_KEY_FILE', path: ['receiver', 'tlsKeyFile'], kind: 'string' },
  { name: 'RECEIVER_METRICS_PORT', path: ['receiver', 'metricsPort'], kind: 'int' },
  { name: 'DATABASE_URL', path: ['database', 'url'], kind: 'string' },
  { name: 'DATABASE_CONNECT_TIMEOUT_MS', path: ['database', 'connectTimeoutMs'], kind: 'int' },
  { name: 'DATABASE_QUERY_TIMEOUT_MS', path: ['database', 'queryTimeoutMs'], kind: 'int' },
  { name: 'WAREHOUSE_SCHEMA', path: ['database', 'schema'], kind: 'string' },
  { name: 'EVENTS_MIRROR_DATA_DIR', path: ['database', 'dataDir'], kind: 'string' },
  { name: 'REDIS_URL', path: ['redis', 'url'], kind: 'string' },
  { name: 'REDIS_PREFIX', path: ['redis', 'prefix'], kind: 'string' },
  { name: 'REDIS_SOCKET_TIMEOUT_MS', path: ['redis', 'socketTimeoutMs'], kind: 'int' },
  { name: 'LOG_LEVEL', path: ['logLevel'], kind: 'string' },
];

const SECRET_KEYS = new Set(['privateKey', 'clientSecret', 'token']);

export interface LoadConfigOptions {
  /** Default: the process's environment over the working directory's `.env` (withDotEnv). */
  env?: NodeJS.ProcessEnv;
  /** Folder holding default.json and <NODE_ENV>.json; defaults to the project's `config/`. */
  configDir?: string;
  /** Highest layer: values from command-line flags. */
  overrides?: ConfigInput;
}

export function defaultConfigDir(): string {
  // src/config.ts and dist/src/config.js both sit one level below a folder that holds config/.
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const candidate of [path.resolve(here, '..', 'config'), path.resolve(here, '..', '..', 'config')]) {
    if (existsSync(path.join(candidate, 'default.json'))) return candidate;
  }
  return path.resolve(here, '..', 'config');
}

/** The file of environment variables read from the working directory when present. */
export const DOTENV_FILE = '.env';

/**
 * `env` over the variables of `<dir>/.env` when that file exists: a variable the real environment
 * sets (even to an empty string) wins over the file's. The file's syntax is Node's (`--env-file`):
 * `NAME=value` lines, `#` comments, single, double or back quotes, `export ` prefixes allowed.
 */
export function withDotEnv(env: NodeJS.ProcessEnv, dir: string): NodeJS.ProcessEnv {
  return { ...readDotEnv(dir), ...env };
}

/** The variables `<dir>/.env` sets; none when there is no such file. */
export function readDotEnv(dir: string): Record<string, string> {
  const file = path.join(dir, DOTENV_FILE);
  if (!existsSync(file)) return {};
  let text: string;
  try {
    text = readUtf8File(file);
  } catch (error) {
    throw new ConfigError(
      `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}): fix its permissions or remove it`,
      {
        cause: error,
      },
    );
  }
  return parseEnv(text) as Record<string, string>;
}

export function loadConfig(options: LoadConfigOptions = {}): Config {
  return loadConfigLayers(options).config;
}

/** One source of settings: a config file, the environment or the command line. */
export interface ConfigLayer {
  /** The file's path, `environment` or `command line`. */
  readonly source: string;
  readonly value: Record<string, unknown>;
}

export interface LoadedConfig {
  readonly config: Config;
  /** The settings as validated, before scopes and credentials are resolved: no secret of a credential. */
  readonly settings: Readonly<Record<string, unknown>>;
  /** Lowest first; a later one's value wins. */
  readonly layers: readonly ConfigLayer[];
  /** The environment read, `.env` included. */
  readonly env: NodeJS.ProcessEnv;
}

/** loadConfig, with the layers it merged: `events-mirror config` says where each value came from. */
export function loadConfigLayers(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? withDotEnv(process.env, process.cwd());
  const configDir = options.configDir ?? defaultConfigDir();
  const layers: ConfigLayer[] = [];

  layers.push(readJsonLayer(path.join(configDir, 'default.json'), false));
  const nodeEnv = env.NODE_ENV;
  if (nodeEnv && /^[A-Za-z0-9_-]+$/.test(nodeEnv)) {
    layers.push(readJsonLayer(path.join(configDir, `${nodeEnv}.json`), false));
  }
  if (env.EVENTS_MIRROR_CONFIG) layers.push(readJsonLayer(path.resolve(env.EVENTS_MIRROR_CONFIG), true));
  for (const layer of layers) refuseSecretsInFile(layer.value, layer.source);
  const files = layers.length;
  layers.push({ source: 'environment', value: readEnvLayer(env) });
  if (options.overrides) layers.push({ source: 'command line', value: options.overrides });

  const merged = layers.reduce<Record<string, unknown>>((acc, layer) => deepMerge(acc, layer.value), {});
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) throw new ConfigError(describeIssues(parsed.error));
  if (env.EVENTS_MIRROR_CONFIG) checkFilesWhole(layers, files);
  const credentials = resolveCredentials(parsed.data.credentials, env);
  checkDialects(parsed.data.api, credentials);
  return { config: freeze(finish(parsed.data, credentials)), settings: parsed.data, layers, env };
}

/**
 * The config files alone are valid too: where the environment replaces a part of the user's file
 * (EVENTS_SCOPES replaces its `scopes`), that part is still checked, so a misspelt key there is
 * named now rather than when the variable is unset.
 */
function checkFilesWhole(layers: readonly ConfigLayer[], files: number): void {
  const merged = layers.slice(0, files).reduce<Record<string, unknown>>((acc, layer) => deepMerge(acc, layer.value), {});
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    throw new ConfigError(
      `${describeIssues(parsed.error)} (in config file ${layers[files - 1]!.source}, checked whole though the environment overrides part of it: fix the file)`,
    );
  }
}

/** Where a credential's feeds are read and how: its own settings, else `api`'s. */
export interface ApiSource {
  readonly baseUrl: string;
  readonly dialect: ApiDialect;
  readonly version: string;
  /** The config keys a person changes to fix the version (`api.version (EVENTS_API_VERSION)` or `credentials.x.version`). */
  readonly versionKey: string;
}

export function apiSourceOf(
  api: Pick<Config['api'], 'baseUrl' | 'dialect' | 'version'>,
  credential?: { readonly name: string; readonly baseUrl?: string; readonly dialect?: ApiDialect; readonly version?: string },
): ApiSource {
  const baseUrl = credential?.baseUrl ?? api.baseUrl;
  const dialect =
    credential?.dialect ?? (credential?.baseUrl !== undefined ? inferDialect(baseUrl) : (api.dialect ?? inferDialect(baseUrl)));
  const ownVersion = credential?.version !== undefined;
  return {
    baseUrl,
    dialect,
    version: credential?.version ?? api.version,
    versionKey: ownVersion ? `credentials.${credential.name}.version` : 'api.version (EVENTS_API_VERSION)',
  };
}

function checkDialects(api: ParsedConfig['api'], credentials: Readonly<Record<string, Credential>>): void {
  const sources: Array<[string, ApiSource]> = [['api.dialect (EVENTS_API_DIALECT)', apiSourceOf(api)]];
  for (const credential of Object.values(credentials)) sources.push([`credentials.${credential.name}`, apiSourceOf(api, credential)]);
  for (const [where, source] of sources) {
    const mismatch = dialectMismatch(source.baseUrl, source.dialect);
    if (mismatch) throw new ConfigError(`${where}: dialect ${source.dialect} does not fit: ${mismatch}`);
  }
}

function readJsonLayer(file: string, required: boolean): { source: string; value: Record<string, unknown> } {
  if (!existsSync(file)) {
    if (required) throw new ConfigError(`config file ${file} (EVENTS_MIRROR_CONFIG) does not exist: fix the path or unset the variable`);
    return { source: file, value: {} };
  }
  let value: unknown;
  try {
    value = JSON.parse(readUtf8File(file));
  } catch (error) {
    throw new ConfigError(`config file ${file} is not valid JSON (${jsonSyntaxProblem(error)}): fix the file`, { cause: error });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`config file ${file} must hold a JSON object`);
  }
  return { source: file, value: value as Record<string, unknown> };
}

function refuseSecretsInFile(value: unknown, source: string, at: string[] = []): void {
  if (typeof value !== 'object' || value === null) return;
  for (const [key, inner] of Object.entries(value)) {
    if (SECRET_KEYS.has(key)) {
      throw new ConfigError(
        `config file ${source} sets ${[...at, key].join('.')}: secrets come from the environment only; remove it and set ${key === 'token' ? 'RECEIVER_TOKEN' : 'EVENTS_API_PRIVATE_KEY'}`,
      );
    }
    refuseSecretsInFile(inner, source, [...at, key]);
  }
}

function readEnvLayer(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const layer: Record<string, unknown> = {};
  for (const binding of ENV_BINDINGS) {
    const raw = env[binding.name] ?? (binding.name.endsWith('PROXY') ? env[binding.name.toLowerCase()] : undefined);
    if (raw === undefined || raw.trim() === '') continue;
    setPath(layer, binding.path, convertEnvValue(binding, raw.trim()));
  }
  for (const secret of SECRET_FILE_BINDINGS) {
    const file = env[`${secret.name}_FILE`]?.trim();
    if (!file) continue;
    if (env[secret.name]?.trim()) {
      throw new ConfigError(`both ${secret.name} and ${secret.name}_FILE are set: keep one`);
    }
    setPath(layer, secret.path, readSecretFile(`${secret.name}_FILE`, file));
  }
  return layer;
}

/** Secrets that may also come from a file (Docker and Kubernetes secrets): `<NAME>_FILE`. */
export const SECRET_FILE_BINDINGS: ReadonlyArray<{ name: string; path: readonly string[] }> = [
  { name: 'EVENTS_API_PRIVATE_KEY', path: ['api', 'privateKey'] },
  { name: 'RECEIVER_TOKEN', path: ['receiver', 'token'] },
];

function convertEnvValue(binding: EnvBinding, raw: string): unknown {
  switch (binding.kind) {
    case 'string':
      return raw;
    case 'list':
      return raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    case 'int': {
      if (!/^\d+$/.test(raw)) throw new ConfigError(`${binding.name}="${raw}": expected a whole number such as 900`);
      return Number(raw);
    }
    case 'bool': {
      if (/^(1|true|yes)$/i.test(raw)) return true;
      if (/^(0|false|no)$/i.test(raw)) return false;
      throw new ConfigError(`${binding.name}="${raw}": expected true or false`);
    }
  }
}

function describeIssues(error: z.ZodError): string {
  const lines = error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => describeUnknownKey([...issue.path.map(String), key]));
    const key = issue.path.map(String).join('.') || '(root)';
    const envName = ENV_BINDINGS.find((b) => b.path.join('.') === issue.path.slice(0, b.path.length).join('.'))?.name;
    const where = envName ? `${key} (${envName})` : key;
    return [`${where}: ${issue.message}`];
  });
  return `invalid configuration: ${lines.join('; ')}`;
}

/** `sync.windowSecs: unknown key; sync takes …`, from the schema's own key list. */
function describeUnknownKey(keyPath: readonly string[]): string {
  const parentPath = keyPath.slice(0, -1);
  const known = objectKeysAt(
    configSchema,
    parentPath.filter((part) => !/^\d+$/.test(part)),
  );
  const parent = parentPath.length > 0 ? parentPath.join('.') : 'the configuration';
  const takes = known.length > 0 ? `; ${parent} takes ${known.join(', ')}` : '';
  return `${keyPath.join('.')}: unknown key${takes}`;
}

/** The keys the configuration takes at `keyPath` (`[]`: its sections), in the schema's order. */
export function configKeysAt(keyPath: readonly string[]): string[] {
  return objectKeysAt(configSchema, keyPath, true);
}

function objectKeysAt(schema: z.ZodType, keyPath: readonly string[], withSecrets = false): string[] {
  let node: unknown = schema;
  const unwrap = () => {
    // default, prefault, optional wrap their schema in `innerType`; arrays hold theirs in `element`;
    // of a union (a scope entry: a string or an object) the object is the one with keys.
    for (let def = defOf(node); def && (def.innerType || def.element || def.options); def = defOf(node)) {
      node = def.innerType ?? def.element ?? def.options?.find((option) => defOf(option)?.shape);
    }
  };
  for (const key of keyPath) {
    unwrap();
    node = defOf(node)?.shape?.[key];
  }
  unwrap();
  const shape = defOf(node)?.shape;
  return shape ? Object.keys(shape).filter((key) => withSecrets || !SECRET_KEYS.has(key)) : [];
}

interface SchemaDef {
  innerType?: unknown;
  element?: unknown;
  options?: unknown[];
  shape?: Record<string, unknown>;
}

function defOf(node: unknown): SchemaDef | undefined {
  return (node as { _zod?: { def?: SchemaDef } } | undefined)?._zod?.def;
}

function finish(parsed: ParsedConfig, credentials: Readonly<Record<string, Credential>>): Config {
  const seen = new Set<string>();
  const scopes: ScopeSettings[] = [];
  for (const entry of parsed.scopes) {
    const text = typeof entry === 'string' ? entry : entry.scope;
    const scope = tryParseScope(text)!;
    if (seen.has(scope.key)) continue;
    seen.add(scope.key);
    const discoverProjects =
      typeof entry === 'string' ? parsed.sync.discoverProjects : (entry.discoverProjects ?? parsed.sync.discoverProjects);
    const excludeProjects = typeof entry === 'string' ? [] : (entry.excludeProjects ?? []);
    if (scope.kind === 'group' && typeof entry !== 'string' && (entry.discoverProjects || entry.excludeProjects)) {
      throw new ConfigError(
        `scope ${scope.key}: discoverProjects and excludeProjects apply to org: scopes only; move them to its organization's entry`,
      );
    }
    const credential = typeof entry === 'string' ? undefined : entry.credential;
    if (credential !== undefined && !(credential in credentials)) {
      const known = Object.keys(credentials);
      throw new ConfigError(
        `scope ${scope.key} uses credential "${credential}", which is not defined: add it under "credentials"${known.length > 0 ? ` (defined: ${known.join(', ')})` : ''}`,
      );
    }
    const filters = serverFilters(scope, entry, apiSourceOf(parsed.api, credential === undefined ? undefined : credentials[credential]));
    scopes.push({
      scope,
      eventTypes: typeof entry === 'string' ? parsed.sync.eventTypes : (entry.eventTypes ?? parsed.sync.eventTypes),
      includeRaw: typeof entry === 'string' ? parsed.sync.includeRaw : (entry.includeRaw ?? parsed.sync.includeRaw),
      startDate: typeof entry === 'string' ? parsed.sync.startDate : (entry.startDate ?? parsed.sync.startDate),
      ...(scope.kind === 'org' && discoverProjects ? { discoverProjects: true, excludeProjects } : {}),
      ...(credential !== undefined ? { credential } : {}),
      ...(typeof entry !== 'string' && entry.pushed ? { pushed: true } : {}),
      ...filters,
    });
  }
  return { ...parsed, scopes, credentials };
}

/**
 * A scope entry's excludeEventTypes and clusterNames: only Atlas v2's project feed takes them, so
 * on an org: scope or a v1 source they are refused at start (left out silently, or applied by the
 * mirror alone, the mirror would hold events the user asked to leave out, or reconcile would
 * compare counts the service never filtered).
 */
function serverFilters(
  scope: Scope,
  entry: ParsedConfig['scopes'][number],
  source: ApiSource,
): Pick<ScopeSettings, 'excludeEventTypes' | 'clusterNames'> {
  if (typeof entry === 'string') return {};
  const excludeEventTypes = [...new Set(entry.excludeEventTypes ?? [])].sort();
  const clusterNames = [...new Set(entry.clusterNames ?? [])].sort();
  const keys = [excludeEventTypes.length > 0 ? 'excludeEventTypes' : '', clusterNames.length > 0 ? 'clusterNames' : ''].filter(Boolean);
  if (keys.length === 0) return {};
  const what = keys.join(' and ');
  if (scope.kind === 'org') {
    throw new ConfigError(
      `scope ${scope.key}: ${what} apply to Atlas v2 project feeds only (the organization feed has no such parameter): set them on group: entries, or list the types to read in eventTypes`,
    );
  }
  if (source.dialect !== 'atlas-v2') {
    throw new ConfigError(
      `scope ${scope.key}: ${what} need an atlas-v2 source (the v1 API has no such parameter): read it with a credential whose baseUrl is https://cloud.mongodb.com/api/atlas/v2, or list the types to read in eventTypes`,
    );
  }
  return {
    ...(excludeEventTypes.length > 0 ? { excludeEventTypes } : {}),
    ...(clusterNames.length > 0 ? { clusterNames } : {}),
  };
}

/**
 * For commands that call the API: the default key pair is required unless named credentials are
 * defined and every configured scope names one (a worker serves whatever scopes its jobs name).
 */
export function requireApiAccess(config: Config): void {
  const named = Object.keys(config.credentials).length > 0;
  if (!named || config.scopes.some((s) => s.credential === undefined)) requireApiCredentials(config);
}

/** Fails with a clear line when the API key pair is missing; for commands that call the API. */
export function requireApiCredentials(config: Config): { publicKey: string; privateKey: string } {
  const missing = [
    config.api.publicKey ? undefined : 'EVENTS_API_PUBLIC_KEY',
    config.api.privateKey ? undefined : 'EVENTS_API_PRIVATE_KEY (or EVENTS_API_PRIVATE_KEY_FILE)',
  ].filter((name): name is string => name !== undefined);
  if (missing.length > 0) {
    throw new ConfigError(`missing API key pair: set ${missing.join(' and ')} (the API key's public and private key)`);
  }
  return { publicKey: config.api.publicKey!, privateKey: config.api.privateKey! };
}

/** Fails with a clear line when no scope is configured; for commands that sync every scope. */
export function requireScopes(config: Config): readonly ScopeSettings[] {
  if (config.scopes.length === 0) {
    throw new ConfigError(`no scopes configured: set EVENTS_SCOPES to a comma list of ${SCOPE_FORM}, or "scopes" in a config file`);
  }
  return config.scopes;
}

/** The settings for one scope, configured or not (a backfill may name any scope). */
export function scopeSettings(config: Config, scope: Scope): ScopeSettings {
  return (
    config.scopes.find((s) => s.scope.key === scope.key) ?? {
      scope,
      eventTypes: config.sync.eventTypes,
      includeRaw: config.sync.includeRaw,
      startDate: config.sync.startDate,
    }
  );
}

/** A copy safe to log or print: the private key replaced. */
export function redactedConfig(config: Config): unknown {
  const credentials = Object.fromEntries(
    Object.entries(config.credentials).map(([name, c]) => [
      name,
      c.kind === 'apiKey'
        ? { kind: c.kind, publicKey: c.publicKey, privateKey: '[redacted]' }
        : { kind: c.kind, clientId: c.clientId, clientSecret: '[redacted]' },
    ]),
  );
  return {
    ...config,
    api: { ...config.api, privateKey: config.api.privateKey ? '[redacted]' : undefined },
    receiver: { ...config.receiver, token: config.receiver.token ? '[redacted]' : undefined },
    credentials,
  };
}

function setPath(target: Record<string, unknown>, keys: readonly string[], value: unknown): void {
  let node = target;
  keys.slice(0, -1).forEach((key) => {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  });
  node[keys[keys.length - 1]!] = value;
}

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const existing = out[key];
    out[key] = isPlainObject(existing) && isPlainObject(value) ? deepMerge(existing, value) : value;
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function freeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) freeze(inner);
  }
  return value;
}
