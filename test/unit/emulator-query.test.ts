import { describe, expect, it } from 'vitest';
import { EmulatorHttpError } from '../../src/emulator/errors.js';
import { listLinks, parseListParams } from '../../src/emulator/query.js';

const parse = (query: string) => parseListParams(new URLSearchParams(query));

function codeOf(query: string): string | undefined {
  try {
    parse(query);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(EmulatorHttpError);
    const http = error as EmulatorHttpError;
    expect(http.body()).toEqual({
      detail: expect.any(String),
      error: 400,
      errorCode: http.errorCode,
      parameters: expect.any(Array),
      reason: 'Bad Request',
    });
    return http.errorCode;
  }
}

describe('parseListParams', () => {
  it('applies the documented defaults', () => {
    expect(parse('')).toEqual({
      eventTypes: undefined,
      includeRaw: false,
      minSec: undefined,
      maxSec: undefined,
      pageNum: 1,
      itemsPerPage: 100,
      pretty: false,
      includeCount: true,
    });
  });

  it('reads repeated eventType, booleans in any case, inclusive dates and paging', () => {
    expect(
      parse(
        'eventType=A_B&eventType=C&includeRaw=TRUE&pretty=false&minDate=2026-11-01&maxDate=2026-11-01T00:00:05Z&pageNum=3&itemsPerPage=500',
      ),
    ).toEqual({
      eventTypes: ['A_B', 'C'],
      includeRaw: true,
      pretty: false,
      pageNum: 3,
      itemsPerPage: 500,
      minSec: Date.UTC(2026, 10, 1) / 1000,
      maxSec: Date.UTC(2026, 10, 1) / 1000 + 5,
      includeCount: true,
    });
    expect(parse('minDate=2026-11-01T02:00:00%2B02:00').minSec).toBe(Date.UTC(2026, 10, 1) / 1000);
  });

  it('refuses bad values with the service error codes', () => {
    expect(codeOf('itemsPerPage=501')).toBe('INVALID_QUERY_PARAMETER');
    expect(codeOf('itemsPerPage=0')).toBe('INVALID_QUERY_PARAMETER');
    expect(codeOf('itemsPerPage=1.5')).toBe('INVALID_QUERY_PARAMETER');
    expect(codeOf('itemsPerPage=')).toBe('INVALID_QUERY_PARAMETER');
    expect(codeOf('pageNum=0')).toBe('INVALID_QUERY_PARAMETER');
    expect(codeOf('pageNum=-1')).toBe('INVALID_QUERY_PARAMETER');
    expect(codeOf('includeRaw=yes')).toBe('INVALID_QUERY_PARAMETER');
    expect(codeOf('pretty=1')).toBe('INVALID_QUERY_PARAMETER');
    expect(codeOf('minDate=yesterday')).toBe('INVALID_DATE_FORMAT');
    expect(codeOf('maxDate=2026-02-30T00:00:00Z')).toBe('INVALID_DATE_FORMAT');
    expect(codeOf('minDate=2026-11-01T00:00:00.250Z')).toBe('FRACTIONAL_TIMESTAMP');
    expect(codeOf('minDate=2026-11-02T00:00:00Z&maxDate=2026-11-01T23:59:59Z')).toBe('INVALID_DATE_RANGE');
    expect(codeOf('eventType=data_explorer')).toBe('INVALID_ENUM_VALUE');
    expect(codeOf('minDate=2026-11-01T00:00:00Z&maxDate=2026-11-01T00:00:00Z')).toBeUndefined();
  });
});

describe('listLinks', () => {
  const url = 'http://h/api/public/v1.0/groups/g/events';

  it('keeps every query parameter and sets pageNum and itemsPerPage; next only when more pages exist', () => {
    const search = new URLSearchParams('eventType=A&pretty=true&pageNum=2&eventType=B&minDate=2026-11-01T00:00:00Z');
    const links = listLinks(url, search, { ...parseListParams(search) }, 250);
    expect(links).toEqual([
      { rel: 'previous', href: `${url}?eventType=A&pretty=true&pageNum=1&eventType=B&minDate=2026-11-01T00%3A00%3A00Z&itemsPerPage=100` },
      { rel: 'self', href: `${url}?eventType=A&pretty=true&pageNum=2&eventType=B&minDate=2026-11-01T00%3A00%3A00Z&itemsPerPage=100` },
      { rel: 'next', href: `${url}?eventType=A&pretty=true&pageNum=3&eventType=B&minDate=2026-11-01T00%3A00%3A00Z&itemsPerPage=100` },
    ]);
    expect(listLinks(url, new URLSearchParams('pageNum=3'), parse('pageNum=3'), 250).map((l) => l.rel)).toEqual(['previous', 'self']);
    expect(listLinks(url, new URLSearchParams(''), parse(''), 100).map((l) => l.rel)).toEqual(['self']);
  });
});
