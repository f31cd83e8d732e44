/**
 * The two dialects of the Events API: `v1` (`/api/public/v1.0`: Cloud Manager, Ops Manager, and
 * Atlas's legacy `/api/atlas/v1.0`) and `atlas-v2` (the Atlas Administration API v2,
 * `/api/atlas/v2`, every request with a versioned media type). Pure.
 */
import { maskUrl } from './url-display.js';

export const API_DIALECTS = ['v1', 'atlas-v2'] as const;
export type ApiDialect = (typeof API_DIALECTS)[number];

/** The events resources' only version. */
export const DEFAULT_API_VERSION = '2023-01-01';

const V2_PATH = /\/api\/atlas\/v2\/*$/;
const V1_PATH = /\/v1\.0\/*$/;

/** The dialect a base URL implies: `atlas-v2` for a path ending in /api/atlas/v2, else `v1`. */
export function inferDialect(baseUrl: string): ApiDialect {
  return V2_PATH.test(new URL(baseUrl).pathname) ? 'atlas-v2' : 'v1';
}

/** Why `dialect` cannot be spoken at `baseUrl` (a v1.0 path on v2, or a v2 path on v1), or undefined. */
export function dialectMismatch(baseUrl: string, dialect: ApiDialect): string | undefined {
  const path = new URL(baseUrl).pathname;
  if (dialect === 'atlas-v2' && V1_PATH.test(path))
    return `the base URL ${maskUrl(baseUrl)} is a v1.0 one: use https://cloud.mongodb.com/api/atlas/v2 for atlas-v2`;
  if (dialect === 'v1' && V2_PATH.test(path))
    return `the base URL ${maskUrl(baseUrl)} is the Atlas v2 one: use dialect atlas-v2, or a /api/public/v1.0 URL`;
  return undefined;
}

/** The `Accept` header every request of the dialect sends. */
export function acceptHeader(dialect: ApiDialect, version: string): string {
  return dialect === 'atlas-v2' ? `application/vnd.atlas.${version}+json` : 'application/json';
}

/**
 * The errorCodes with which the Atlas Administration API refuses the requested resource version,
 * and why. Only these say the version is wrong for every request of the credential; any other 406
 * or 410 (`410 GROUP_DELETED`, a proxy's 406) is about the one request or scope that got it.
 */
export const VERSION_REFUSAL_CODES: Readonly<Record<string, string>> = Object.freeze({
  VERSION_GONE: '410: the version was retired',
  INVALID_VERSION_DATE: '400 or 406: the date is no version of the resource',
  NOT_ACCEPTABLE: '406: the Accept header names no version the resource serves',
});

/** An answer that refuses the requested resource version: a 400, 406 or 410 with one of VERSION_REFUSAL_CODES. */
export function isVersionRefusal(status: number | undefined, errorCode: string | undefined): boolean {
  if (status !== 400 && status !== 406 && status !== 410) return false;
  return errorCode !== undefined && Object.hasOwn(VERSION_REFUSAL_CODES, errorCode);
}
