/**
 * A scope's excludeEventTypes and clusterNames (Atlas v2 project feeds): accepted on a group: scope
 * read through an atlas-v2 source, refused at start on an org: scope or a v1 source; sent as the
 * feed's parameters; recorded by the checkpoint, where a widening reads history again.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildEventsTarget } from '../../src/api/events-query.js';
import { loadConfig, type ConfigInput } from '../../src/config.js';
import { pollJobData, settingsFromJob } from '../../src/queue/queues.js';
import { checkpointSettingsOf, sameSettings, serverFiltersOf, widening } from '../../src/sync/checkpoint-settings.js';

const V2 = 'https://cloud.mongodb.com/api/atlas/v2';
const load = (overrides: ConfigInput, env: Record<string, string> = {}) =>
  loadConfig({ env: { ATLAS_KEY: 'secret-1', ...env }, configDir: mkdtempSync(path.join(tmpdir(), 'em-config-')), overrides });
const atlas = { atlas: { publicKey: 'p', privateKeyEnv: 'ATLAS_KEY', baseUrl: V2 } };

describe('excludeEventTypes and clusterNames', () => {
  it('are taken on an Atlas v2 project, sent as excludedEventType and clusterNames, and carried by jobs', () => {
    const config = load({
      credentials: atlas,
      scopes: [{ scope: 'group:abc', credential: 'atlas', excludeEventTypes: ['B_TYPE', 'A_TYPE'], clusterNames: ['Cluster0'] }],
    });
    const scope = config.scopes[0]!;
    expect(scope).toMatchObject({ excludeEventTypes: ['A_TYPE', 'B_TYPE'], clusterNames: ['Cluster0'] });
    const target = buildEventsTarget(scope.scope, { pageNum: 1, ...serverFiltersOf(scope) }, 500);
    expect(target).toBe(
      '/groups/abc/events?pageNum=1&itemsPerPage=500&excludedEventType=A_TYPE&excludedEventType=B_TYPE&clusterNames=Cluster0',
    );
    expect(settingsFromJob(pollJobData(scope))).toMatchObject({ excludeEventTypes: ['A_TYPE', 'B_TYPE'], clusterNames: ['Cluster0'] });
    // The default source on v2 takes them too.
    expect(load({ scopes: [{ scope: 'group:abc', clusterNames: ['c'] }] }, { EVENTS_API_BASE_URL: V2 }).scopes[0]!.clusterNames).toEqual([
      'c',
    ]);
  });

  it('are refused at start on an organization feed and on a v1 source, naming the scope and the fix', () => {
    expect(() => load({ credentials: atlas, scopes: [{ scope: 'org:o1', credential: 'atlas', excludeEventTypes: ['X'] }] })).toThrow(
      'scope org:o1: excludeEventTypes apply to Atlas v2 project feeds only (the organization feed has no such parameter): set them on group: entries, or list the types to read in eventTypes',
    );
    expect(() => load({ scopes: [{ scope: 'group:g1', excludeEventTypes: ['X'], clusterNames: ['c'] }] })).toThrow(
      'scope group:g1: excludeEventTypes and clusterNames need an atlas-v2 source (the v1 API has no such parameter)',
    );
    // Empty lists are no filter.
    expect(load({ scopes: [{ scope: 'org:o1', excludeEventTypes: [], clusterNames: [] }] }).scopes[0]).not.toHaveProperty('clusterNames');
  });

  it('are recorded by the checkpoint: a type no longer excluded or a cluster added reads history again, a narrowing does not', () => {
    const base = { scope: { kind: 'group', id: 'g', key: 'group:g' }, eventTypes: [], includeRaw: false, startDate: undefined } as const;
    const plain = checkpointSettingsOf(base);
    // A checkpoint made before these settings existed reads as the same settings.
    expect(sameSettings(plain, { eventTypes: [], includeRaw: false, startDate: null })).toBe(true);
    const filtered = checkpointSettingsOf({ ...base, excludeEventTypes: ['B', 'A'], clusterNames: ['c1'] });
    expect(filtered).toMatchObject({ excludeEventTypes: ['A', 'B'], clusterNames: ['c1'] });
    expect(widening(filtered, checkpointSettingsOf({ ...base, excludeEventTypes: ['A'], clusterNames: ['c1'] }))).toBe(
      'event types B are no longer excluded',
    );
    expect(widening(filtered, checkpointSettingsOf({ ...base, excludeEventTypes: ['A', 'B'], clusterNames: ['c1', 'c2'] }))).toBe(
      'clusters c2 were added',
    );
    expect(widening(filtered, plain)).toBe('event types A, B are no longer excluded; every cluster is now read (was only some)');
    expect(widening(plain, filtered)).toBeUndefined();
    expect(widening(filtered, checkpointSettingsOf({ ...base, excludeEventTypes: ['A', 'B', 'C'], clusterNames: ['c1'] }))).toBeUndefined();
  });
});
