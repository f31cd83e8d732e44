/**
 * The fixed cast of one scope: its users, API keys, teams and (for a project) clusters and hosts,
 * derived from the dataset seed so generated events refer to a small, consistent world. Pure.
 */
import type { ScopeKind } from '../scope.js';
import { Rng, hash32, hashString } from './random.js';

export interface WorldUser {
  userId: string;
  username: string;
  remoteAddress: string;
}
export interface WorldApiKey {
  apiKeyId: string;
  publicKey: string;
  remoteAddress: string;
}
export interface WorldHost {
  hostId: string;
  hostname: string;
  port: number;
  replicaSetName: string;
  shardName?: string;
}
export interface WorldCluster {
  clusterId: string;
  clusterName: string;
  sharded: boolean;
  hosts: WorldHost[];
}

export interface ScopeWorld {
  readonly kind: ScopeKind;
  readonly scopeId: string;
  /** The organization of a project; the organization itself for an org scope. */
  readonly orgId: string;
  readonly key: string;
  /** 8 hex digits in every id of this scope, between the created seconds and the counter. */
  readonly tag: string;
  readonly seed: number;
  readonly name: string;
  readonly users: WorldUser[];
  readonly apiKeys: WorldApiKey[];
  readonly teamIds: string[];
  readonly clusters: WorldCluster[];
  /** How long one alert episode of one alert source lasts (see alert-lifecycles.ts). */
  readonly alertEpisodeSeconds: number;
}

const FIRST = ['ana', 'bruno', 'chen', 'dara', 'eve', 'farid', 'greta', 'hiro', 'ines', 'jonas', 'kemi', 'lena'];
const LAST = ['silva', 'okafor', 'wang', 'murphy', 'novak', 'haddad', 'larsen', 'sato', 'moreau', 'berg'];
const CLUSTER_NAMES = ['Cluster0', 'orders-prod', 'analytics', 'staging', 'events-archive'];
const PROJECT_NAMES = ['Payments', 'Storefront', 'Data Platform', 'Mobile Backend', 'Internal Tools'];

export function ipv4(rng: Rng): string {
  return `${rng.int(11, 223)}.${rng.int(0, 255)}.${rng.int(0, 255)}.${rng.int(1, 254)}`;
}

function publicKeyText(rng: Rng): string {
  let out = '';
  for (let i = 0; i < 8; i += 1) out += String.fromCharCode(97 + rng.int(0, 25));
  return out;
}

export function buildWorld(
  datasetSeed: number,
  kind: ScopeKind,
  scopeId: string,
  orgId: string,
  tag: string,
  alertEpisodeSeconds: number,
): ScopeWorld {
  const key = `${kind}:${scopeId}`;
  const seed = hash32(datasetSeed, hashString(key));
  const rng = new Rng(seed);
  const now = 1_700_000_000;
  const users = Array.from({ length: rng.int(4, 9) }, () => {
    const first = rng.pick(FIRST);
    return { userId: rng.objectId(now - rng.int(0, 9e7)), username: `${first}.${rng.pick(LAST)}@example.com`, remoteAddress: ipv4(rng) };
  });
  const apiKeys = Array.from({ length: rng.int(1, 3) }, () => ({
    apiKeyId: rng.objectId(now - rng.int(0, 9e7)),
    publicKey: publicKeyText(rng),
    remoteAddress: ipv4(rng),
  }));
  const teamIds = Array.from({ length: rng.int(1, 4) }, () => rng.objectId(now - rng.int(0, 9e7)));
  const clusters: WorldCluster[] = [];
  if (kind === 'group') {
    const count = rng.int(1, 3);
    for (let c = 0; c < count; c += 1) {
      const clusterName = CLUSTER_NAMES[(c + rng.int(0, 4)) % CLUSTER_NAMES.length] as string;
      const sharded = rng.chance(0.35);
      const domain = `${clusterName.toLowerCase()}.${rng.hex(5)}.mongodb.net`;
      const hosts: WorldHost[] = [];
      for (let s = 0; s < (sharded ? 2 : 1); s += 1) {
        const replicaSetName = `atlas-${rng.hex(6)}-shard-${s}`;
        for (let m = 0; m < 3; m += 1) {
          const host: WorldHost = {
            hostId: rng.hex(32),
            hostname: `${clusterName.toLowerCase()}-shard-0${s}-0${m}.${domain}`,
            port: 27017,
            replicaSetName,
          };
          if (sharded) host.shardName = `atlas-${clusterName.toLowerCase()}-shard-${s}`;
          hosts.push(host);
        }
      }
      clusters.push({ clusterId: rng.objectId(now - rng.int(0, 9e7)), clusterName, sharded, hosts });
    }
  }
  const name = kind === 'group' ? rng.pick(PROJECT_NAMES) : `Org ${scopeId.slice(0, 6)}`;
  return { kind, scopeId, orgId, key, tag, seed, name, users, apiKeys, teamIds, clusters, alertEpisodeSeconds };
}
