/**
 * A scope's state, in the order status decides it (failing, removed, never synced, lagging, ok),
 * the fleet summary, and the durations --lagging takes. Pure: rows and a pinned clock in.
 */
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { durationSeconds } from '../../src/commands/options.js';
import { scopeHealth, summarize } from '../../src/report/scope-health.js';
import type { KnownScope } from '../../src/warehouse/scopes.repository.js';
import type { SyncState } from '../../src/warehouse/state.repository.js';

const NOW = new Date('2026-11-27T08:00:00Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);
const THRESHOLD_MS = 185_000;

function state(scope: string, fields: Partial<SyncState>): SyncState {
  return {
    scope,
    watermark: null,
    settings: null,
    lastSuccessAt: null,
    lastAttemptAt: null,
    lastError: null,
    lastErrorCode: null,
    consecutiveFailures: 0,
    polls: 0,
    lastPolledAt: null,
    lastLandedAt: null,
    ...fields,
  };
}

function removed(scope: string): KnownScope {
  return {
    scope,
    kind: 'group',
    scopeId: scope.slice(6),
    name: 'Gone',
    orgId: null,
    origin: 'discovered',
    discoveredBy: 'org:o',
    firstSeenAt: ago(86_400),
    lastSeenAt: ago(86_400),
    removedAt: ago(3600),
    listing: { listedAt: null, failures: 0, failedAt: null, error: null },
  };
}

describe('scope states', () => {
  const health = scopeHealth(
    {
      states: [
        state('group:ok', { watermark: ago(60) }),
        state('group:edge', { watermark: ago(185) }),
        state('group:lagging', { watermark: ago(186) }),
        // Failing wins over lagging; an error without a recorded code counts as UNKNOWN.
        state('group:failing', { watermark: ago(7200), consecutiveFailures: 2, lastError: 'old error' }),
        state('group:coded', { consecutiveFailures: 1, lastError: '404', lastErrorCode: 'API_GROUP_NOT_FOUND' }),
        state('group:gone', { watermark: ago(86_400) }),
      ],
      known: [removed('group:gone'), removed('group:back')],
      configured: ['group:new', 'group:back'],
      now: NOW,
    },
    THRESHOLD_MS,
  );

  it('decides each state in order and sorts worst first', () => {
    expect(health.map((h) => [h.scope, h.state])).toEqual([
      ['group:failing', 'failing'],
      ['group:coded', 'failing'],
      ['group:lagging', 'lagging'],
      ['group:back', 'never-synced'], // removed from its org, but configured: still mirrored
      ['group:new', 'never-synced'],
      ['group:edge', 'ok'], // exactly the threshold is not behind it
      ['group:ok', 'ok'],
      ['group:gone', 'removed'],
    ]);
  });

  it('summarizes by state, by error code and the worst lags (removed ones left out)', () => {
    const summary = summarize(health, THRESHOLD_MS);
    expect(summary.byState).toEqual({ failing: 2, lagging: 1, 'never-synced': 2, ok: 2, removed: 1 });
    expect(summary.failingByCode).toEqual([
      { code: 'API_GROUP_NOT_FOUND', scopes: 1 },
      { code: 'UNKNOWN', scopes: 1 },
    ]);
    expect(summary.worstLags.map((h) => h.scope)).toEqual(['group:failing', 'group:lagging', 'group:edge', 'group:ok']);
  });
});

describe('--lagging durations', () => {
  it('reads seconds, minutes, hours and days', () => {
    expect(['90', '90s', '15m', '2h', '1d'].map(durationSeconds)).toEqual([90, 90, 900, 7200, 86_400]);
  });

  it('refuses anything else', () => {
    for (const bad of ['', '1.5h', '-5m', '2w', 'h']) expect(() => durationSeconds(bad), bad).toThrow(InvalidArgumentError);
  });
});
