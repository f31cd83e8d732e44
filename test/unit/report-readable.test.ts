/**
 * The HTML report's pure pieces that make it readable: human units, labels that stay distinct when
 * cut, bands chosen by count, time axes whose labels carry the date, figures against the period before.
 */
import { describe, expect, it } from 'vitest';
import { distinctNames, type ReportData } from '../../src/report/report-data.js';
import { reportSections } from '../../src/report/report-sections.js';
import { distinctLabels, shortenMiddle } from '../../src/report/shorten.js';
import { renderSchemaChanges } from '../../src/report/schema-changes.js';
import { change } from '../../src/report/summary-band.js';
import { daysOf, timeAxisFor } from '../../src/report/time-axis.js';
import { chooseTypeBands, OTHER_BAND } from '../../src/report/type-bands.js';
import { formatBytes, formatDurationWords, formatMetricValue, shortTimestamp } from '../../src/report/units.js';

describe('units', () => {
  it('bytes, durations and metric values as a person reads them', () => {
    expect(formatBytes(4742517045.45)).toBe('4.4 GB');
    expect(formatBytes(512)).toBe('512 bytes');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatDurationWords(12_000)).toBe('3 h 20 min');
    expect(formatDurationWords(45)).toBe('45 s');
    expect(formatDurationWords(7200)).toBe('2 h');
    expect(formatDurationWords(2 * 86_400 + 4 * 3600 + 60)).toBe('2 d 4 h');
    expect(formatMetricValue(4742517045.45, 'BYTES')).toBe('4.4 GB');
    expect(formatMetricValue(3.5, 'GIGABYTES')).toBe('3.5 GB');
    expect(formatMetricValue(71.09, 'HOURS')).toBe('2 d 23 h');
    expect(formatMetricValue(250, 'MILLISECONDS')).toBe('250 ms');
    expect(formatMetricValue(9647.62, 'RAW')).toBe('9,648');
    expect(formatMetricValue(47.18, 'RAW')).toBe('47.18');
    expect(shortTimestamp(new Date('2026-11-27T06:38:51Z'))).toBe('Nov 27 06:38');
  });
});

describe('labels cut to fit', () => {
  it('keep their start and distinguishing end, and never read the same', () => {
    const texts = [0, 1, 2].flatMap((shard) =>
      ['OPLOG_REPLICATION_LAG_TIME', 'NETWORK_THROUGHPUT'].map((m) => `events-archive-shard-00-0${shard} · ${m}`),
    );
    const labels = distinctLabels(texts, 30);
    expect(new Set(labels).size).toBe(texts.length);
    for (const label of labels) expect(label.length).toBeLessThanOrEqual(30);
    expect(labels[1]).toBe('events…00 · NETWORK_THROUGHPUT');
    expect(distinctLabels(['short', 'short'], 30)).toEqual(['short', 'short']);
    expect(shortenMiddle('abcdefghij', 5)).toBe('ab…ij');
  });

  it('a name two scopes share gets the end of each id', () => {
    expect(
      distinctNames([
        ['group:5fca0351da4a3a7c2c2fa071', 'Payments'],
        ['group:61ca55c2d635e1ba841dbe9f', 'Payments'],
        ['group:6141f6a3ca1211b7a2fb9461', 'Mobile Backend'],
      ]),
    ).toEqual(
      new Map([
        ['group:5fca0351da4a3a7c2c2fa071', 'Payments\u00a0(…\u20602fa071)'],
        ['group:61ca55c2d635e1ba841dbe9f', 'Payments\u00a0(…\u20601dbe9f)'],
        ['group:6141f6a3ca1211b7a2fb9461', 'Mobile Backend'],
      ]),
    );
  });
});

describe('events-per-day bands', () => {
  it('the largest groups until 90 % of events are covered; the rest as one band, smaller than those shown', () => {
    const rows = [
      { family: 'alert events', event_type_name: 'OUTSIDE_METRIC_THRESHOLD', events: 400 },
      { family: 'alert events', event_type_name: 'HOST_DOWN', events: 100 },
      { family: 'security changes', event_type_name: 'JOINED_ORG', events: 250 },
      { family: 'CLUSTER', event_type_name: 'CLUSTER_READY', events: 80 },
      { family: 'CLUSTER', event_type_name: 'CLUSTER_CREATED', events: 70 },
      { family: 'INVOICE', event_type_name: 'INVOICE_CLOSED', events: 60 },
      { family: 'CHARGE', event_type_name: 'CHARGE_FAILED', events: 40 },
    ].map((r) => ({ ...r, day: '2026-11-20' }));
    const bands = chooseTypeBands(rows);
    expect(bands.bands).toEqual(['alert events', 'security changes', 'CLUSTER_*', OTHER_BAND]);
    expect(bands.covered).toBe(0.9);
    expect(bands.otherTypes).toBe(2);
    const other = bands.rows.find((r) => r.band === OTHER_BAND)!.events;
    for (const r of bands.rows) if (r.band !== OTHER_BAND) expect(r.events).toBeGreaterThan(other);
  });
});

