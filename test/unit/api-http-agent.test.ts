import { rootCertificates } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { buildTlsOptions, planDispatcher } from '../../src/api/http-agent.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('http agent options', () => {
  it('adds the CA file to the Node roots and keeps verification on', () => {
    const tls = buildTlsOptions({ caFile: '/etc/ca.pem' }, (file) => (file === '/etc/ca.pem' ? PEM : ''));
    expect(tls.ca).toHaveLength(rootCertificates.length + 1);
    expect(tls.ca?.at(-1)).toBe(PEM);
    expect(tls.rejectUnauthorized).toBeUndefined();
  });

  it('turns verification off only when asked', () => {
    expect(buildTlsOptions({})).toEqual({});
    expect(buildTlsOptions({ insecureSkipTlsVerify: true })).toEqual({ rejectUnauthorized: false });
  });

  it('names the file when it cannot be read or holds no certificate', () => {
    expect(() =>
      buildTlsOptions({ caFile: '/nope.pem' }, () => {
        throw new Error('ENOENT');
      }),
    ).toThrow(/EVENTS_API_CA_FILE \/nope\.pem cannot be read/);
    expect(() => buildTlsOptions({ caFile: '/x.pem' }, () => 'junk')).toThrow(/holds no PEM certificate/);
  });

  it('uses a plain agent without a proxy, and explicit proxy settings otherwise', () => {
    const direct = planDispatcher({ requestTimeoutMs: 1234 }, {});
    expect(direct.kind).toBe('agent');
    expect(direct.options).toMatchObject({ headersTimeout: 1234, bodyTimeout: 1234, connect: { timeout: 1234 } });
    const proxied = planDispatcher({ httpsProxy: 'http://proxy:3128' }, { rejectUnauthorized: false });
    expect(proxied).toMatchObject({
      kind: 'proxy',
      options: { httpsProxy: 'http://proxy:3128', httpProxy: '', noProxy: '', requestTls: { rejectUnauthorized: false } },
    });
  });
});
