/**
 * Pages through both endpoints with curl's own Digest implementation (spawned /usr/bin/curl),
 * a client this project did not write.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListEventsResponse } from '../../src/events/types.js';
import { parseIsoDate } from '../../src/time.js';
import { startTestEmulator, type RunningEmulator } from '../helpers/emulator.js';

const run = promisify(execFile);

interface CurlAnswer {
  status: number;
  headers: Map<string, string>;
  body: string;
  statuses: number[];
}

/** One curl run with --digest; returns the final response (curl -i prints the challenge too). */
async function curl(url: string, credentials: string): Promise<CurlAnswer> {
  const { stdout } = await run('/usr/bin/curl', ['-s', '-i', '--digest', '-u', credentials, '-H', 'Accept: application/json', url]);
  const blocks = stdout.split(/(?=^HTTP\/1\.1 \d{3})/m);
  const last = blocks.at(-1) as string;
  const [head, ...rest] = last.split('\r\n\r\n');
  const lines = (head as string).split('\r\n');
  const headers = new Map(
    lines.slice(1).map((line) => {
      const at = line.indexOf(':');
      return [line.slice(0, at).toLowerCase(), line.slice(at + 1).trim()] as [string, string];
    }),
  );
  return {
    status: Number((lines[0] as string).split(' ')[1]),
    headers,
    body: rest.join('\r\n\r\n'),
    statuses: blocks.map((block) => Number(block.split(' ')[1])),
  };
}

describe('emulator with curl --digest', () => {
  let emulator: RunningEmulator;
  let credentials: string;

  beforeAll(async () => {
    emulator = await startTestEmulator({ eventsPerScope: 230, faults: { malformedRate: 0.05 } });
    const key = emulator.keys[0];
    credentials = `${key?.publicKey}:${key?.privateKey}`;
  });
  afterAll(() => emulator.close());

  it('pages through the organization and a project feed by following next links', async () => {
    const [org, group] = emulator.dataset.scopes();
    for (const scope of [org as string, group as string]) {
      const [kind, id] = scope.split(':');
      let url: string | undefined =
        `${emulator.baseUrl}/${kind === 'org' ? 'orgs' : 'groups'}/${id}/events?itemsPerPage=100&minDate=2000-01-01T00:00:00Z`;
      const ids: Array<string | undefined> = [];
      const wellFormed = new Set<string>();
      let pages = 0;
      while (url) {
        const answer = await curl(url, credentials);
        expect(answer.statuses).toEqual([401, 200]);
        const body = JSON.parse(answer.body) as ListEventsResponse;
        expect(body.totalCount).toBe(230);
        ids.push(...body.results.map((event) => event.id));
        for (const event of body.results) if (event.id && parseIsoDate(String(event.created))) wellFormed.add(event.id);
        url = body.links.find((link) => link.rel === 'next')?.href;
        pages += 1;
      }
      expect(pages).toBe(3);
      expect(ids).toHaveLength(230);
      expect(ids.some((x) => x === undefined)).toBe(true); // malformed events are served too
      expect(wellFormed).toEqual(emulator.dataset.validIds(scope));
    }
  });

  it('answers a 200 with the service headers and a correct Content-Length', async () => {
    const group = (emulator.dataset.scopes()[1] as string).split(':')[1];
    const answer = await curl(`${emulator.baseUrl}/groups/${group}/events?itemsPerPage=5`, credentials);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-mongodb-service-version')).toMatch(/^gitHash=[0-9a-f]{40}; versionString=\S+$/);
    expect(answer.headers.get('strict-transport-security')).toBe('max-age=300');
    expect(answer.headers.get('vary')).toBe('Accept-Encoding');
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.headers.get('connection')).toBe('keep-alive');
    expect(Number.isNaN(Date.parse(answer.headers.get('date') ?? ''))).toBe(false);
    expect(Number(answer.headers.get('content-length'))).toBe(Buffer.byteLength(answer.body));
  });

  it('follows an event self link and refuses a wrong private key with the Digest challenge', async () => {
    const group = (emulator.dataset.scopes()[1] as string).split(':')[1];
    const page = JSON.parse(
      (await curl(`${emulator.baseUrl}/groups/${group}/events?itemsPerPage=1`, credentials)).body,
    ) as ListEventsResponse;
    const event = page.results[0];
    const self = await curl(event?.links?.[0]?.href as string, credentials);
    expect(self.status).toBe(200);
    expect(JSON.parse(self.body)).toEqual(event);

    const refused = await curl(`${emulator.baseUrl}/groups/${group}/events`, `${emulator.keys[0]?.publicKey}:wrong`);
    expect(refused.statuses).toEqual([401, 401]);
    expect(refused.headers.get('www-authenticate')).toMatch(
      /^Digest realm="MMS Public API", domain="", nonce="[^"]+", algorithm=MD5, qop="auth", stale=false$/,
    );
    expect(refused.headers.get('content-type')).toBe('application/json;charset=ISO-8859-1');
    expect(JSON.parse(refused.body)).toMatchObject({ error: 401, errorCode: 'UNAUTHORIZED' });
  });
});
