/**
 * Builds one event's JSON from its compact record (created seconds, counter, type, malformed flag)
 * and its scope's world. Deterministic: the same record always gives the same event, so an event
 * read twice is byte-identical and a mirror's upsert sees no change. Pure.
 */
import type { ApiEvent, Diff } from '../events/types.js';
import { formatApiDate } from '../time.js';
import { alertEpisodeOf, type AlertEpisode, type AlertFamily, type AlertPhase } from './alert-lifecycles.js';
import { familyOf } from './event-types.js';
import { Rng, hash32, hex8 } from './random.js';
import { ipv4, type ScopeWorld, type WorldCluster, type WorldHost, type WorldUser } from './scope-world.js';

export const WELL_FORMED = 0;
export const MALFORMED_NO_ID = 1;
export const MALFORMED_BAD_CREATED = 2;

export interface EventRecord {
  /** Creation time, epoch seconds (also the internal order for malformed events). */
  readonly created: number;
  /** Unique per scope; the last 8 hex digits of the id. */
  readonly counter: number;
  readonly type: number;
  readonly flag: number;
}

export function eventIdOf(world: ScopeWorld, created: number, counter: number): string {
  return hex8(created) + world.tag + hex8(counter);
}

export function selfHref(baseUrl: string, world: ScopeWorld, id: string): string {
  return `${baseUrl}/${world.kind === 'group' ? 'groups' : 'orgs'}/${world.scopeId}/events/${id}`;
}

// Metric alerts are the most common, so most acknowledgements are theirs.
const ACKNOWLEDGED_FAMILIES: readonly AlertFamily[] = ['metric', 'metric', 'metric', 'host', 'replica'];
const DATA_EXPLORER_SESSION_SECONDS = 1800;
const DE_OPS = ['find', 'aggregate', 'listCollections', 'listDatabases', 'createIndexes', 'dropIndex', 'countDocuments'];
const CRUD_OPS = ['insertDocument', 'updateDocument', 'deleteDocument', 'replaceDocument'];
const DATABASES = ['sales', 'inventory', 'users', 'analytics', 'logs'];
const COLLECTIONS = ['orders', 'customers', 'items', 'sessions', 'events', 'invoices'];
const BAD_CREATED = ['not-a-date', '2026-02-30T25:61:00Z', '', '1699999999'];
const RAW_CLASS: Record<string, string> = {
  metricAlert: 'HOST_METRIC_ALERT',
  hostAlert: 'HOST_ALERT',
  replicaAlert: 'REPLICA_SET_ALERT',
  alertAudit: 'ALERT_AUDIT',
  alertConfigAudit: 'ALERT_CONFIG_AUDIT',
  dataExplorer: 'DATA_EXPLORER_ACCESSED_EVENT',
  automationAudit: 'AUTOMATION_CONFIG_AUDIT',
  cluster: 'CLUSTER_AUDIT',
  member: 'USER_AUDIT',
  team: 'TEAM_AUDIT',
  apiKey: 'API_USER_AUDIT',
  apiKeyAccessList: 'API_USER_AUDIT',
  invoice: 'BILLING_EVENT',
  payment: 'BILLING_EVENT',
  maintenance: 'NDS_MAINTENANCE_WINDOW_AUDIT',
  employeeAccess: 'ORG_AUDIT',
  login: 'USER_AUDIT',
  generic: 'AUDIT',
};

function setUser(event: ApiEvent, user: WorldUser, isGlobalAdmin: boolean): void {
  event.userId = user.userId;
  event.username = user.username;
  event.remoteAddress = user.remoteAddress;
  event.isGlobalAdmin = isGlobalAdmin;
}

function setActor(event: ApiEvent, world: ScopeWorld, rng: Rng): void {
  if (rng.chance(0.75)) {
    setUser(event, rng.pick(world.users), rng.chance(0.02));
  } else {
    const key = rng.pick(world.apiKeys);
    event.apiKeyId = key.apiKeyId;
    event.publicKey = key.publicKey;
    event.remoteAddress = key.remoteAddress;
  }
}

function setHost(event: ApiEvent, cluster: WorldCluster, host: WorldHost): void {
  event.clusterId = cluster.clusterId;
  event.clusterName = cluster.clusterName;
  event.hostId = host.hostId;
  event.hostname = host.hostname;
  event.port = host.port;
  event.replicaSetName = host.replicaSetName;
  if (host.shardName) event.shardName = host.shardName;
}

function setAlert(event: ApiEvent, world: ScopeWorld, family: AlertFamily, phase: AlertPhase, created: number, rng: Rng): AlertEpisode {
  const alert = alertEpisodeOf(world, family, phase, created, rng.next());
  event.alertId = alert.alertId;
  event.alertConfigId = alert.alertConfigId;
  return alert;
}

