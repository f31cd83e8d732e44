/**
 * The emulator's data: one compact event store per scope (organization or project), generated
 * from a seed, plus the event type table. Events are materialized to JSON only for the page asked
 * for. Org and project feeds are disjoint: org events carry orgId, project events groupId.
 */
import type { ApiEvent } from '../events/types.js';
import { SLOTS as ALERT_SLOTS } from './alert-lifecycles.js';
import type { ScopeKind } from '../scope.js';
import { EVENT_TYPES, pickWeighted, weightedTypesFor, type WeightedTypes } from './event-types.js';
import { ScopeEventStore } from './event-store.js';
import { MALFORMED_BAD_CREATED, MALFORMED_NO_ID, WELL_FORMED, eventIdOf, materializeEvent, type EventRecord } from './generator.js';
import { Rng, hash32, hashString, hex8 } from './random.js';
import { buildWorld, type ScopeWorld, type WorldCluster } from './scope-world.js';

export interface DatasetOptions {
  seed: number;
  /** Organization ids; groups belong to the first. */
  orgs: string[];
  groups: string[];
  /** Projects of any of the organizations. */
  projects?: ReadonlyArray<{ id: string; orgId: string; name?: string }>;
  eventsPerScope: number;
  days: number;
  /** Share of generated events that are malformed (no id, or an unparseable created). */
  malformedRate: number;
  now: () => number;
  baseUrl: string;
}

export interface DatasetQuery {
  /** Event type names; undefined means all. */
  eventTypes?: readonly string[];
  minSec?: number;
  maxSec?: number;
  offset: number;
  limit: number;
  includeRaw: boolean;
  /** Atlas v2: event type names left out. */
  excludedEventTypes?: readonly string[];
  /** Atlas v2: only events whose clusterName is one of these. */
  clusterNames?: readonly string[];
}

export interface ProjectInfo {
  readonly id: string;
  readonly orgId: string;
  readonly name: string;
  readonly clusters: readonly WorldCluster[];
}

export interface AddEventsOptions {
  createdMs?: number;
  eventTypeName?: string;
  malformed?: 'no-id' | 'bad-created';
  /** Fields added to each event as generated: a type that changes shape, as the service's do. */
  fields?: Readonly<Record<string, unknown>>;
}

/**
 * A scope's world (ids, names, clusters: cheap) at once, its events when first asked for: an
 * organization of 10,000 projects costs memory for the projects that are read.
 */
class ScopeData {
  #store: ScopeEventStore | undefined;

  constructor(
    readonly world: ScopeWorld,
    readonly weighted: WeightedTypes,
    private readonly generate: () => ScopeEventStore,
  ) {}

  get store(): ScopeEventStore {
    return (this.#store ??= this.generate());
  }
}

const BURST_SHARE = 0.05;
const MAX_BURST = 30;

/** `perOrg` projects for each organization, ids from the seed and the organization (distinct across them). */
export function generatedProjects(seed: number, orgs: readonly string[], perOrg: number): Array<{ id: string; orgId: string }> {
  return orgs.flatMap((orgId) => {
    const rng = new Rng(hash32(seed, hashString(orgId), 0x9e0c));
    const used = new Set<string>();
    const projects: Array<{ id: string; orgId: string }> = [];
    while (projects.length < perOrg) {
      const id = rng.objectId(1_600_000_000 + rng.int(0, 1e8));
      if (used.has(id)) continue;
      used.add(id);
      projects.push({ id, orgId });
    }
    return projects;
  });
}

/** Default organization and projects when none are given: one org, three projects, ids from the seed. */
export function defaultScopeIds(seed: number): { orgs: string[]; groups: string[] } {
  const rng = new Rng(hash32(seed, 0x5c0be));
  const id = (): string => rng.objectId(1_600_000_000 + rng.int(0, 1e8));
  return { orgs: [id()], groups: [id(), id(), id()] };
}

export class Dataset {
  private readonly byKey = new Map<string, ScopeData>();
  private readonly typeNames: string[] = EVENT_TYPES.map((spec) => spec.name);
  private readonly typeIndex = new Map<string, number>(this.typeNames.map((name, i) => [name, i]));
  private readonly groupOrg = new Map<string, string>();
  private readonly projectNames = new Map<string, string>();
  private readonly usedTags = new Set<string>();
  /** Extra fields of events added with `fields`, by scope key and event id. */
  private readonly extraFields = new Map<string, Map<string, Readonly<Record<string, unknown>>>>();
  private readonly liveRng: Rng;
  private retentionSeconds: number | undefined;
  private base: string;

