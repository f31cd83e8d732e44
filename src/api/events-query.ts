/**
 * The request target for one page of a scope's events, relative to the base URL. Pure.
 */
import { PermanentError } from '../errors.js';
import { eventsPath, type Scope } from '../scope.js';
import { formatApiDate } from '../time.js';

export const MAX_ITEMS_PER_PAGE = 500;

export interface EventsQuery {
  minDate?: Date;
  maxDate?: Date;
  eventTypes?: readonly string[];
  includeRaw?: boolean;
  pageNum?: number;
  itemsPerPage?: number;
  /** Ask for the envelope form (`envelope=true`); the client parses both forms. */
  envelope?: boolean;
  /** Atlas v2: whether to ask for `totalCount` (sent as includeCount=true/false); absent: not sent. */
  includeCount?: boolean;
  /** Atlas v2, project feeds: types left out (`excludedEventType`, repeated). */
  excludedEventTypes?: readonly string[];
  /** Atlas v2, project feeds: only these clusters' events (`clusterNames`, repeated). */
  clusterNames?: readonly string[];
  /** Atlas v2: a page that times out counting may be asked again without the count (never sent). */
  countOptional?: boolean;
}

/** `/groups/abc/events?pageNum=1&itemsPerPage=500&minDate=…&maxDate=…&eventType=A&eventType=B` */
export function buildEventsTarget(scope: Scope, query: EventsQuery, defaultItemsPerPage: number): string {
  const pageNum = query.pageNum ?? 1;
  const itemsPerPage = query.itemsPerPage ?? defaultItemsPerPage;
  if (!Number.isInteger(pageNum) || pageNum < 1) {
    throw new PermanentError('INVALID_QUERY', `pageNum ${pageNum} for ${scope.key}: expected a whole number from 1`);
  }
  if (!Number.isInteger(itemsPerPage) || itemsPerPage < 1 || itemsPerPage > MAX_ITEMS_PER_PAGE) {
    throw new PermanentError(
      'INVALID_QUERY',
      `itemsPerPage ${itemsPerPage} for ${scope.key}: expected a whole number from 1 to ${MAX_ITEMS_PER_PAGE}`,
    );
  }
  const params: Array<[string, string]> = [];
  params.push(['pageNum', String(pageNum)]);
  params.push(['itemsPerPage', String(itemsPerPage)]);
  for (const [name, date] of [
    ['minDate', query.minDate],
    ['maxDate', query.maxDate],
  ] as const) {
    if (date === undefined) continue;
    if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
      // A silently dropped bad date once pulled 11 million events: refuse instead.
      throw new PermanentError('INVALID_QUERY', `${name} for ${scope.key} is not a valid date`);
    }
    params.push([name, formatApiDate(date)]);
  }
  for (const eventType of query.eventTypes ?? []) params.push(['eventType', eventType]);
  for (const eventType of query.excludedEventTypes ?? []) params.push(['excludedEventType', eventType]);
  for (const cluster of query.clusterNames ?? []) params.push(['clusterNames', cluster]);
  if (query.includeCount !== undefined) params.push(['includeCount', String(query.includeCount)]);
  if (query.includeRaw === true) params.push(['includeRaw', 'true']);
  if (query.envelope === true) params.push(['envelope', 'true']);
  // Colons stay literal so dates read as sent: minDate=2026-11-01T00:00:00Z.
  const encode = (text: string): string => encodeURIComponent(text).replace(/%3A/gi, ':');
  return `${eventsPath(scope)}?${params.map(([name, value]) => `${name}=${encode(value)}`).join('&')}`;
}
