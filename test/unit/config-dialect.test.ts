import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acceptHeader, inferDialect } from '../../src/api-dialect.js';
import { apiSourceOf, loadConfig } from '../../src/config.js';

const emptyDir = () => mkdtempSync(path.join(tmpdir(), 'em-config-'));
const load = (env: Record<string, string>, overrides = {}) => loadConfig({ env, configDir: emptyDir(), overrides });

describe('the API dialect of a source', () => {
  it('is v1 by default and atlas-v2 for a base URL ending in /api/atlas/v2', () => {
    expect(inferDialect('https://cloud.mongodb.com/api/public/v1.0')).toBe('v1');
    expect(inferDialect('https://cloud.mongodb.com/api/atlas/v1.0')).toBe('v1');
    expect(inferDialect('https://cloud.mongodb.com/api/atlas/v2')).toBe('atlas-v2');
    expect(inferDialect('https://cloud.mongodb.com/api/atlas/v2/')).toBe('atlas-v2');
    const config = load({});
    expect(apiSourceOf(config.api)).toMatchObject({ dialect: 'v1', version: '2023-01-01' });
    expect(apiSourceOf(load({ EVENTS_API_BASE_URL: 'https://cloud.mongodb.com/api/atlas/v2' }).api).dialect).toBe('atlas-v2');
  });

  it('is set with EVENTS_API_DIALECT / EVENTS_API_VERSION, and a dialect that does not fit its URL is refused', () => {
    const config = load({
      EVENTS_API_DIALECT: 'atlas-v2',
      EVENTS_API_BASE_URL: 'https://gw.example.com/atlas',
      EVENTS_API_VERSION: '2024-08-05',
    });
    expect(apiSourceOf(config.api)).toMatchObject({ dialect: 'atlas-v2', version: '2024-08-05' });
    expect(() => load({ EVENTS_API_DIALECT: 'atlas-v2' })).toThrow(/api\.dialect \(EVENTS_API_DIALECT\): dialect atlas-v2 does not fit/);
    expect(() => load({ EVENTS_API_DIALECT: 'v3' })).toThrow(/api\.dialect \(EVENTS_API_DIALECT\)/);
    expect(() => load({ EVENTS_API_VERSION: '2023' })).toThrow(/api\.version \(EVENTS_API_VERSION\): expected a resource version date/);
  });

  it('is per credential: its own base URL, dialect and version, else api’s', () => {
    const config = load(
      { ATLAS_KEY: 'secret-1' },
      {
        credentials: {
          atlas: { publicKey: 'p', privateKeyEnv: 'ATLAS_KEY', baseUrl: 'https://cloud.mongodb.com/api/atlas/v2', version: '2023-01-01' },
          cloud: { publicKey: 'q', privateKeyEnv: 'ATLAS_KEY' },
        },
      },
    );
    expect(apiSourceOf(config.api, config.credentials.atlas)).toMatchObject({
      dialect: 'atlas-v2',
      versionKey: 'credentials.atlas.version',
    });
    expect(apiSourceOf(config.api, config.credentials.cloud)).toMatchObject({ dialect: 'v1', baseUrl: config.api.baseUrl });
  });

  it('sends the versioned media type on atlas-v2 only', () => {
    expect(acceptHeader('atlas-v2', '2023-01-01')).toBe('application/vnd.atlas.2023-01-01+json');
    expect(acceptHeader('v1', '2023-01-01')).toBe('application/json');
  });
});
