/**
 * One organization's project listing made fit to record and poll: every project a `group:` scope
 * can hold, each id once. A listing is the service's word, and offset paging of an organization
 * that changes meanwhile lists a project twice; one odd item must not stop discovery. Pure; no I/O.
 */
import type { ListedProject } from '../api/client.js';
import { tryParseScope } from '../scope.js';

export interface CleanListing {
  /** In listing order, each id once (its first listing). */
  readonly projects: ListedProject[];
  /** Why each unusable item was skipped, naming it. */
  readonly skipped: string[];
  /** Listings of an id already listed, dropped. */
  readonly duplicates: number;
}

/** `skipped` holds the items the client already refused (listProjects' own `skipped`). */
export function cleanListing(orgKey: string, listed: readonly ListedProject[], skipped: readonly string[] = []): CleanListing {
  const byId = new Map<string, ListedProject>();
  const reasons = [...skipped];
  let duplicates = 0;
  for (const project of listed) {
    if (tryParseScope(`group:${project.id}`)?.id !== project.id) {
      reasons.push(`project ${JSON.stringify(project.id.slice(0, 80))} of ${orgKey} skipped: id is not a project id`);
    } else if (byId.has(project.id)) {
      duplicates += 1;
    } else {
      byId.set(project.id, project);
    }
  }
  return { projects: [...byId.values()], skipped: reasons, duplicates };
}
