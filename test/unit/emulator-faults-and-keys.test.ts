import { describe, expect, it } from 'vitest';
import { emulatorOptionsFromFlags } from '../../src/commands/emulator.js';
import { UsageError } from '../../src/errors.js';
import { FaultInjector, NO_FAULTS, mergeFaults } from '../../src/emulator/faults.js';
import { canReadGroup, canReadOrg, keysFileSchema, type ApiKeyGrant } from '../../src/emulator/keys.js';

describe('FaultInjector', () => {
  it('meters each scope with a token bucket that refills per minute', () => {
    let clock = 0;
    const faults = new FaultInjector(
      { rateLimitPerMinute: 3 },
      () => clock,
      () => 0.99,
    );
    expect(['a', 'a', 'a', 'a'].map((s) => faults.decide(s))).toEqual(['none', 'none', 'none', 'rateLimited']);
    expect(faults.decide('b')).toBe('none');
    clock += 20_000; // one token back
    expect([faults.decide('a'), faults.decide('a')]).toEqual(['none', 'rateLimited']);
    faults.set({ rateLimitPerMinute: 0 });
    expect(faults.decide('a')).toBe('none');
  });

  it('decides drop, 429 and 5xx from the random source, and cut bodies', () => {
    let next = 0;
    const faults = new FaultInjector(
      { dropRate: 0.1, rate429: 0.1, rate5xx: 0.1, cutBodyRate: 0.5 },
      () => 0,
      () => next,
    );
    next = 0.05;
    expect(faults.decide('s')).toBe('drop');
    faults.set({ dropRate: 0 });
    expect(faults.decide('s')).toBe('random429');
    faults.set({ rate429: 0 });
    expect(faults.decide('s')).toBe('error500');
    next = 0.7;
    expect(faults.decide('s')).toBe('none');
    expect(faults.cutBody()).toBe(false);
    next = 0.2;
    expect(faults.cutBody()).toBe(true);
  });

  it('refuses values out of range and can clear retryAfterSeconds', () => {
    expect(() => mergeFaults(NO_FAULTS, { rate429: 1.5 })).toThrow(/rate429/);
    expect(() => mergeFaults(NO_FAULTS, { latencyMs: -1 })).toThrow(/latencyMs/);
    expect(() => mergeFaults(NO_FAULTS, { retryAfterSeconds: 1.5 })).toThrow(/retryAfterSeconds/);
    const withRetry = mergeFaults(NO_FAULTS, { retryAfterSeconds: 5 });
    expect(withRetry.retryAfterSeconds).toBe(5);
    expect('retryAfterSeconds' in mergeFaults(withRetry, { retryAfterSeconds: undefined })).toBe(false);
  });
});

describe('key roles', () => {
  const key = (roles: ApiKeyGrant['roles']): ApiKeyGrant => ({ publicKey: 'p', privateKey: 'k', roles });

  it('lets org read roles read the org feed, but not billing admin alone', () => {
    for (const roleName of ['ORG_OWNER', 'ORG_MEMBER', 'ORG_READ_ONLY', 'ORG_GROUP_CREATOR'])
      expect(canReadOrg(key([{ orgId: 'o', roleName }]), 'o')).toBe(true);
    expect(canReadOrg(key([{ orgId: 'o', roleName: 'ORG_BILLING_ADMIN' }]), 'o')).toBe(false);
    expect(canReadOrg(key([{ orgId: 'x', roleName: 'ORG_OWNER' }]), 'o')).toBe(false);
    expect(canReadOrg(key([{ groupId: 'o', roleName: 'GROUP_OWNER' }]), 'o')).toBe(false);
  });

  it('lets any project role, or the owner of its org, read a project feed', () => {
    expect(canReadGroup(key([{ groupId: 'g', roleName: 'GROUP_READ_ONLY' }]), 'g', 'o')).toBe(true);
    expect(canReadGroup(key([{ groupId: 'g', roleName: 'GROUP_DATA_ACCESS_READ_ONLY' }]), 'g', 'o')).toBe(true);
    expect(canReadGroup(key([{ orgId: 'o', roleName: 'ORG_OWNER' }]), 'g', 'o')).toBe(true);
    expect(canReadGroup(key([{ orgId: 'o', roleName: 'ORG_MEMBER' }]), 'g', 'o')).toBe(false);
    expect(canReadGroup(key([{ groupId: 'h', roleName: 'GROUP_OWNER' }]), 'g', 'o')).toBe(false);
  });

  it('validates a keys file: role names, one of orgId/groupId, unique public keys', () => {
    const good = [
      {
        publicKey: 'a',
        privateKey: 'b',
        roles: [
          { orgId: 'o', roleName: 'ORG_MEMBER' },
          { groupId: 'g', roleName: 'GROUP_READ_ONLY' },
        ],
      },
    ];
    expect(keysFileSchema.safeParse(good).success).toBe(true);
    expect(keysFileSchema.safeParse([{ ...good[0], roles: [{ orgId: 'o', roleName: 'GROUP_OWNER' }] }]).success).toBe(false);
    expect(keysFileSchema.safeParse([{ ...good[0], roles: [{ orgId: 'o', groupId: 'g', roleName: 'ORG_OWNER' }] }]).success).toBe(false);
    expect(keysFileSchema.safeParse([...good, ...good]).success).toBe(false);
    expect(keysFileSchema.safeParse([]).success).toBe(false);
  });
});

describe('emulator command flags', () => {
  const base = {
    host: '127.0.0.1',
    port: '0',
    seed: '1',
    org: [],
    group: [],
    eventsPerScope: '10',
    days: '1',
    liveRate: '0',
    nonceTtlSeconds: '60',
  };

  it('turns flags into options', () => {
    const options = emulatorOptionsFromFlags({
      ...base,
      org: ['o1'],
      group: ['g1', 'g2'],
      fault429Rate: '0.5',
      faultRetryAfter: '3',
      fault5xxRate: '0.1',
      faultDropRate: '0',
      faultCutBodyRate: '0.2',
      latencyMs: '5',
      lateEventsSeconds: '90',
      rateLimitPerMinute: '100',
      malformedRate: '0.01',
    });
    expect(options).toMatchObject({
      port: 0,
      seed: 1,
      orgs: ['o1'],
      groups: ['g1', 'g2'],
      eventsPerScope: 10,
      days: 1,
      nonceTtlSeconds: 60,
      faults: {
        rate429: 0.5,
        retryAfterSeconds: 3,
        rate5xx: 0.1,
        dropRate: 0,
        cutBodyRate: 0.2,
        latencyMs: 5,
        lateEventsMaxSeconds: 90,
        rateLimitPerMinute: 100,
        malformedRate: 0.01,
      },
    });
    expect(emulatorOptionsFromFlags(base).orgs).toBeUndefined();
  });

  it('refuses bad values with a UsageError naming the flag', () => {
    expect(() => emulatorOptionsFromFlags({ ...base, port: '70000' })).toThrow(UsageError);
    expect(() => emulatorOptionsFromFlags({ ...base, fault429Rate: '2' })).toThrow(/--fault-429-rate/);
    expect(() => emulatorOptionsFromFlags({ ...base, eventsPerScope: 'many' })).toThrow(/--events-per-scope/);
    expect(() => emulatorOptionsFromFlags({ ...base, group: ['bad id'] })).toThrow(/--group/);
    expect(() => emulatorOptionsFromFlags({ ...base, nonceTtlSeconds: '0' })).toThrow(/--nonce-ttl-seconds/);
  });
});
