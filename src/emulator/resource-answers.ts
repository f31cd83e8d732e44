/**
 * The emulator's answers other than the events feed, as bodies for server.ts to send: an
 * organization's projects (`GET /orgs/{orgId}/groups`), one project (`GET /groups/{groupId}`) and
 * Atlas v2's event type catalogue (`GET /eventTypes`). Paths are below the dialect's prefix.
 */
import type { Dataset } from './dataset.js';
import { cannotAccessGroup, cannotAccessOrg, groupNotFound, orgNotFound } from './errors.js';
import type { EventTypeCatalog } from './event-type-catalog.js';
import { canReadGroup, canReadOrg, type ApiKeyGrant } from './keys.js';
import { projectDocument } from './projects.js';
import { listLinks, parsePageParams } from './query.js';

const ORG_PROJECTS_ROUTE = /^\/orgs\/([^/]+)\/groups\/?$/;
const PROJECT_ROUTE = /^\/groups\/([^/]+)\/?$/;
const EVENT_TYPES_ROUTE = /^\/eventTypes\/?$/;

export interface ProjectsAnswer {
  /** The scope whose budget and faults the request counts against. */
  scope: string;
  body: object;
  /** A list (with links and results) rather than one document. */
  list: boolean;
}

/** The projects resources, or undefined for any other path; errors thrown as the service's. */
export function projectsAnswer(
  dataset: Dataset,
  key: ApiKeyGrant,
  path: string,
  listBase: string,
  search: URLSearchParams,
): ProjectsAnswer | undefined {
  const list = ORG_PROJECTS_ROUTE.exec(path);
  if (list) {
    const orgId = decodeURIComponent(list[1] as string);
    if (!dataset.hasScope(`org:${orgId}`)) throw orgNotFound(orgId);
    if (!canReadOrg(key, orgId)) throw cannotAccessOrg(orgId);
    const params = parsePageParams(search);
    const all = dataset.projectsOf(orgId);
    const page = all.slice((params.pageNum - 1) * params.itemsPerPage, params.pageNum * params.itemsPerPage);
    const body: Record<string, unknown> = {
      links: listLinks(`${listBase}/orgs/${orgId}/groups`, search, params, all.length),
      results: page.map((project) => projectDocument(project, dataset.baseUrl)),
      ...(params.includeCount ? { totalCount: all.length } : {}),
    };
    return { scope: `org:${orgId}`, body, list: true };
  }
  const one = PROJECT_ROUTE.exec(path);
  if (!one) return undefined;
  const groupId = decodeURIComponent(one[1] as string);
  const project = dataset.project(groupId);
  if (!project) throw groupNotFound(groupId);
  if (!canReadGroup(key, groupId, project.orgId)) throw cannotAccessGroup(groupId);
  return { scope: `group:${groupId}`, body: projectDocument(project, dataset.baseUrl), list: false };
}

/** Atlas v2's event type catalogue, a page of it, or undefined for any other path. */
export function eventTypesAnswer(catalog: EventTypeCatalog, path: string, listBase: string, search: URLSearchParams): object | undefined {
  if (!EVENT_TYPES_ROUTE.test(path)) return undefined;
  const params = parsePageParams(search);
  const all = catalog.all();
  return {
    links: listLinks(`${listBase}/eventTypes`, search, params, all.length),
    results: all.slice((params.pageNum - 1) * params.itemsPerPage, params.pageNum * params.itemsPerPage),
    ...(params.includeCount ? { totalCount: all.length } : {}),
  };
}