function diffs(rng: Rng, created: number): Diff[] {
  const out: Diff[] = [];
  for (let i = rng.int(1, 3); i > 0; i -= 1) {
    const kind = rng.pick(['ROLES', 'USERS', 'AUTOMATION_AGENT'] as const);
    const db = rng.pick(DATABASES);
    if (kind === 'ROLES') {
      out.push({
        id: `${rng.pick(['readOrders', 'auditor', 'etlWriter'])}@${db}`,
        name: null,
        type: 'ROLES',
        status: rng.pick(['NEW', 'MODIFIED']),
        params: [],
        priviileges: [
          { actions: ['find', 'listCollections'], resource: { db, collection: rng.chance(0.5) ? '' : rng.pick(COLLECTIONS) } },
          ...(rng.chance(0.3) ? [{ actions: ['serverStatus'], resource: { cluster: true as const } }] : []),
        ],
        roles: [{ db: 'admin', role: 'read' }],
      });
    } else if (kind === 'USERS') {
      out.push({
        id: `svc-${rng.hex(4)}`,
        name: `svc-${rng.hex(4)}`,
        type: 'USERS',
        status: rng.pick(['NEW', 'MODIFIED']),
        params: rng.chance(0.5) ? [{ display: 'Password', param: 'pwd', old: null, new: null }] : [],
        priviileges: null,
        roles: [{ db, role: rng.pick(['readWrite', 'read', 'dbAdmin']) }],
      });
    } else {
      const version = `${rng.int(12, 13)}.${rng.int(0, 9)}.${rng.int(0, 20)}`;
      out.push({
        id: `Automation Agent ${created % 97}`,
        name: null,
        type: 'AUTOMATION_AGENT',
        status: 'MODIFIED',
        params: [{ display: 'Version', param: 'version', old: `${version}-1`, new: version }],
        priviileges: null,
        roles: [],
      });
    }
  }
  return out;
}

const NEEDS_CLUSTER = new Set(['metricAlert', 'hostAlert', 'replicaAlert', 'cluster']);