  constructor(private readonly options: DatasetOptions) {
    this.base = options.baseUrl;
    this.liveRng = new Rng(hash32(options.seed, 0x11fe));
    const firstOrg = options.orgs[0];
    if (options.groups.length > 0 && firstOrg === undefined) throw new Error('projects need an organization');
    for (const org of options.orgs) this.addScope('org', org, org);
    for (const group of options.groups) this.addProject(group, firstOrg as string);
    for (const project of options.projects ?? []) this.addProject(project.id, project.orgId, project.name);
  }

  /**
   * A project of `orgId` (an organization of this dataset), with its generated history; it is then
   * listed by the organization and its events are served. `name` defaults to a generated one.
   */
  addProject(groupId: string, orgId: string, name?: string): void {
    if (!this.byKey.has(`org:${orgId}`)) throw new Error(`project ${groupId}: unknown organization ${orgId}`);
    this.addScope('group', groupId, orgId);
    this.groupOrg.set(groupId, orgId);
    if (name !== undefined) this.projectNames.set(groupId, name);
  }

  /** The project leaves its organization: it is no longer listed and its events are 404s, as a deleted project's are. */
  removeProject(groupId: string): void {
    if (!this.byKey.delete(`group:${groupId}`)) throw new Error(`unknown project ${groupId}`);
    this.groupOrg.delete(groupId);
    this.projectNames.delete(groupId);
  }

  /** The projects of an organization, in the order they were added. */
  projectsOf(orgId: string): ProjectInfo[] {
    const projects: ProjectInfo[] = [];
    for (const [groupId, owner] of this.groupOrg) {
      if (owner === orgId) projects.push(this.project(groupId) as ProjectInfo);
    }
    return projects;
  }

  project(groupId: string): ProjectInfo | undefined {
    const data = this.byKey.get(`group:${groupId}`);
    if (!data) return undefined;
    const { world } = data;
    return { id: groupId, orgId: world.orgId, name: this.projectNames.get(groupId) ?? world.name, clusters: world.clusters };
  }

  private addScope(kind: ScopeKind, id: string, orgId: string): void {
    const key = `${kind}:${id}`;
    if (this.byKey.has(key)) throw new Error(`scope ${key} is given twice`);
    let tag = hex8(hash32(this.options.seed, hashString(key), 0x7a6));
    while (this.usedTags.has(tag)) tag = hex8(hash32(Number.parseInt(tag, 16), 1));
    this.usedTags.add(tag);
    const world = buildWorld(this.options.seed, kind, id, orgId, tag, this.alertEpisodeSeconds());
    const weighted = weightedTypesFor(kind);
    // The history ends when the scope was added, whenever its events are first generated.
    const endSec = Math.floor(this.options.now() / 1000);
    this.byKey.set(key, new ScopeData(world, weighted, () => this.generate(world, weighted, endSec)));
  }

  /**
   * About two hundred mean gaps between events: an episode then draws a few openings and, most of
   * the time, a close, whatever the dataset's density.
   */
  private alertEpisodeSeconds(): number {
    const { eventsPerScope, days } = this.options;
    const meanGap = Math.max(1, days * 86_400) / Math.max(1, eventsPerScope);
    return ALERT_SLOTS * Math.min(7 * 17_280, Math.max(120, Math.round((200 * meanGap) / ALERT_SLOTS)));
  }

