/**
 * The event type names the emulator generates, each with the family that decides its fields and a
 * weight (how common it is). The real set is open (about a thousand names); this is a realistic
 * few dozen. Types added at run time (Dataset.addEvents with a new name) get the `generic` family.
 */
import type { ScopeKind } from '../scope.js';

export type EventFamily =
  | 'metricAlert'
  | 'hostAlert'
  | 'replicaAlert'
  | 'alertAudit'
  | 'alertConfigAudit'
  | 'dataExplorer'
  | 'automationAudit'
  | 'cluster'
  | 'member'
  | 'team'
  | 'apiKey'
  | 'apiKeyAccessList'
  | 'invoice'
  | 'payment'
  | 'maintenance'
  | 'employeeAccess'
  | 'login'
  | 'generic';

export interface EventTypeSpec {
  readonly name: string;
  readonly family: EventFamily;
  readonly weight: number;
  readonly kinds: readonly ScopeKind[];
}

const G: readonly ScopeKind[] = ['group'];
const O: readonly ScopeKind[] = ['org'];
const B: readonly ScopeKind[] = ['group', 'org'];

export const EVENT_TYPES: readonly EventTypeSpec[] = [
  { name: 'OUTSIDE_METRIC_THRESHOLD', family: 'metricAlert', weight: 10, kinds: G },
  { name: 'INSIDE_METRIC_THRESHOLD', family: 'metricAlert', weight: 4, kinds: G },
  { name: 'HOST_DOWN', family: 'hostAlert', weight: 2, kinds: G },
  { name: 'HOST_RECOVERED', family: 'hostAlert', weight: 2, kinds: G },
  { name: 'HOST_RESTARTED', family: 'hostAlert', weight: 2, kinds: G },
  { name: 'PRIMARY_ELECTED', family: 'replicaAlert', weight: 3, kinds: G },
  { name: 'NO_PRIMARY', family: 'replicaAlert', weight: 1, kinds: G },
  { name: 'REPLICATION_OPLOG_WINDOW_RUNNING_OUT', family: 'replicaAlert', weight: 1, kinds: G },
  { name: 'ALERT_ACKNOWLEDGED_AUDIT', family: 'alertAudit', weight: 2, kinds: G },
  { name: 'ALERT_UNACKNOWLEDGED_AUDIT', family: 'alertAudit', weight: 1, kinds: G },
  { name: 'ALERT_CONFIG_ADDED_AUDIT', family: 'alertConfigAudit', weight: 1, kinds: G },
  { name: 'ALERT_CONFIG_CHANGED_AUDIT', family: 'alertConfigAudit', weight: 1, kinds: G },
  { name: 'DATA_EXPLORER', family: 'dataExplorer', weight: 8, kinds: G },
  { name: 'DATA_EXPLORER_CRUD', family: 'dataExplorer', weight: 8, kinds: G },
  { name: 'AUTOMATION_CONFIG_PUBLISHED_AUDIT', family: 'automationAudit', weight: 5, kinds: G },
  { name: 'CLUSTER_CREATED', family: 'cluster', weight: 1, kinds: G },
  { name: 'CLUSTER_UPDATE_SUBMITTED', family: 'cluster', weight: 3, kinds: G },
  { name: 'CLUSTER_READY', family: 'cluster', weight: 2, kinds: G },
  { name: 'CLUSTER_DELETE_SUBMITTED', family: 'cluster', weight: 1, kinds: G },
  { name: 'JOINED_GROUP', family: 'member', weight: 2, kinds: G },
  { name: 'INVITED_TO_GROUP', family: 'member', weight: 2, kinds: G },
  { name: 'REMOVED_FROM_GROUP', family: 'member', weight: 1, kinds: G },
  { name: 'TEAM_ADDED_TO_GROUP', family: 'team', weight: 1, kinds: G },
  { name: 'TEAM_REMOVED_FROM_GROUP', family: 'team', weight: 1, kinds: G },
  { name: 'API_KEY_ADDED_TO_GROUP', family: 'apiKey', weight: 1, kinds: G },
  { name: 'API_KEY_REMOVED_FROM_GROUP', family: 'apiKey', weight: 1, kinds: G },
  { name: 'SCHEDULED_MAINTENANCE', family: 'maintenance', weight: 1, kinds: B },
  { name: 'MAINTENANCE_AUTO_DEFERRED', family: 'maintenance', weight: 1, kinds: B },
  { name: 'JOINED_ORG', family: 'member', weight: 4, kinds: O },
  { name: 'INVITED_TO_ORG', family: 'member', weight: 4, kinds: O },
  { name: 'REMOVED_FROM_ORG', family: 'member', weight: 2, kinds: O },
  { name: 'ORG_USER_ROLES_CHANGED', family: 'member', weight: 2, kinds: O },
  { name: 'TEAM_CREATED', family: 'team', weight: 2, kinds: O },
  { name: 'TEAM_DELETED', family: 'team', weight: 1, kinds: O },
  { name: 'USER_ADDED_TO_TEAM', family: 'team', weight: 2, kinds: O },
  { name: 'API_KEY_CREATED', family: 'apiKey', weight: 2, kinds: O },
  { name: 'API_KEY_DELETED', family: 'apiKey', weight: 1, kinds: O },
  { name: 'API_KEY_ROLES_CHANGED', family: 'apiKey', weight: 1, kinds: O },
  { name: 'API_KEY_ACCESS_LIST_ENTRY_ADDED', family: 'apiKeyAccessList', weight: 2, kinds: O },
  { name: 'API_KEY_ACCESS_LIST_ENTRY_DELETED', family: 'apiKeyAccessList', weight: 1, kinds: O },
  { name: 'INVOICE_CLOSED', family: 'invoice', weight: 2, kinds: O },
  { name: 'PENDING_INVOICE_OVER_THRESHOLD', family: 'invoice', weight: 1, kinds: O },
  { name: 'CHARGE_SUCCEEDED', family: 'payment', weight: 2, kinds: O },
  { name: 'CHARGE_FAILED', family: 'payment', weight: 1, kinds: O },
  { name: 'PAYMENT_FORGIVEN', family: 'payment', weight: 1, kinds: O },
  { name: 'ORG_EMPLOYEE_ACCESS_GRANTED', family: 'employeeAccess', weight: 1, kinds: O },
  { name: 'SUCCESSFUL_LOGIN_AUDIT', family: 'login', weight: 4, kinds: O },
  { name: 'UNSUCCESSFUL_LOGIN_AUDIT', family: 'login', weight: 1, kinds: O },
  { name: 'USER_ROLES_CHANGED_AUDIT', family: 'member', weight: 1, kinds: G },
];

/** Cumulative weights of the types one scope kind generates, for weighted picks by index. */
export interface WeightedTypes {
  readonly names: readonly string[];
  readonly cumulative: Float64Array;
  readonly total: number;
}

export function weightedTypesFor(kind: ScopeKind): WeightedTypes {
  const specs = EVENT_TYPES.filter((spec) => spec.kinds.includes(kind));
  const cumulative = new Float64Array(specs.length);
  let total = 0;
  specs.forEach((spec, i) => {
    total += spec.weight;
    cumulative[i] = total;
  });
  return { names: specs.map((spec) => spec.name), cumulative, total };
}

/** The name at `u` in [0, 1) of the weighted distribution. */
export function pickWeighted(types: WeightedTypes, u: number): string {
  const target = u * types.total;
  let lo = 0;
  let hi = types.cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((types.cumulative[mid] ?? 0) > target) hi = mid;
    else lo = mid + 1;
  }
  return types.names[lo] ?? (types.names[0] as string);
}

const FAMILY_BY_NAME = new Map(EVENT_TYPES.map((spec) => [spec.name, spec.family]));

export function familyOf(eventTypeName: string): EventFamily {
  return FAMILY_BY_NAME.get(eventTypeName) ?? 'generic';
}
