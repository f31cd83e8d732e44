/**
 * Query parameters of the list and single-event endpoints, validated the way the service does
 * (bad values are 400s, never silently ignored), and the list's `links`. Pure; no I/O.
 */
import type { ApiLink } from '../events/types.js';
import { parseIsoDate } from '../time.js';
import { fractionalTimestamp, invalidDateFormat, invalidDateRange, invalidEnumValue, invalidParameter } from './errors.js';

export const DEFAULT_ITEMS_PER_PAGE = 100;
export const MAX_ITEMS_PER_PAGE = 500;

export interface ListParams {
  /** undefined: all types. */
  eventTypes?: string[];
  includeRaw: boolean;
  minSec?: number;
  maxSec?: number;
  pageNum: number;
  itemsPerPage: number;
  pretty: boolean;
  /** Atlas v2 (project feed): types left out. */
  excludedEventTypes?: string[];
  /** Atlas v2 (project feed): only events of these clusters. */
  clusterNames?: string[];
  /** Atlas v2: whether to count (default true); v1 always counts. */
  includeCount: boolean;
}

const EVENT_TYPE_NAME = /^[A-Z][A-Z0-9_]*$/;
const FRACTION = /T\d{2}:\d{2}:\d{2}[.,]\d/;

/** A boolean parameter: absent gives `fallback`; only true/false (any case) are accepted. */
export function booleanParam(search: URLSearchParams, name: string, fallback = false): boolean {
  const value = search.get(name);
  if (value === null) return fallback;
  const lower = value.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw invalidParameter(name, value, 'expected true or false');
}

function intParam(search: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const value = search.get(name);
  if (value === null) return fallback;
  const number = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw invalidParameter(name, value, `expected an integer from ${min} to ${max}`);
  }
  return number;
}

function dateParam(search: URLSearchParams, name: string): number | undefined {
  const value = search.get(name);
  if (value === null) return undefined;
  const date = parseIsoDate(value);
  if (!date) throw invalidDateFormat(name, value);
  if (FRACTION.test(value)) throw fractionalTimestamp(name, value);
  return Math.floor(date.getTime() / 1000);
}

export function parseListParams(search: URLSearchParams): ListParams {
  const eventTypes = search.getAll('eventType');
  for (const name of eventTypes) if (!EVENT_TYPE_NAME.test(name)) throw invalidEnumValue('eventType', name);
  const excludedEventTypes = search.getAll('excludedEventType');
  for (const name of excludedEventTypes) if (!EVENT_TYPE_NAME.test(name)) throw invalidEnumValue('excludedEventType', name);
  const clusterNames = search.getAll('clusterNames');
  const minSec = dateParam(search, 'minDate');
  const maxSec = dateParam(search, 'maxDate');
  if (minSec !== undefined && maxSec !== undefined && maxSec < minSec) {
    throw invalidDateRange(search.get('minDate') ?? '', search.get('maxDate') ?? '');
  }
  return {
    eventTypes: eventTypes.length > 0 ? eventTypes : undefined,
    ...(excludedEventTypes.length > 0 ? { excludedEventTypes } : {}),
    ...(clusterNames.length > 0 ? { clusterNames } : {}),
    includeCount: booleanParam(search, 'includeCount', true),
    includeRaw: booleanParam(search, 'includeRaw'),
    minSec,
    maxSec,
    pageNum: intParam(search, 'pageNum', 1, 1, Number.MAX_SAFE_INTEGER),
    itemsPerPage: intParam(search, 'itemsPerPage', DEFAULT_ITEMS_PER_PAGE, 1, MAX_ITEMS_PER_PAGE),
    pretty: booleanParam(search, 'pretty'),
  };
}

/** pageNum and itemsPerPage of a list that takes no other filter (the projects of an organization). */
export function parsePageParams(search: URLSearchParams): Pick<ListParams, 'pageNum' | 'itemsPerPage' | 'includeCount'> {
  return {
    includeCount: booleanParam(search, 'includeCount', true),
    pageNum: intParam(search, 'pageNum', 1, 1, Number.MAX_SAFE_INTEGER),
    itemsPerPage: intParam(search, 'itemsPerPage', DEFAULT_ITEMS_PER_PAGE, 1, MAX_ITEMS_PER_PAGE),
  };
}

/**
 * `self`, `next` (more pages) and `previous` (after page 1). Each href keeps every query parameter
 * of the request, with pageNum and itemsPerPage set for that page.
 */
export function listLinks(
  listUrl: string,
  search: URLSearchParams,
  params: Pick<ListParams, 'pageNum' | 'itemsPerPage'>,
  totalCount: number,
): ApiLink[] {
  const href = (pageNum: number): string => {
    const copy = new URLSearchParams(search);
    copy.set('pageNum', String(pageNum));
    copy.set('itemsPerPage', String(params.itemsPerPage));
    return `${listUrl}?${copy.toString()}`;
  };
  const links: ApiLink[] = [];
  if (params.pageNum > 1) links.push({ href: href(params.pageNum - 1), rel: 'previous' });
  links.push({ href: href(params.pageNum), rel: 'self' });
  if (params.pageNum * params.itemsPerPage < totalCount) links.push({ href: href(params.pageNum + 1), rel: 'next' });
  return links;
}
