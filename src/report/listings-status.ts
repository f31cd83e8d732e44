/**
 * The project-listing lines of `status`: for each organization that discovers its projects, when
 * its listing last succeeded and, above all, whether it fails (its projects added or removed since
 * are not seen, however many they are).
 */
import type { KnownScope } from '../warehouse/scopes.repository.js';
import { formatTimestamp } from '../time.js';
import { renderTable } from './table.js';

export function renderListings(known: readonly KnownScope[]): string {
  const orgs = known.filter((k) => k.listing.listedAt !== null || k.listing.failures > 0);
  if (orgs.length === 0) return '';
  const projectsOf = new Map<string, number>();
  for (const k of known) {
    if (k.discoveredBy && k.origin === 'discovered' && !k.removedAt)
      projectsOf.set(k.discoveredBy, (projectsOf.get(k.discoveredBy) ?? 0) + 1);
  }
  const failing = orgs.filter((o) => o.listing.failures > 0);
  const heading = failing.length
    ? `\nproject listings: ${failing.length} of ${orgs.length} FAILING (their projects added or removed since are not seen)`
    : `\nproject listings: ${orgs.length} ok`;
  const rows = orgs.map((o) => [
    o.scope,
    o.listing.failures > 0 ? `failing (${o.listing.failures} in a row since ${formatTimestamp(o.listing.failedAt)})` : 'ok',
    formatTimestamp(o.listing.listedAt),
    projectsOf.get(o.scope) ?? 0,
    o.listing.failures > 0 ? (o.listing.error ?? '-') : '-',
  ]);
  return `${heading}\n${renderTable(['organization', 'listing', 'last listed', 'projects polled', 'error'], rows)}`;
}
