/**
 * API keys the emulator accepts and what their roles let them read. Organization events need an
 * organization role of that organization that grants read (ORG_OWNER, ORG_MEMBER, ORG_READ_ONLY,
 * ORG_GROUP_CREATOR; not ORG_BILLING_ADMIN alone). Project events need any GROUP_* role on that
 * project, or ORG_OWNER of its organization.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, errorMessage, jsonSyntaxProblem } from '../errors.js';

export interface ApiKeyGrant {
  publicKey: string;
  privateKey: string;
  roles: Array<{ orgId?: string; groupId?: string; roleName: string }>;
  /** The key's API access list: client IP addresses it may be used from. Absent: any address. */
  accessList?: string[] | undefined;
}

export const ORG_ROLES = ['ORG_OWNER', 'ORG_MEMBER', 'ORG_READ_ONLY', 'ORG_GROUP_CREATOR', 'ORG_BILLING_ADMIN'] as const;
export const GROUP_ROLES = [
  'GROUP_OWNER',
  'GROUP_READ_ONLY',
  'GROUP_DATA_ACCESS_ADMIN',
  'GROUP_DATA_ACCESS_READ_WRITE',
  'GROUP_DATA_ACCESS_READ_ONLY',
  'GROUP_CLUSTER_MANAGER',
] as const;
const ORG_READ_ROLES = new Set<string>(['ORG_OWNER', 'ORG_MEMBER', 'ORG_READ_ONLY', 'ORG_GROUP_CREATOR']);

const roleSchema = z.union([
  z.object({ orgId: z.string().min(1), roleName: z.enum(ORG_ROLES) }).strict(),
  z.object({ groupId: z.string().min(1), roleName: z.enum(GROUP_ROLES) }).strict(),
]);

export const keysFileSchema = z
  .array(
    z
      .object({
        publicKey: z.string().min(1),
        privateKey: z.string().min(1),
        roles: z.array(roleSchema),
        accessList: z.array(z.ipv4().or(z.ipv6())).optional(),
      })
      .strict(),
  )
  .min(1)
  .refine((keys) => new Set(keys.map((key) => key.publicKey)).size === keys.length, { message: 'publicKey values must be unique' });

/** Reads and validates a keys file; a bad file is a ConfigError naming the file and the problem. */
export function loadKeysFile(path: string): ApiKeyGrant[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read keys file ${path}: ${errorMessage(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`keys file ${path} is not valid JSON (${jsonSyntaxProblem(error)}): fix the file`);
  }
  const parsed = keysFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    const problem =
      issue?.code === 'invalid_union' && issue.path.includes('roles')
        ? `a role is {orgId, roleName: ${ORG_ROLES.join('|')}} or {groupId, roleName: ${GROUP_ROLES.join('|')}}`
        : (issue?.message ?? 'bad shape');
    throw new ConfigError(
      `keys file ${path} is invalid${where}: ${problem}. Expected a JSON list of ` +
        '{publicKey, privateKey, roles: [{orgId, roleName: ORG_*} | {groupId, roleName: GROUP_*}], accessList?: [IP address]}',
    );
  }
  return parsed.data;
}

/** A throwaway key with ORG_OWNER on every org and GROUP_OWNER on every project. */
export function generateDefaultKey(orgs: readonly string[], groups: readonly string[]): ApiKeyGrant {
  const letters = [...randomBytes(8)].map((byte) => String.fromCharCode(97 + (byte % 26))).join('');
  return {
    publicKey: letters,
    privateKey: randomUUID(),
    roles: [...orgs.map((orgId) => ({ orgId, roleName: 'ORG_OWNER' })), ...groups.map((groupId) => ({ groupId, roleName: 'GROUP_OWNER' }))],
  };
}

/** Whether a request from `remoteAddress` may use the key (IPv4 clients may show as ::ffff:a.b.c.d). */
export function isOnAccessList(key: ApiKeyGrant, remoteAddress: string | undefined): boolean {
  if (key.accessList === undefined) return true;
  const address = remoteAddress?.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
  return address !== undefined && key.accessList.includes(address);
}

export function canReadOrg(key: ApiKeyGrant, orgId: string): boolean {
  return key.roles.some((role) => role.orgId === orgId && ORG_READ_ROLES.has(role.roleName));
}

export function canReadGroup(key: ApiKeyGrant, groupId: string, orgId: string | undefined): boolean {
  return key.roles.some(
    (role) =>
      (role.groupId === groupId && role.roleName.startsWith('GROUP_')) ||
      (orgId !== undefined && role.orgId === orgId && role.roleName === 'ORG_OWNER'),
  );
}

export const serviceAccountsFileSchema = z
  .array(z.object({ clientId: z.string().min(1), clientSecret: z.string().min(1), roles: z.array(roleSchema) }).strict())
  .min(1)
  .refine((accounts) => new Set(accounts.map((a) => a.clientId)).size === accounts.length, { message: 'clientId values must be unique' });

/** Reads a service accounts file: a JSON list of {clientId, clientSecret, roles}; a bad file is a ConfigError. */
export function loadServiceAccountsFile(path: string): Array<{ clientId: string; clientSecret: string; roles: ApiKeyGrant['roles'] }> {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ConfigError(`cannot read service accounts file ${path}: ${errorMessage(error)}`);
  }
  const parsed = serviceAccountsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw new ConfigError(
      `service accounts file ${path} is invalid${where}: ${issue?.message ?? 'bad shape'}. Expected a JSON list of {clientId, clientSecret, roles: [{orgId, roleName: ORG_*} | {groupId, roleName: GROUP_*}]}`,
    );
  }
  return parsed.data;
}
