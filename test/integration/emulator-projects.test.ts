/**
 * The emulator's project endpoints, as discovery reads them: `GET /orgs/{orgId}/groups` paged,
 * `GET /groups/{groupId}` (read with curl's own Digest), roles that span organizations, and
 * projects added and removed while it runs.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { EventsClient } from '../../src/api/client.js';
import { startEmulator, type ApiKeyGrant, type RunningEmulator } from '../../src/emulator/server.js';
import { parseScope } from '../../src/scope.js';

const run = promisify(execFile);
const ORG_A = '5f00000000000000000000a1';
const ORG_B = '5f00000000000000000000b1';
const A_PROJECTS = ['6a00000000000000000000a1', '6a00000000000000000000a2'];
const B_PROJECT = '6a00000000000000000000b1';
const A_MEMBER: ApiKeyGrant = { publicKey: 'amember', privateKey: 'a-member-secret', roles: [{ orgId: ORG_A, roleName: 'ORG_MEMBER' }] };
const BOTH: ApiKeyGrant = {
  publicKey: 'bothorgs',
  privateKey: 'both-orgs-secret',
  roles: [
    { orgId: ORG_A, roleName: 'ORG_OWNER' },
    { orgId: ORG_B, roleName: 'ORG_OWNER' },
  ],
};

describe('emulator: the projects of an organization', () => {
  let emulator: RunningEmulator;
  const client = (key: ApiKeyGrant) =>
    new EventsClient({ baseUrl: emulator.baseUrl, publicKey: key.publicKey, privateKey: key.privateKey });

  beforeAll(async () => {
    emulator = await startEmulator({
      port: 0,
      seed: 141,
      orgs: [ORG_A, ORG_B],
      groups: A_PROJECTS,
      projects: [{ id: B_PROJECT, orgId: ORG_B, name: 'Billing' }],
      eventsPerScope: 20,
      days: 1,
      keys: [A_MEMBER, BOTH],
    });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('lists each organization its own projects, with names, for a key whose roles span both', async () => {
    const both = client(BOTH);
    try {
      const a = await both.listProjects(parseScope(`org:${ORG_A}`));
      expect(a.projects.map((p) => p.id)).toEqual(A_PROJECTS);
      expect(a.projects.every((p) => p.orgId === ORG_A && p.name.length > 0)).toBe(true);
      const b = await both.listProjects(parseScope(`org:${ORG_B}`));
      expect(b.projects).toEqual([{ id: B_PROJECT, name: 'Billing', orgId: ORG_B }]);
    } finally {
      await both.close();
    }
  });

  it('refuses a key without a role in the organization, naming the scope and the error code', async () => {
    const member = client(A_MEMBER);
    try {
      expect((await member.listProjects(parseScope(`org:${ORG_A}`))).projects).toHaveLength(2);
      const refused = await member.listProjects(parseScope(`org:${ORG_B}`)).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ApiError);
      expect((refused as ApiError).message).toContain(`org:${ORG_B}`);
      expect((refused as ApiError).errorCode).toBe('USER_CANNOT_ACCESS_ORG');
    } finally {
      await member.close();
    }
  });

  it('serves one project as the service does, to curl', async () => {
    const { stdout } = await run('/usr/bin/curl', [
      '-s',
      '--digest',
      '-u',
      `${BOTH.publicKey}:${BOTH.privateKey}`,
      `${emulator.baseUrl}/groups/${B_PROJECT}`,
    ]);
    const project = JSON.parse(stdout) as Record<string, unknown>;
    expect(project).toMatchObject({ id: B_PROJECT, name: 'Billing', orgId: ORG_B, publicApiEnabled: true });
    expect(project.links).toEqual([{ href: `${emulator.baseUrl}/groups/${B_PROJECT}`, rel: 'self' }]);
    for (const counter of ['activeAgentCount', 'replicaSetCount', 'shardCount']) expect(typeof project[counter]).toBe('number');
    expect(Object.keys(project.hostCounts as object).sort()).toEqual([
      'arbiter',
      'config',
      'master',
      'mongos',
      'primary',
      'secondary',
      'slave',
    ]);
  });

  it('pages through more than 500 projects, and follows projects added and removed while it runs', async () => {
    const added = Array.from({ length: 520 }, (_, i) => `6b${String(i).padStart(22, '0')}`);
    for (const id of added) emulator.addProject(id, { orgId: ORG_B });
    emulator.removeProject(B_PROJECT);
    const both = client(BOTH);
    try {
      const listed = await both.listProjects(parseScope(`org:${ORG_B}`));
      expect(listed.projects.map((p) => p.id)).toEqual(added);
      const gone = await both.listEvents(parseScope(`group:${B_PROJECT}`), {}).catch((error: unknown) => error);
      expect((gone as ApiError).errorCode).toBe('GROUP_NOT_FOUND');
      const page = await both.listEvents(parseScope(`group:${added[0]}`), {});
      expect(page.events.length).toBeGreaterThan(0);
    } finally {
      await both.close();
    }
  });
});
