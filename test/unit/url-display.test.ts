import { describe, expect, it } from 'vitest';
import { maskUrl, urlLocation } from '../../src/url-display.js';

describe('maskUrl', () => {
  it.each([
    ['postgres://u:pw@db:5432/w', 'postgres://u:****@db:5432/w'],
    ['postgres://db/w?sslmode=require&application_name=mirror', 'postgres://db/w?sslmode=require&application_name=mirror'],
    ['postgres://db/w?password=pw&sslpassword=k&options=-c%20x', 'postgres://db/w?password=****&sslpassword=****&options=****'],
    ['redis://:pw@r:6379/0?db=1&Password=x', 'redis://:****@r:6379/0?db=1&Password=****'],
    ['https://h/api/public/v1.0?access_token=t#id_token=u', 'https://h/api/public/v1.0?access_token=****#****'],
    ['https://h/api?flag', 'https://h/api?flag='],
    ['proxy-user:pw@proxy:3128', 'proxy-user:****@proxy:3128'],
    ['http://[not a url', '(hidden: not a valid URL)'],
    ['org:5f00, group:6a00', 'org:5f00, group:6a00'],
  ])('%s → %s', (text, shown) => {
    expect(maskUrl(text)).toBe(shown);
  });
});

describe('urlLocation', () => {
  it('keeps the scheme, host and path only', () => {
    expect(urlLocation('postgresql://u:pw@db:5432/w?password=x#y', '?')).toBe('postgresql://db:5432/w');
    expect(urlLocation('postgres:///w?host=/var/run/postgresql', '?')).toBe('postgres://localhost/w');
    expect(urlLocation('redis://:pw@r:6379/?password=x', '?')).toBe('redis://r:6379');
    expect(urlLocation('not a url', 'fallback')).toBe('fallback');
  });
});
