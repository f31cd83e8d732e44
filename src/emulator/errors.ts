/**
 * Error answers in the service's shape: `{detail, error, errorCode, parameters, reason}`.
 * Pure; no I/O.
 */
import type { ApiErrorBody } from '../events/types.js';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  410: 'Gone',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export class EmulatorHttpError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    readonly detail: string,
    readonly parameters: unknown[] = [],
  ) {
    super(detail);
  }

  body(): ApiErrorBody {
    return errorBody(this.status, this.errorCode, this.detail, this.parameters);
  }
}

export function errorBody(status: number, errorCode: string, detail: string, parameters: unknown[] = []): ApiErrorBody {
  return { detail, error: status, errorCode, parameters, reason: REASONS[status] ?? 'Error' };
}

export const invalidParameter = (name: string, value: string, why: string): EmulatorHttpError =>
  new EmulatorHttpError(400, 'INVALID_QUERY_PARAMETER', `Invalid query parameter ${name} with value ${value}: ${why}.`, [name, value]);

export const invalidDateFormat = (name: string, value: string): EmulatorHttpError =>
  new EmulatorHttpError(
    400,
    'INVALID_DATE_FORMAT',
    `Invalid date format for ${name}: ${value}. Expected ISO 8601 such as 2026-11-01T00:00:00Z.`,
    [name, value],
  );

export const fractionalTimestamp = (name: string, value: string): EmulatorHttpError =>
  new EmulatorHttpError(400, 'FRACTIONAL_TIMESTAMP', `The timestamp ${value} for ${name} has fractional seconds; send whole seconds.`, [
    name,
    value,
  ]);

export const invalidDateRange = (minDate: string, maxDate: string): EmulatorHttpError =>
  new EmulatorHttpError(400, 'INVALID_DATE_RANGE', `Invalid date range: maxDate ${maxDate} is before minDate ${minDate}.`, [
    minDate,
    maxDate,
  ]);

export const invalidEnumValue = (name: string, value: string): EmulatorHttpError =>
  new EmulatorHttpError(400, 'INVALID_ENUM_VALUE', `An invalid enumeration value ${value} was specified for ${name}.`, [value, name]);

export const groupNotFound = (groupId: string): EmulatorHttpError =>
  new EmulatorHttpError(404, 'GROUP_NOT_FOUND', `No group with ID ${groupId} exists.`, [groupId]);

export const orgNotFound = (orgId: string): EmulatorHttpError =>
  new EmulatorHttpError(404, 'ORG_NOT_FOUND', `No organization with ID ${orgId} exists.`, [orgId]);

export const cannotAccessGroup = (groupId: string): EmulatorHttpError =>
  new EmulatorHttpError(401, 'USER_CANNOT_ACCESS_GROUP', `Current user is not authorized to access group ${groupId}.`, [groupId]);

export const cannotAccessOrg = (orgId: string): EmulatorHttpError =>
  new EmulatorHttpError(401, 'USER_CANNOT_ACCESS_ORG', `Current user is not authorized to access organization ${orgId}.`, [orgId]);

export const ipNotOnAccessList = (address: string): EmulatorHttpError =>
  new EmulatorHttpError(403, 'IP_ADDRESS_NOT_ON_WHITELIST', `IP address ${address} is not allowed to access this resource.`, [address]);

export const resourceNotFound = (path: string): EmulatorHttpError =>
  new EmulatorHttpError(404, 'RESOURCE_NOT_FOUND', `Cannot find resource ${path}.`, [path]);

export const eventNotFound = (id: string): EmulatorHttpError =>
  new EmulatorHttpError(404, 'RESOURCE_NOT_FOUND', `Cannot find event ${id}.`, [id]);

export const methodNotAllowed = (method: string): EmulatorHttpError =>
  new EmulatorHttpError(405, 'METHOD_NOT_ALLOWED', `Method ${method} is not allowed; this API is read-only (GET).`, [method]);

export const rateLimited = (): EmulatorHttpError =>
  new EmulatorHttpError(
    429,
    'RATE_LIMITED',
    'Resource /api/public/v1.0 is limited to a number of requests per minute. Please retry later.',
  );

export const unexpectedError = (): EmulatorHttpError => new EmulatorHttpError(500, 'UNEXPECTED_ERROR', 'Unexpected error.');

export const serviceUnavailable = (): EmulatorHttpError =>
  new EmulatorHttpError(503, 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable. Please retry later.');

export const unauthorized = (): ApiErrorBody => errorBody(401, 'UNAUTHORIZED', 'You are not authorized for this resource.');

/** Atlas Administration API v2: no versioned `Accept` header. */
export const notAcceptable = (accept: string): EmulatorHttpError =>
  new EmulatorHttpError(
    406,
    'NOT_ACCEPTABLE',
    `Accept ${accept || '(none)'} is not acceptable: send Accept: application/vnd.atlas.YYYY-MM-DD+json with a resource version.`,
    [accept],
  );

/** A versioned `Accept` whose date is no version of the resource. */
export const invalidVersionDate = (version: string): EmulatorHttpError =>
  new EmulatorHttpError(400, 'INVALID_VERSION_DATE', `The version ${version} is not a valid version of this resource.`, [version]);

/** Atlas v2: the project was deleted (a 410 about the project, not the resource version). */
export const groupDeleted = (groupId: string): EmulatorHttpError =>
  new EmulatorHttpError(410, 'GROUP_DELETED', `Project ${groupId} has been deleted.`, [groupId]);

/** A resource version that was retired. */
export const versionGone = (version: string): EmulatorHttpError =>
  new EmulatorHttpError(410, 'VERSION_GONE', `The version ${version} of this resource has been removed; upgrade to a newer version.`, [
    version,
  ]);

/** The v2 token bucket of the endpoint set is empty. */
export const rateLimitedTokenBucket = (
  path: string,
  retryAfterSec: number,
  capacity: number,
  refill: number,
  periodSec: number,
  withParameters: boolean,
): EmulatorHttpError =>
  new EmulatorHttpError(
    429,
    'RATE_LIMITED_TOKEN_BUCKET',
    `Resource ${path} is rate limited. Retry after ${retryAfterSec} seconds.`,
    withParameters ? [path, retryAfterSec, capacity, refill, periodSec] : [],
  );

export const timeoutWhilePaging = (): EmulatorHttpError =>
  new EmulatorHttpError(500, 'TIMEOUT_WHILE_PAGING', 'Timeout while paging. Retry with includeCount=false.');
