/**
 * The Atlas Administration API v2 dialect of the emulator: its path prefix and the versioned
 * `Accept` check (406 without a versioned media type, 400 INVALID_VERSION_DATE for a date that is
 * no version of the resource, 410 VERSION_GONE for a version configured as retired). Pure.
 */
import { invalidVersionDate, notAcceptable, versionGone, type EmulatorHttpError } from './errors.js';

export const ATLAS_V2_PREFIX = '/api/atlas/v2';
export const ATLAS_V1_PREFIX = '/api/atlas/v1.0';

/** The events resources' only version. */
export const ATLAS_EVENTS_VERSION = '2023-01-01';

export interface AtlasVersions {
  /** Versions served (default: 2023-01-01). */
  readonly supported: readonly string[];
  /** Versions that answer 410 VERSION_GONE (default: none). */
  readonly retired: readonly string[];
}

const VERSIONED = /^application\/vnd\.atlas\.(\d{4}-\d{2}-\d{2})\+json$/i;

/** The version the `Accept` header asks for, or the error the service answers. */
export function checkAccept(accept: string | undefined, versions: AtlasVersions): string | EmulatorHttpError {
  const types = (accept ?? '')
    .split(',')
    .map((part) => part.split(';')[0]!.trim())
    .filter(Boolean);
  const version = types.map((type) => VERSIONED.exec(type)?.[1]).find((found) => found !== undefined);
  if (version === undefined) return notAcceptable(accept ?? '');
  if (versions.retired.includes(version)) return versionGone(version);
  if (!versions.supported.includes(version)) return invalidVersionDate(version);
  return version;
}