function setFamilyFields(event: ApiEvent, world: ScopeWorld, rng: Rng, typeName: string, created: number): void {
  let family = familyOf(typeName);
  if (world.clusters.length === 0 && NEEDS_CLUSTER.has(family)) family = 'generic';
  switch (family) {
    case 'metricAlert': {
      const alert = setAlert(event, world, 'metric', typeName === 'INSIDE_METRIC_THRESHOLD' ? 'close' : 'open', created, rng);
      setHost(event, alert.cluster, alert.host);
      const [metricName, units, scale] = alert.metric;
      const value =
        typeName === 'INSIDE_METRIC_THRESHOLD' ? rng.next() * alert.threshold : alert.threshold + rng.next() * (scale - alert.threshold);
      event.metricName = metricName;
      event.currentValue = { number: Math.round(value * 100) / 100, units };
      return;
    }
    case 'hostAlert': {
      const alert = setAlert(event, world, 'host', typeName === 'HOST_RECOVERED' ? 'close' : 'open', created, rng);
      setHost(event, alert.cluster, alert.host);
      return;
    }
    case 'replicaAlert': {
      const alert = setAlert(event, world, 'replica', typeName === 'PRIMARY_ELECTED' ? 'close' : 'open', created, rng);
      event.clusterId = alert.cluster.clusterId;
      event.clusterName = alert.cluster.clusterName;
      event.replicaSetName = alert.host.replicaSetName;
      if (typeName === 'PRIMARY_ELECTED') {
        event.hostname = alert.host.hostname;
        event.port = alert.host.port;
      }
      return;
    }
    case 'alertAudit': {
      setActor(event, world, rng);
      setAlert(event, world, rng.pick(ACKNOWLEDGED_FAMILIES), 'acknowledge', created, rng);
      return;
    }
    case 'alertConfigAudit':
      setActor(event, world, rng);
      event.alertConfigId = rng.objectId(created - rng.int(0, 9e6));
      return;
    case 'dataExplorer': {
      // A session: one user in one collection for half an hour, straying elsewhere now and then.
      const session = new Rng(hash32(world.seed, 0xde5, Math.floor(created / DATA_EXPLORER_SESSION_SECONDS)));
      setUser(event, session.pick(world.users), false);
      const [database, collection] = rng.chance(0.85)
        ? [session.pick(DATABASES), session.pick(COLLECTIONS)]
        : [rng.pick(DATABASES), rng.pick(COLLECTIONS)];
      const op = typeName === 'DATA_EXPLORER_CRUD' ? rng.pick(CRUD_OPS) : rng.pick(DE_OPS);
      if (op !== 'listDatabases') event.database = database;
      if (op !== 'listDatabases' && op !== 'listCollections') event.collection = collection;
      event.opType = op;
      return;
    }
    case 'automationAudit':
      setActor(event, world, rng);
      event.diffs = diffs(rng, created);
      return;
    case 'cluster': {
      setActor(event, world, rng);
      const cluster = rng.pick(world.clusters);
      event.clusterName = cluster.clusterName;
      if (rng.chance(0.6)) event.clusterId = cluster.clusterId;
      // Undocumented fields appear in real payloads; consumers must keep them.
      if (rng.chance(0.15)) {
        event.resourceId = cluster.clusterId;
        event.resourceType = 'cluster';
      }
      return;
    }
    case 'member':
      setActor(event, world, rng);
      event.targetUsername = rng.pick(world.users).username;
      return;
    case 'team':
      setActor(event, world, rng);
      event.teamId = rng.pick(world.teamIds);
      if (typeName === 'USER_ADDED_TO_TEAM') event.targetUsername = rng.pick(world.users).username;
      return;
    case 'apiKey':
      setActor(event, world, rng);
      event.targetPublicKey = rng.pick(world.apiKeys).publicKey;
      return;
    case 'apiKeyAccessList':
      setActor(event, world, rng);
      event.targetPublicKey = rng.pick(world.apiKeys).publicKey;
      event.accessListEntry = rng.chance(0.5) ? `${rng.int(11, 223)}.${rng.int(0, 255)}.${rng.int(0, 255)}.0/24` : ipv4(rng);
      return;
    case 'invoice':
      event.invoiceId = rng.objectId(created - rng.int(0, 2_600_000));
      return;
    case 'payment':
      event.invoiceId = rng.objectId(created - rng.int(0, 2_600_000));
      event.paymentId = rng.objectId(created);
      return;
    case 'maintenance':
      event.maintenanceWindowId = rng.objectId(created - rng.int(0, 9e6));
      if (world.kind === 'group' && rng.chance(0.5)) event.clusterName = rng.pick(world.clusters).clusterName;
      if (rng.chance(0.1)) event.resourceType = 'maintenanceWindow';
      return;
    case 'employeeAccess':
      setUser(event, rng.pick(world.users), true);
      return;
    case 'login': {
      const user = rng.pick(world.users);
      setUser(event, user, false);
      // Failed logins come as often from an address the user never used.
      if (typeName === 'UNSUCCESSFUL_LOGIN_AUDIT' && rng.chance(0.5)) event.remoteAddress = ipv4(rng);
      return;
    }
    case 'generic':
      setActor(event, world, rng);
      return;
  }
}

function rawDocument(event: ApiEvent, world: ScopeWorld, typeName: string, rng: Rng): Record<string, unknown> {
  const raw: Record<string, unknown> = {
    _t: RAW_CLASS[familyOf(typeName)] ?? 'AUDIT',
    cre: { $date: event.created },
    eventTypeName: typeName,
    id: event.id ?? null,
    orgId: world.orgId,
    orgName: world.kind === 'org' ? world.name : `Org ${world.orgId.slice(0, 6)}`,
    severity: rng.pick(['INFO', 'INFO', 'WARNING', 'CRITICAL']),
    hidden: false,
  };
  if (world.kind === 'group') {
    raw.cid = world.scopeId;
    raw.gn = world.name;
  }
  if (event.clusterName) raw.clusterName = event.clusterName;
  if (event.userId) raw.un = event.username;
  return raw;
}

export function materializeEvent(world: ScopeWorld, record: EventRecord, typeName: string, baseUrl: string, includeRaw: boolean): ApiEvent {
  const rng = new Rng(hash32(world.seed, record.counter, record.created));
  const id = eventIdOf(world, record.created, record.counter);
  const event: ApiEvent = {};
  if (record.flag !== MALFORMED_NO_ID) event.id = id;
  event.created = record.flag === MALFORMED_BAD_CREATED ? rng.pick(BAD_CREATED) : formatApiDate(record.created * 1000);
  event.eventTypeName = typeName;
  if (world.kind === 'group') event.groupId = world.scopeId;
  else event.orgId = world.scopeId;
  setFamilyFields(event, world, rng, typeName, record.created);
  if (record.flag !== MALFORMED_NO_ID) event.links = [{ href: selfHref(baseUrl, world, id), rel: 'self' }];
  if (includeRaw) event.raw = rawDocument(event, world, typeName, rng);
  return event;
}
