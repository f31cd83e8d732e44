/**
 * The receiver's bearer-token check, in constant time: both sides are hashed to the same length
 * first, so neither the comparison nor its length check tells how much of a guess was right.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export function bearerTokenCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
    // A missing or malformed header is still hashed and compared, so its answer takes as long.
    const given = digest(match?.[1] ?? '');
    return timingSafeEqual(given, expected) && match !== null;
  };
}
