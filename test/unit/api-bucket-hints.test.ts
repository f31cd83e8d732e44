import { describe, expect, it } from 'vitest';
import { readBucketHint } from '../../src/api/bucket-hints.js';

const tokenBucket429 = (parameters: unknown[]) =>
  JSON.stringify({ error: 429, errorCode: 'RATE_LIMITED_TOKEN_BUCKET', detail: 'Resource … is rate limited.', parameters });

describe('readBucketHint', () => {
  it('reads RateLimit-Remaining and RateLimit-Limit (a bare figure or a structured value)', () => {
    expect(readBucketHint({ status: 200, limit: '300', remaining: '42', bodyText: undefined })).toEqual({
      remaining: 42,
      capacity: 300,
      refillPerSecond: undefined,
    });
    expect(readBucketHint({ status: 200, limit: '500, 500;w=60', remaining: '7', bodyText: undefined })?.capacity).toBe(500);
  });

  it("reads a RATE_LIMITED_TOKEN_BUCKET body's capacity and refill rate", () => {
    const body = tokenBucket429(['/api/atlas/v2/groups/g1/events', 1, 300, 100, 60]);
    expect(readBucketHint({ status: 429, limit: '300', remaining: '0', bodyText: body })).toEqual({
      remaining: 0,
      capacity: 300,
      refillPerSecond: 100 / 60,
    });
  });

  it('says nothing without the headers, or from a 429 body without parameters or of another kind', () => {
    expect(readBucketHint({ status: 200, limit: undefined, remaining: undefined, bodyText: undefined })).toBeUndefined();
    expect(readBucketHint({ status: 200, limit: undefined, remaining: '5', bodyText: undefined })).toBeUndefined();
    expect(readBucketHint({ status: 429, limit: undefined, remaining: undefined, bodyText: tokenBucket429([]) })).toBeUndefined();
    const plain = JSON.stringify({ error: 429, errorCode: 'RATE_LIMITED', parameters: [] });
    expect(readBucketHint({ status: 429, limit: undefined, remaining: undefined, bodyText: plain })).toBeUndefined();
    expect(readBucketHint({ status: 429, limit: undefined, remaining: undefined, bodyText: 'not json' })).toBeUndefined();
  });
});
