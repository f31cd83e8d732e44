/**
 * The undici dispatcher for one base URL: a keep-alive connection pool, an extra certificate
 * authority for private deployments, verification off only when asked explicitly, and a proxy
 * built from explicit configuration (this module never reads process.env; config.ts does).
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';
import { ConfigError } from '../errors.js';

export interface HttpAgentOptions {
  /** PEM file of an extra certificate authority (EVENTS_API_CA_FILE), added to Node's roots. */
  readonly caFile?: string | undefined;
  readonly insecureSkipTlsVerify?: boolean | undefined;
  readonly httpProxy?: string | undefined;
  readonly httpsProxy?: string | undefined;
  readonly noProxy?: string | undefined;
  readonly requestTimeoutMs?: number | undefined;
  /** Connections kept per origin. */
  readonly connections?: number | undefined;
}

export interface TlsOptions {
  ca?: string[];
  rejectUnauthorized?: boolean;
}

/** TLS options for undici's `connect`; reads the CA file (injectable for tests). */
export function buildTlsOptions(
  options: HttpAgentOptions,
  readFile: (file: string) => string = (file) => readFileSync(file, 'utf8'),
): TlsOptions {
  const tls: TlsOptions = {};
  if (options.caFile) {
    let pem: string;
    try {
      pem = readFile(options.caFile);
    } catch (error) {
      throw new ConfigError(`EVENTS_API_CA_FILE ${options.caFile} cannot be read (${(error as Error).message}): fix the path`, {
        cause: error,
      });
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
      throw new ConfigError(
        `EVENTS_API_CA_FILE ${options.caFile} holds no PEM certificate (expected -----BEGIN CERTIFICATE-----): point it at the certificate authority's PEM file`,
      );
    }
    tls.ca = [...rootCertificates, pem];
  }
  if (options.insecureSkipTlsVerify) tls.rejectUnauthorized = false;
  return tls;
}

export type DispatcherPlan = { kind: 'agent'; options: Agent.Options } | { kind: 'proxy'; options: EnvHttpProxyAgent.Options };

/** What dispatcher to build, as data (unit-tested without sockets). */
export function planDispatcher(options: HttpAgentOptions, tls: TlsOptions): DispatcherPlan {
  const timeout = options.requestTimeoutMs ?? 30_000;
  const common: Agent.Options = {
    connections: options.connections ?? 16,
    keepAliveTimeout: 10_000,
    headersTimeout: timeout,
    bodyTimeout: timeout,
    connect: { ...tls, timeout },
  };
  if (!options.httpProxy && !options.httpsProxy) return { kind: 'agent', options: common };
  return {
    kind: 'proxy',
    options: {
      ...common,
      // Empty strings, not undefined: undici would otherwise fall back to process.env.
      httpProxy: options.httpProxy ?? '',
      httpsProxy: options.httpsProxy ?? '',
      noProxy: options.noProxy ?? '',
      requestTls: tls,
      proxyTls: tls,
    },
  };
}

export function createHttpDispatcher(options: HttpAgentOptions): Dispatcher {
  const plan = planDispatcher(options, buildTlsOptions(options));
  return plan.kind === 'agent' ? new Agent(plan.options) : new EnvHttpProxyAgent(plan.options);
}
