/**
 * The Events API's wire shapes (../shared/API.md). Every event field is optional: a field appears
 * only when it applies, and real payloads carry fields the documentation does not list, so
 * consumers keep the whole object as received beside these typed views.
 */

export interface ApiLink {
  href: string;
  rel: string;
}

export const METRIC_UNITS = [
  'RAW',
  'BITS',
  'BYTES',
  'KILOBITS',
  'KILOBYTES',
  'MEGABITS',
  'MEGABYTES',
  'GIGABITS',
  'GIGABYTES',
  'TERABYTES',
  'PETABYTES',
  'MILLISECONDS',
  'SECONDS',
  'MINUTES',
  'HOURS',
  'DAYS',
] as const;
export type MetricUnit = (typeof METRIC_UNITS)[number];

export interface DiffParam {
  display: string;
  param: string;
  old: string | null;
  new: string | null;
}

export interface DiffPrivilege {
  actions: string[];
  resource: { db: string; collection: string } | { cluster: true };
}

export interface Diff {
  id: string;
  name: string | null;
  type: string;
  status: string;
  params: DiffParam[];
  /** Spelled so by the service (two letter i after the v). */
  priviileges: DiffPrivilege[] | null;
  roles: Array<{ db: string; role: string }>;
}

export interface ApiEvent {
  id?: string;
  groupId?: string;
  orgId?: string;
  created?: string;
  eventTypeName?: string;
  alertId?: string;
  alertConfigId?: string;
  apiKeyId?: string;
  publicKey?: string;
  userId?: string;
  username?: string;
  remoteAddress?: string;
  isGlobalAdmin?: boolean;
  targetUsername?: string;
  targetPublicKey?: string;
  accessListEntry?: string;
  teamId?: string;
  clusterId?: string;
  clusterName?: string;
  hostId?: string;
  hostname?: string;
  port?: number;
  replicaSetName?: string;
  shardName?: string;
  database?: string;
  collection?: string;
  opType?: string;
  invoiceId?: string;
  paymentId?: string;
  maintenanceWindowId?: string;
  metricName?: string;
  /** `units` is one of METRIC_UNITS, or a unit the documentation does not list yet. */
  currentValue?: { number?: number; units?: string };
  raw?: Record<string, unknown>;
  links?: ApiLink[];
  diffs?: Diff[];
  [unknownField: string]: unknown;
}

export interface ListEventsResponse {
  results: ApiEvent[];
  links: ApiLink[];
  totalCount: number;
  /** Present only when the request asked for `envelope=true`. */
  status?: number;
}

/** The service's error body. */
export interface ApiErrorBody {
  detail: string;
  error: number;
  errorCode: string;
  parameters: unknown[];
  reason: string;
}

/** An event that passed validation: it has a string `id` and a parseable `created`. */
export interface ValidEvent {
  readonly id: string;
  readonly created: Date;
  /** The event exactly as received, unknown fields included. */
  readonly payload: ApiEvent;
  /**
   * The payload's JSON text exactly as the API sent it, when the client kept it: the warehouse
   * stores it as is instead of serialising `payload` again.
   */
  readonly json?: string;
}

/** An event set aside: it stays in the warehouse's `rejected_events` with the reason. */
export interface RejectedEvent {
  readonly reason: string;
  readonly payload: unknown;
  /** Its JSON text exactly as the API sent it, when the client kept it: stored instead of `payload` serialised. */
  readonly json?: string;
  /**
   * The created times of the valid events listed just before (newer) and after (older) it: pages
   * are newest first, so its real created time lies between them even when its own is unreadable.
   */
  readonly listedBetween?: { readonly newer?: Date; readonly older?: Date };
}