  get baseUrl(): string {
    return this.base;
  }

  /** The server sets this once it knows its port; self links are built from it. */
  setBaseUrl(baseUrl: string): void {
    this.base = baseUrl;
  }

  scopes(): string[] {
    return [...this.byKey.keys()];
  }

  orgIdOf(groupId: string): string | undefined {
    return this.groupOrg.get(groupId);
  }

  hasScope(scopeKey: string): boolean {
    return this.byKey.has(scopeKey);
  }

  count(scopeKey: string): number {
    return this.data(scopeKey).store.size;
  }

  malformedCount(scopeKey: string): number {
    return this.data(scopeKey).store.malformedCount;
  }

  allEvents(scopeKey: string, options: { includeRaw?: boolean } = {}): ApiEvent[] {
    return this.query(scopeKey, { offset: 0, limit: this.count(scopeKey), includeRaw: options.includeRaw ?? false }).results;
  }

  validIds(scopeKey: string): Set<string> {
    const { world, store } = this.data(scopeKey);
    const ids = new Set<string>();
    for (const record of store.query({ offset: 0, limit: store.size }).records) {
      if (record.flag === WELL_FORMED) ids.add(eventIdOf(world, record.created, record.counter));
    }
    return ids;
  }

  /**
   * Events created more than `days` ago leave the feed, as the service's retention drops them
   * (undefined keeps everything). Tests use it to make the API list fewer events than a mirror holds.
   */
  setRetentionDays(days: number | undefined): void {
    this.retentionSeconds = days === undefined ? undefined : Math.round(days * 86_400);
  }

  query(scopeKey: string, query: DatasetQuery): { totalCount: number; results: ApiEvent[] } {
    const { store } = this.data(scopeKey);
    if (this.retentionSeconds !== undefined) {
      const oldest = Math.floor(this.options.now() / 1000) - this.retentionSeconds;
      query = { ...query, minSec: Math.max(query.minSec ?? oldest, oldest) };
    }
    let types = query.eventTypes?.flatMap((name) => {
      const index = this.typeIndex.get(name);
      return index === undefined ? [] : [index];
    });
    if (query.excludedEventTypes && query.excludedEventTypes.length > 0) {
      const excluded = new Set(query.excludedEventTypes);
      types = (types ?? this.typeNames.map((_, index) => index)).filter((index) => !excluded.has(this.typeNames[index] as string));
    }
    const range = { types, minSec: query.minSec, maxSec: query.maxSec };
    if (query.clusterNames && query.clusterNames.length > 0) {
      // A cluster is a field of the materialized event, not an index: filter the whole range.
      const clusters = new Set(query.clusterNames);
      const all = store.query({ ...range, offset: 0, limit: store.size }).records;
      const matching = all
        .map((record) => this.materialize(scopeKey, record, query.includeRaw))
        .filter((event) => typeof event.clusterName === 'string' && clusters.has(event.clusterName));
      return { totalCount: matching.length, results: matching.slice(query.offset, query.offset + query.limit) };
    }
    const { total, records } = store.query({ ...range, offset: query.offset, limit: query.limit });
    return { totalCount: total, results: records.map((record) => this.materialize(scopeKey, record, query.includeRaw)) };
  }

  /** One event by id, or undefined (unknown id, or an id of another scope). */
  findEvent(scopeKey: string, id: string, includeRaw: boolean): ApiEvent | undefined {
    const { world, store } = this.data(scopeKey);
    if (!/^[0-9a-f]{24}$/.test(id) || id.slice(8, 16) !== world.tag) return undefined;
    const record = store.find(Number.parseInt(id.slice(0, 8), 16), Number.parseInt(id.slice(16), 16));
    if (!record || record.flag === MALFORMED_NO_ID) return undefined;
    return this.materialize(scopeKey, record, includeRaw);
  }

