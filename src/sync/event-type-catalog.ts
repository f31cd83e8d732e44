/**
 * Reads Atlas v2's event type catalogue (`GET /eventTypes`) into `event_type_catalog`: at the
 * start of `sync` and of each worker, then daily. Only atlas-v2 sources have one; with several, a
 * base URL is read once and the catalogues are merged (a type one of them lists is listed). A
 * read that fails writes nothing (a partial catalogue would report listed types as gone), and so
 * does a source that answers with no types at all: an empty catalogue is far likelier a fault of
 * the service than every type leaving at once, so it is taken as an incomplete read.
 */
import { apiSourceOf, type Config } from '../config.js';
import { DEFAULT_CREDENTIAL } from '../credentials.js';
import { errorMessage } from '../errors.js';
import type { CatalogType } from '../api/event-types.js';
import type { ApiClients } from '../api/clients.js';
import type { Logger } from '../logger.js';
import type { Warehouse } from '../warehouse/database.js';
import { catalogDifferences, recordCatalog, type CatalogChanges } from '../warehouse/event-type-catalog.repository.js';

/** How often a running sync or worker reads the catalogue again. */
export const CATALOG_REFRESH_MS = 24 * 3600_000;
/** After a failed read, the next try. */
export const CATALOG_RETRY_MS = 3600_000;

const SHOWN = 10;

const EMPTY_CATALOG = 'the service listed no event types: an empty catalogue is not taken as complete (the types known stay listed)';

function listed(names: readonly string[]): string {
  return names.length > SHOWN ? `${names.slice(0, SHOWN).join(', ')} and ${names.length - SHOWN} more` : names.join(', ');
}

/**
 * The credentials (DEFAULT_CREDENTIAL for the default key pair) whose source speaks atlas-v2, one
 * per base URL; `used`, when given, keeps to the credentials the scopes name.
 */
export function catalogSources(config: Config, used?: ReadonlyArray<string | undefined>): string[] {
  const wanted = used ? new Set(used.map((name) => name ?? DEFAULT_CREDENTIAL)) : undefined;
  const candidates: Array<[string, ReturnType<typeof apiSourceOf>]> = [];
  if (config.api.publicKey && config.api.privateKey) candidates.push([DEFAULT_CREDENTIAL, apiSourceOf(config.api)]);
  for (const credential of Object.values(config.credentials)) candidates.push([credential.name, apiSourceOf(config.api, credential)]);
  const byUrl = new Map<string, string>();
  for (const [name, source] of candidates) {
    if (source.dialect !== 'atlas-v2' || (wanted && !wanted.has(name))) continue;
    if (!byUrl.has(source.baseUrl)) byUrl.set(source.baseUrl, name);
  }
  return [...byUrl.values()];
}

export interface CatalogRefresh {
  readonly clients: ApiClients;
  readonly warehouse: Warehouse;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly signal?: AbortSignal;
}

/** Reads every source's catalogue and records the merged one; undefined when there is no source. Throws when a read fails. */
export async function refreshEventTypeCatalog(ctx: CatalogRefresh, credentials: readonly string[]): Promise<CatalogChanges | undefined> {
  if (credentials.length === 0) return undefined;
  const merged = new Map<string, CatalogType>();
  for (const credential of credentials) {
    const entries = await ctx.clients.for(credential).listEventTypes(ctx.signal);
    if (entries.length === 0) throw new Error(EMPTY_CATALOG);
    for (const entry of entries) {
      if (!merged.has(entry.type)) merged.set(entry.type, entry);
    }
  }
  const now = ctx.now();
  const changes = await recordCatalog(ctx.warehouse.db, [...merged.values()], now);
  const parts = [
    ...(changes.first ? [] : changes.added.length > 0 ? [`${changes.added.length} new: ${listed(changes.added)}`] : []),
    ...(changes.returned.length > 0 ? [`${changes.returned.length} listed again: ${listed(changes.returned)}`] : []),
  ];
  ctx.logger.info(
    { types: merged.size, added: changes.added.length, gone: changes.gone, returned: changes.returned },
    `event type catalogue read: ${merged.size} types${parts.length > 0 ? ` (${parts.join('; ')})` : ''}`,
  );
  if (changes.gone.length > 0) {
    ctx.logger.info(
      { eventTypesLeftCatalog: changes.gone },
      `schema change: ${changes.gone.length} event type(s) left the event type catalogue: ${listed(changes.gone)} (the events held keep them; see status --schema-changes)`,
    );
  }
  const unlisted = (await catalogDifferences(ctx.warehouse.db, now)).filter((d) => d.kind === 'not_in_catalog').map((d) => d.eventTypeName);
  if (unlisted.length > 0) {
    ctx.logger.info(
      { eventTypesNotInCatalog: unlisted },
      `schema change: ${unlisted.length} event type(s) the feed sent are not in the event type catalogue: ${listed(unlisted.sort())} (kept as received; see status --schema-changes)`,
    );
  }
  return changes;
}

/** As refreshEventTypeCatalog, but a failure is a warning line (the mirror goes on without it). */
export async function tryRefreshEventTypeCatalog(ctx: CatalogRefresh, credentials: readonly string[]): Promise<boolean> {
  try {
    await refreshEventTypeCatalog(ctx, credentials);
    return true;
  } catch (error) {
    ctx.signal?.throwIfAborted();
    ctx.logger.warn(
      { err: { message: errorMessage(error) } },
      `the event type catalogue could not be read (tried again in an hour; events are mirrored meanwhile): ${errorMessage(error)}`,
    );
    return false;
  }
}

/** A running process's schedule: now, then daily, an hour after a failed read. Returns the stop. */
export function scheduleCatalogRefresh(ctx: CatalogRefresh, credentials: readonly string[]): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = async () => {
    const ok = await tryRefreshEventTypeCatalog(ctx, credentials).catch(() => false);
    if (stopped) return;
    timer = setTimeout(() => void run(), ok ? CATALOG_REFRESH_MS : CATALOG_RETRY_MS);
    timer.unref();
  };
  if (credentials.length > 0) void run();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