describe('day axes', () => {
  it('one label a day, the year added over a long period', () => {
    const period = { since: new Date('2026-11-20T07:34:00Z'), until: new Date('2026-11-27T07:34:00Z') };
    const days = daysOf(period);
    expect(days.map((d) => d.label)).toEqual(['Nov 20', 'Nov 21', 'Nov 22', 'Nov 23', 'Nov 24', 'Nov 25', 'Nov 26', 'Nov 27']);
    expect(days[0]!.day).toBe('2026-11-20');
    const year = daysOf({ since: new Date('2025-11-20T00:00:00Z'), until: new Date('2026-11-27T00:00:00Z') });
    expect(new Set(year.map((d) => d.label)).size).toBe(year.length);
    expect(year[0]!.label).toBe('Nov 20 2025');
  });
});

describe('time axes', () => {
  it('label each tick with its date, one tick a day or every few days, or every few hours with the date', () => {
    const since = new Date('2026-11-12T07:00:00Z');
    const days = (n: number) => ({ since, until: new Date(since.getTime() + n * 86_400_000) });
    // The alert chart's 480 px: room for 7 day labels or 4 with hours.
    expect(timeAxisFor(days(7), 480)).toMatchObject({ format: '%b %d', tickCount: { interval: 'day', step: 1 } });
    expect(timeAxisFor(days(14), 480)).toMatchObject({ format: '%b %d', tickCount: { interval: 'day', step: 2 } });
    expect(timeAxisFor(days(30), 480)).toMatchObject({ format: '%b %d', tickCount: { interval: 'week', step: 1 } });
    expect(timeAxisFor(days(400), 480)).toMatchObject({ format: '%b %Y', tickCount: { interval: 'month', step: 2 } });
    expect(timeAxisFor(days(2), 480)).toMatchObject({ format: '%b %d %H:%M', tickCount: { interval: 'hours', step: 12 } });
    expect(timeAxisFor(days(1), 480)).toMatchObject({ format: '%b %d %H:%M', tickCount: { interval: 'hours', step: 6 } });
  });
});

describe('figures against the period before', () => {
  it('says how much more or less', () => {
    expect(change(120, 100)).toBe('+20 %');
    expect(change(80, 100)).toBe('−20 %');
    expect(change(5, 5)).toBe('same');
    expect(change(5, 0)).toBe('new');
  });
});

describe('the lag chart', () => {
  const data = (lags: Array<[scope: string, seconds: number, failures: number]>): ReportData => ({
    filter: { since: new Date('2026-11-20T00:00:00Z'), until: new Date('2026-11-27T00:00:00Z'), scopes: [] },
    totals: { events: 0, scopes: 0, types: 0, alertEpisodes: 0 },
    summary: {
      current: { events: 0, alertsOpened: 0, alertsOpenAtEnd: 0, failedLogins: 0, securityChanges: 0 },
      previous: { events: 0, alertsOpened: 0, alertsOpenAtEnd: 0, failedLogins: 0, securityChanges: 0 },
      openAtEndOpenedBefore: 0,
      previousSince: new Date('2026-11-13T00:00:00Z'),
      previousHasData: false,
    },
    scopeNames: new Map([['group:5fca0351da4a3a7c2c2fa071', 'Payments']]),
    eventsPerDay: chooseTypeBands([]),
    dayTotals: [],
    alertEpisodes: [],
    topActors: [],
    securityPerDay: [],
    securityLatest: [],
    dataAccess: [],
    syncLag: lags.map(([scope, seconds, failures]) => ({
      scope,
      watermark: new Date('2026-11-27T00:00:00Z'),
      lag_seconds: seconds,
      last_success_at: null,
      consecutive_failures: failures,
      last_error: null,
    })),
  });
  const lag = (d: ReportData) => reportSections(d).find((s) => s.id === 'sync-lag')!;

  it('is left out, with a line saying why, when every scope is seconds behind and none failing', () => {
    const section = lag(
      data([
        ['group:5fca0351da4a3a7c2c2fa071', 4, 0],
        ['org:61221363cd1b984bce8e49f0', 3, 0],
      ]),
    );
    expect(section.chart).toBeUndefined();
    expect(section.noChart).toBe('No chart: every scope is 4 s or less behind and none is failing.');
  });

  it('is drawn, the project by its name, when a scope is hours behind or failing', () => {
    const behind = lag(
      data([
        ['group:5fca0351da4a3a7c2c2fa071', 3 * 3600, 0],
        ['org:61221363cd1b984bce8e49f0', 3, 0],
      ]),
    );
    expect(behind.chart?.chart.spec).toMatchObject({ data: { values: [{ scope: 'Payments', hours: 3 }, { hours: 0 }] } });
    expect(behind.chart?.chart.fullTexts?.get('Payments')).toBe('Payments (group:5fca0351da4a3a7c2c2fa071)');
    expect(lag(data([['org:61221363cd1b984bce8e49f0', 30, 2]])).chart).toBeDefined();
  });
});