  /** Adds `count` well-formed events (unless `malformed`) sharing one created second (default: now). */
  addEvents(scopeKey: string, count: number, options: AddEventsOptions = {}): ApiEvent[] {
    const data = this.data(scopeKey);
    const createdSec = Math.floor((options.createdMs ?? this.options.now()) / 1000);
    const flag =
      options.malformed === 'no-id' ? MALFORMED_NO_ID : options.malformed === 'bad-created' ? MALFORMED_BAD_CREATED : WELL_FORMED;
    const added: ApiEvent[] = [];
    for (let i = 0; i < count; i += 1) {
      const name = options.eventTypeName ?? pickWeighted(data.weighted, this.liveRng.next());
      const record = data.store.add(createdSec, this.typeIdFor(name), flag);
      if (options.fields) {
        const extras = this.extraFields.get(scopeKey) ?? new Map<string, Readonly<Record<string, unknown>>>();
        this.extraFields.set(scopeKey, extras);
        extras.set(eventIdOf(data.world, record.created, record.counter), options.fields);
      }
      added.push(this.materialize(scopeKey, record, false));
    }
    return added;
  }

  /** One live event of a random type; malformed with probability `malformedRate`. */
  /** Adds one live event; with `materialize`, returns it as the API serves it (for the push export). */
  addLiveEvent(scopeKey: string, createdSec: number, malformedRate: number, materialize = false): ApiEvent | undefined {
    const data = this.data(scopeKey);
    const name = pickWeighted(data.weighted, this.liveRng.next());
    const record = data.store.add(createdSec, this.typeIdFor(name), this.malformedFlag(this.liveRng, malformedRate));
    return materialize ? this.materialize(scopeKey, record, false) : undefined;
  }

  private typeIdFor(name: string): number {
    let index = this.typeIndex.get(name);
    if (index === undefined) {
      index = this.typeNames.length;
      this.typeNames.push(name);
      this.typeIndex.set(name, index);
    }
    return index;
  }

  private malformedFlag(rng: Rng, rate: number): number {
    if (rate <= 0 || !rng.chance(rate)) return WELL_FORMED;
    return rng.chance(0.5) ? MALFORMED_NO_ID : MALFORMED_BAD_CREATED;
  }

  private materialize(scopeKey: string, record: EventRecord, includeRaw: boolean): ApiEvent {
    const name = this.typeNames[record.type] as string;
    const { world } = this.data(scopeKey);
    const event = materializeEvent(world, record, name, this.base, includeRaw);
    const extras = this.extraFields.get(scopeKey)?.get(eventIdOf(world, record.created, record.counter));
    return extras ? { ...event, ...extras } : event;
  }

  private data(scopeKey: string): ScopeData {
    const data = this.byKey.get(scopeKey);
    if (!data) throw new Error(`unknown scope ${scopeKey}; the emulator serves ${this.scopes().join(', ')}`);
    return data;
  }

  private generate(world: ScopeWorld, weighted: WeightedTypes, endSec: number): ScopeEventStore {
    const { eventsPerScope: n, days, malformedRate } = this.options;
    const rng = new Rng(hash32(world.seed, 0xc4ea7ed));
    const span = Math.max(1, Math.round(days * 86_400));
    const created = new Uint32Array(n);
    for (let i = 0; i < n;) {
      const second = endSec - Math.floor(rng.next() * span);
      const burst = rng.chance(BURST_SHARE) ? rng.int(2, MAX_BURST) : 1;
      for (let k = 0; k < burst && i < n; k += 1) created[i++] = second;
    }
    created.sort();
    const types = new Uint16Array(n);
    const flags = new Uint8Array(n);
    for (let i = 0; i < n; i += 1) {
      types[i] = this.typeIdFor(pickWeighted(weighted, rng.next()));
      flags[i] = this.malformedFlag(rng, malformedRate);
    }
    return new ScopeEventStore(created, types, flags);
  }
}
