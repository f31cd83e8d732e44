import { describe, expect, it } from 'vitest';
import { isTokenRefused } from '../../src/api/token-refusal.js';

const body = (errorCode?: string) => JSON.stringify({ error: 401, ...(errorCode ? { errorCode } : {}), detail: 'no' });

describe('isTokenRefused', () => {
  it('is the token: an invalid_token challenge, or a 401 without an access errorCode', () => {
    expect(isTokenRefused(401, 'Bearer error="invalid_token"', body('UNAUTHORIZED'))).toBe(true);
    expect(isTokenRefused(401, 'Bearer realm="x", error=invalid_token', '')).toBe(true);
    expect(isTokenRefused(401, undefined, body('UNAUTHORIZED'))).toBe(true);
    expect(isTokenRefused(401, undefined, body())).toBe(true);
    expect(isTokenRefused(401, undefined, 'not json')).toBe(true);
  });

  it('is not the token: an access errorCode, or any status but 401', () => {
    for (const code of ['USER_CANNOT_ACCESS_GROUP', 'USER_CANNOT_ACCESS_ORG', 'USER_CANNOT_ACCESS_ORGANIZATION']) {
      expect(isTokenRefused(401, undefined, body(code)), code).toBe(false);
    }
    expect(isTokenRefused(403, undefined, body('IP_ADDRESS_NOT_ON_WHITELIST'))).toBe(false);
    expect(isTokenRefused(403, 'Bearer error="invalid_token"', body())).toBe(false);
    expect(isTokenRefused(404, undefined, body('GROUP_NOT_FOUND'))).toBe(false);
  });
});
