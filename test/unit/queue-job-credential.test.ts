import { describe, expect, it } from 'vitest';
import {
  backfillJobData,
  backfillJobSchema,
  pollJobData,
  pollJobSchema,
  reconcileJobData,
  reconcileJobSchema,
  settingsFromJob,
} from '../../src/queue/queues.js';
import { parseScope } from '../../src/scope.js';

describe('the credential a job is read with', () => {
  const settings = {
    scope: parseScope('group:6a0000000000000000000001'),
    eventTypes: [],
    includeRaw: false,
    startDate: undefined,
    credential: 'acme',
  };

  it('travels by name in every kind of job, and comes back as the scope settings the worker runs', () => {
    const poll = pollJobSchema.parse(pollJobData(settings));
    const backfill = backfillJobSchema.parse(
      backfillJobData(settings, { minDate: new Date('2026-11-01T00:00:00Z'), maxDate: new Date('2026-11-02T00:00:00Z') }),
    );
    const reconcile = reconcileJobSchema.parse(reconcileJobData(settings, 7));
    for (const data of [poll, backfill, reconcile]) {
      expect(data.credential).toBe('acme');
      expect(settingsFromJob(data).credential).toBe('acme');
    }
    const { credential: _, ...byDefault } = settings;
    expect('credential' in pollJobData(byDefault)).toBe(false);
  });
});
