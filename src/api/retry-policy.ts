/**
 * Which failures are retried, as data (one table), and how long to wait between attempts:
 * exponential backoff with full jitter, a server's Retry-After honoured. Pure.
 */
import { clampNetworkNumber } from './network-ranges.js';

export type FailureClass =
  | { readonly retry: false; readonly why: string }
  | {
      readonly retry: true;
      readonly why: string;
      /** 429: wait what Retry-After says and pause the scope's request budget. */
      readonly rateLimited?: boolean;
      /** Worth a line of its own in the log. */
      readonly note?: string;
    };

const PERMANENT = (why: string): FailureClass => ({ retry: false, why });
const RETRY = (why: string): FailureClass => ({ retry: true, why });

/**
 * HTTP statuses by what they mean. A 4xx says the request is wrong and will stay wrong (except
 * the few listed as retryable); a 5xx (any, including a CDN's 520–529) says the other side failed
 * this time. Statuses not listed: other 4xx permanent, other 5xx retried, anything else permanent.
 */
export const STATUS_POLICY: Readonly<Record<number, FailureClass>> = {
  400: PERMANENT('bad request'),
  401: PERMANENT('not authorized'),
  403: PERMANENT("forbidden (is this machine on the key's access list?)"),
  404: PERMANENT('not found'),
  408: RETRY('request timeout'),
  425: RETRY('too early'),
  429: { retry: true, why: 'rate limited', rateLimited: true },
  500: RETRY('server error'),
  502: RETRY('bad gateway'),
  503: RETRY('service unavailable'),
  504: RETRY('gateway timeout'),
};

/** Service errorCodes that refine a status. */
export const ERROR_CODE_POLICY: Readonly<Record<string, FailureClass>> = {
  TIMEOUT_WHILE_PAGING: {
    retry: true,
    why: 'server timed out paging',
    note: 'the service timed out reading a deep page; keep windows shallow (fewer pages per window)',
  },
  RATE_LIMITED: { retry: true, why: 'rate limited', rateLimited: true },
};

/** Transport failures by error code (undici and Node), plus the client's own body checks. */
export const TRANSPORT_POLICY: Readonly<Record<string, FailureClass>> = {
  UND_ERR_HEADERS_TIMEOUT: RETRY('timed out waiting for response headers'),
  UND_ERR_BODY_TIMEOUT: RETRY('timed out reading the response body'),
  UND_ERR_CONNECT_TIMEOUT: RETRY('timed out connecting'),
  UND_ERR_SOCKET: RETRY('connection closed by the other side'),
  UND_ERR_CLOSED: RETRY('connection closed'),
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: RETRY('response body cut short'),
  ECONNRESET: RETRY('connection reset'),
  ECONNREFUSED: RETRY('connection refused; check EVENTS_API_BASE_URL'),
  ECONNABORTED: RETRY('connection aborted'),
  EHOSTUNREACH: RETRY('host unreachable'),
  EHOSTDOWN: RETRY('host down'),
  ENETUNREACH: RETRY('network unreachable'),
  ENETDOWN: RETRY('network down'),
  ENETRESET: RETRY('connection reset by the network'),
  EPIPE: RETRY('broken pipe'),
  ETIMEDOUT: RETRY('timed out'),
  EAI_AGAIN: RETRY('DNS lookup failed temporarily'),
  BODY_NOT_JSON: RETRY('response body is not JSON (cut short?)'),
  MALFORMED_RESPONSE: RETRY('response body is not an events list'),
};

export function classifyStatus(status: number, errorCode?: string): FailureClass {
  const byCode = errorCode === undefined ? undefined : ERROR_CODE_POLICY[errorCode];
  if (byCode && (status >= 500 || status === 429)) return byCode;
  const listed = STATUS_POLICY[status];
  if (listed) return listed;
  return status >= 500 && status <= 599 ? RETRY(`server error ${status}`) : PERMANENT(`unexpected HTTP status ${status}`);
}

/** Finds a known code on an error or its causes; unknown transport errors are permanent. */
export function classifyTransportError(error: unknown): { code: string; policy: FailureClass } {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && TRANSPORT_POLICY[code]) return { code, policy: TRANSPORT_POLICY[code] };
    current = (current as { cause?: unknown }).cause;
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  return { code: typeof code === 'string' ? code : 'TRANSPORT_ERROR', policy: PERMANENT('request failed') };
}

export interface BackoffOptions {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * Full jitter: a uniform wait in [0, min(max, base·2^(retry−1))]. `retry` counts from 1 (the wait
 * before the second attempt).
 */
export function backoffDelayMs(retry: number, options: BackoffOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Retry-After as milliseconds: delta-seconds or an HTTP date, clamped to its range
 * (network-ranges.ts: at most an hour); undefined when absent or bad.
 */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  let seconds: number;
  if (/^\d+(\.\d+)?$/.test(text)) seconds = Number(text);
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    seconds = (at - nowMs) / 1000;
  }
  return Math.round(clampNetworkNumber('retryAfter', seconds) * 1000);
}

/**
 * The wait before the next attempt: Retry-After when the server sent one (the retry deadline
 * bounds it), otherwise backoff.
 */
export function nextDelayMs(
  retry: number,
  retryAfterMs: number | undefined,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.max(retryAfterMs, 0);
  return backoffDelayMs(retry, options, random);
}
