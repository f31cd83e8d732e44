import { describe, expect, it } from 'vitest';
import { backoffDelayMs, classifyStatus, classifyTransportError, nextDelayMs, parseRetryAfterMs } from '../../src/api/retry-policy.js';

describe('retry policy table', () => {
  it('treats 400/401/403/404 as permanent and 429/5xx as retryable', () => {
    for (const status of [400, 401, 403, 404]) expect(classifyStatus(status).retry).toBe(false);
    for (const status of [429, 500, 502, 503, 504]) expect(classifyStatus(status).retry).toBe(true);
    expect(classifyStatus(429)).toMatchObject({ rateLimited: true });
    for (const status of [501, 505, 507, 520, 522, 524, 529, 599, 408, 425]) expect(classifyStatus(status).retry, `${status}`).toBe(true);
    for (const status of [405, 409, 410, 418, 422, 302, 600]) expect(classifyStatus(status).retry, `${status}`).toBe(false);
  });

  it('gives TIMEOUT_WHILE_PAGING its own note, and errorCodes never turn a 4xx retryable', () => {
    const paging = classifyStatus(500, 'TIMEOUT_WHILE_PAGING');
    expect(paging.retry).toBe(true);
    expect(paging.retry && paging.note).toMatch(/shallow/);
    expect(classifyStatus(404, 'TIMEOUT_WHILE_PAGING').retry).toBe(false);
  });

  it('classifies transport errors by code, looking through causes', () => {
    for (const code of [
      'UND_ERR_HEADERS_TIMEOUT',
      'UND_ERR_BODY_TIMEOUT',
      'UND_ERR_CONNECT_TIMEOUT',
      'ECONNRESET',
      'UND_ERR_SOCKET',
      'EPIPE',
      'ECONNREFUSED',
      'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
      'EHOSTUNREACH',
      'ENETUNREACH',
      'ECONNABORTED',
      'EHOSTDOWN',
      'ENETDOWN',
    ]) {
      expect(classifyTransportError(Object.assign(new Error('x'), { code })).policy.retry).toBe(true);
    }
    const wrapped = new Error('fetch failed', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) });
    expect(classifyTransportError(wrapped)).toMatchObject({ code: 'ECONNRESET', policy: { retry: true } });
    expect(classifyTransportError(Object.assign(new Error('x'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }))).toMatchObject({
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
      policy: { retry: false },
    });
  });
});

describe('backoff with full jitter', () => {
  const options = { baseDelayMs: 100, maxDelayMs: 1000 };
  it('spans [0, min(max, base·2^(n−1))]', () => {
    expect(backoffDelayMs(1, options, () => 0)).toBe(0);
    expect(backoffDelayMs(1, options, () => 0.999)).toBe(99);
    expect(backoffDelayMs(3, options, () => 0.5)).toBe(200);
    expect(backoffDelayMs(10, options, () => 0.999)).toBe(999);
  });

  it('uses Retry-After when given, backoff otherwise', () => {
    expect(nextDelayMs(1, 3000, options, () => 0.5)).toBe(3000);
    expect(nextDelayMs(2, undefined, options, () => 0.5)).toBe(100);
  });

  it('parses Retry-After seconds and HTTP dates', () => {
    const now = Date.UTC(2026, 10, 1, 0, 0, 0);
    expect(parseRetryAfterMs('2', now)).toBe(2000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
    expect(parseRetryAfterMs('Sun, 01 Nov 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
  });
});
