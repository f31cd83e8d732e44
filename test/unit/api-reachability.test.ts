import { describe, expect, it } from 'vitest';
import { ApiReachability } from '../../src/api/reachability.js';

describe('API reachability, as /healthz reports it', () => {
  it('reports the API only after requests in a row went unanswered, and clears on any answer', () => {
    const reachability = new ApiReachability();
    expect(() => reachability.assertAnswering()).not.toThrow();
    reachability.noAnswer('GET /groups/g/events for group:g failed: UND_ERR_HEADERS_TIMEOUT', Date.parse('2026-11-24T10:00:00Z'));
    expect(() => reachability.assertAnswering(), 'one unanswered request is a blip').not.toThrow();
    reachability.noAnswer('GET /groups/g/events for group:g failed: UND_ERR_CONNECT_TIMEOUT', Date.parse('2026-11-24T10:00:05Z'));
    expect(() => reachability.assertAnswering()).toThrow(
      'no answer from the Events API since 2026-11-24T10:00:00.000Z (2 requests in a row): GET /groups/g/events for group:g failed: UND_ERR_CONNECT_TIMEOUT',
    );
    reachability.answered();
    expect(() => reachability.assertAnswering()).not.toThrow();
  });

  it('counts an answer as fresh for 10 s, and never after unanswered requests in a row (readiness then probes)', () => {
    const at = (text: string) => Date.parse(`2026-11-24T10:00:${text}Z`);
    const reachability = new ApiReachability();
    expect(reachability.answeredRecently(at('00')), 'never answered').toBe(false);
    reachability.answered(at('00'));
    expect(reachability.lastAnsweredAt).toBe(at('00'));
    expect(reachability.answeredRecently(at('09.999'))).toBe(true);
    expect(reachability.answeredRecently(at('10'))).toBe(false);
    reachability.answered(at('20'));
    reachability.noAnswer('timeout', at('21'));
    expect(reachability.answeredRecently(at('22')), 'one unanswered request is a blip').toBe(true);
    reachability.noAnswer('timeout', at('23'));
    expect(reachability.answeredRecently(at('24'))).toBe(false);
  });
});