describe('the report for a manager (issue 44, item 8)', () => {
  const base: ReportData = {
    filter: { since: new Date('2026-11-20T00:00:00Z'), until: new Date('2026-11-27T00:00:00Z'), scopes: [] },
    totals: { events: 5000, scopes: 1, types: 3, alertEpisodes: 320 },
    summary: {
      current: { events: 5000, alertsOpened: 320, alertsOpenAtEnd: 168, failedLogins: 0, securityChanges: 1 },
      previous: { events: 0, alertsOpened: 0, alertsOpenAtEnd: 0, failedLogins: 0, securityChanges: 0 },
      openAtEndOpenedBefore: 71,
      previousSince: new Date('2026-11-13T00:00:00Z'),
      previousHasData: false,
    },
    scopeNames: new Map(),
    eventsPerDay: chooseTypeBands([{ day: '2026-11-21', event_type_name: 'CLUSTER_CREATED', family: 'CLUSTER', events: 5000 }]),
    dayTotals: [{ day: '2026-11-21', events: 5000, top: 'CLUSTER_CREATED' }],
    eventTypes: [
      { event_type_name: 'CLUSTER_CREATED', events: 4000, description: null, in_catalog: null },
      { event_type_name: 'USER_CREATED', events: 1000, description: null, in_catalog: null },
    ],
    alertEpisodes: [],
    topActors: [
      { actor: 'woqusqv', actor_kind: 'api_key', events: 30 },
      { actor: 'hiro.wang@example.com', actor_kind: 'user', events: 20 },
    ],
    securityPerDay: [],
    securityLatest: [
      {
        created: new Date('2026-11-21T00:00:00Z'),
        scope: 'group:5fca0351da4a3a7c2c2fa071',
        event_type_name: 'API_KEY_CREATED',
        category: 'api key',
        action: 'created',
        actor: 'woqusqv',
        actor_kind: 'api_key',
        target: null,
        remote_address: null,
      },
    ],
    dataAccess: [],
    syncLag: [],
  } as unknown as ReportData;
  const section = (d: ReportData, id: string) => reportSections(d).find((s) => s.id === id)!;

  it('says the headline still-open figure counts alerts opened before the period too', () => {
    const note = section(base, 'alert-episodes').note;
    expect(note).toContain('320 alerts opened in the period, 97 of them still open at its end.');
    expect(note).toContain('71 alerts opened before the period are still open too: 168 still open in all, the figure at the top.');
  });

  it('shows the description column only when a type has a description', () => {
    const tables = (d: ReportData) => section(d, 'events-per-day').tables;
    expect(tables(base)).not.toContain('description');
    const described = { ...base, eventTypes: [{ ...base.eventTypes![0]!, description: 'A cluster was created.' }, base.eventTypes![1]!] };
    expect(tables(described)).toContain('<th>description</th>');
    expect(tables(described)).toContain('A cluster was created.');
  });

  it('says an API key is an API key wherever an actor is named', () => {
    expect(section(base, 'top-actors').tables).toMatch(/woqusqv<\/td><td[^>]*>API key</);
    expect(section(base, 'security-changes').tables).toContain('woqusqv (API key)');
    expect(section(base, 'security-changes').tables).not.toMatch(/>woqusqv</);
  });
});

describe('status --schema-changes within 80 columns (issue 44, item 7)', () => {
  it("puts each change's scope and first event under it, and a name too long for the line there too", () => {
    const at = new Date('2026-11-25T17:06:52Z');
    const change = (eventTypeName: string, field: string | null) => ({
      kind: field === null ? ('event_type' as const) : ('field' as const),
      eventTypeName,
      field,
      firstSeenAt: at,
      scope: 'group:60000000000000000000c0d1',
      firstEventId: '6b07158e7f7f561800000195',
    });
    const longName = 'SERVERLESS_INSTANCE_CONFIGURATION_MODIFIED_AUDIT';
    const text = renderSchemaChanges(
      {
        total: { eventTypes: 1, fields: 2 },
        latest: [change('CLUSTER_READY', 'diskSizeGB'), change(longName, 'backupRetentionDays'), change('STREAM_PROCESSOR_STARTED', null)],
        catalog: [
          {
            kind: 'not_in_catalog',
            eventTypeName: 'FEDERATION_SETTINGS_UPDATED',
            at,
            scope: 'org:61221363cd1b984bce8e49f0',
            firstEventId: null,
          },
        ],
      },
      7,
    );
    const lines = text.trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines).toContain('Nov 25 17:06  new field             CLUSTER_READY.diskSizeGB');
    expect(lines).toContain('    in group:60000000000000000000c0d1, first event 6b07158e7f7f561800000195');
    expect(text).toContain(`new field\n    ${longName}.backupRetentionDays,\n    in group:`);
  });
});
