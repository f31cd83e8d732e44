/**
 * What a 401 to a request carrying a service account's Bearer token means: the token itself was
 * refused (expired early, revoked: mint a new one), or the account may not read this project or
 * organization (an access error: that scope fails, the token is fine and is kept). Pure.
 */
import { readErrorFields } from './validate.js';

/** 401 errorCodes that refuse the caller this scope, not its token (API-NOTES: "Errors"). */
export const ACCESS_ERROR_CODES: ReadonlySet<string> = new Set([
  'USER_CANNOT_ACCESS_GROUP',
  'USER_CANNOT_ACCESS_ORG',
  'USER_CANNOT_ACCESS_ORGANIZATION',
]);

/**
 * True when minting a new token may help: a 401 whose challenge says `error="invalid_token"`
 * (RFC 6750), or a 401 without an access errorCode. Any other status (a 403 included) is never the
 * token's fault.
 */
export function isTokenRefused(status: number, wwwAuthenticate: string | undefined, bodyText: string): boolean {
  if (status !== 401) return false;
  if (/\berror\s*=\s*"?invalid_token\b/i.test(wwwAuthenticate ?? '')) return true;
  const { errorCode } = readErrorFields(parseJson(bodyText));
  return errorCode === undefined || !ACCESS_ERROR_CODES.has(errorCode);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
