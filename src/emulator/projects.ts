/**
 * Projects as the service lists them (`GET /orgs/{orgId}/groups`, `GET /groups/{groupId}`):
 * id, name, orgId, links and the host counters, derived from the project's generated clusters.
 * Pure; no I/O.
 */
import type { ProjectInfo } from './dataset.js';

export interface ProjectDocument {
  activeAgentCount: number;
  hostCounts: { arbiter: number; config: number; primary: number; secondary: number; mongos: number; master: number; slave: number };
  id: string;
  links: Array<{ href: string; rel: string }>;
  name: string;
  orgId: string;
  publicApiEnabled: boolean;
  replicaSetCount: number;
  shardCount: number;
  tags: string[];
}

export function projectDocument(project: ProjectInfo, baseUrl: string): ProjectDocument {
  const hosts = project.clusters.flatMap((cluster) => cluster.hosts);
  const replicaSets = new Set(hosts.map((host) => host.replicaSetName)).size;
  const shards = new Set(hosts.flatMap((host) => (host.shardName ? [host.shardName] : []))).size;
  const sharded = project.clusters.filter((cluster) => cluster.sharded).length;
  return {
    activeAgentCount: hosts.length,
    hostCounts: {
      arbiter: 0,
      config: sharded * 3,
      primary: replicaSets,
      secondary: hosts.length - replicaSets,
      mongos: sharded * 2,
      master: 0,
      slave: 0,
    },
    id: project.id,
    links: [{ href: `${baseUrl}/groups/${project.id}`, rel: 'self' }],
    name: project.name,
    orgId: project.orgId,
    publicApiEnabled: true,
    replicaSetCount: replicaSets,
    shardCount: shards,
    tags: [],
  };
}
