/**
 * A refusal is a permanent 401 or 403: the service will not let this credential read a feed. Some
 * refuse the credential itself (a wrong key pair, a service account refused its token, an IP
 * address off the key's access list): every scope it reads fails the same way, and that is one
 * problem. `check` and `sync --once` describe it in the same words, from here.
 */
import { ApiCredentialsError, ApiError, describeAnswer } from './api-error.js';

/** errorCodes that refuse the credential whatever the scope (API-NOTES: "Errors"). */
const CREDENTIAL_WIDE_CODES: ReadonlySet<string> = new Set(['IP_ADDRESS_NOT_ON_WHITELIST', 'IP_ADDRESS_NOT_ON_ACCESS_LIST']);

const TOKEN_PATH = '/api/oauth/token';

/** A permanent 401 or 403 from the service, a refused token included. */
export function isRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.status === 401 || error.status === 403);
}

/** A refusal of the credential itself: the other scopes it reads would be refused the same way. */
export function isCredentialRefusal(error: unknown): boolean {
  return (
    error instanceof ApiCredentialsError ||
    (error instanceof ApiError && (error.url.endsWith(TOKEN_PATH) || CREDENTIAL_WIDE_CODES.has(error.errorCode ?? '')))
  );
}

/**
 * What the service answered and the fix, without the request (the caller names the credential or
 * the scope); for any permanent answer, a refusal or not: `401 Digest credentials rejected (the API key with public key abc was refused: check
 * …)`. For several scopes refused alike, the service's detail is kept only when they all got the
 * same (a detail naming each scope's id would say nothing more).
 */
export function describeRefusal(refusals: readonly [ApiError, ...ApiError[]]): string {
  const [first] = refusals;
  const sameDetail = refusals.every((r) => r.detail === first.detail);
  const answer = describeAnswer(first, first.reason, sameDetail);
  return first.fix ? `${answer} (${first.fix})` : answer;
}
