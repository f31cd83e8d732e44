/**
 * Alert lifecycles for a generator that builds each event on its own: an alert event finds its
 * alert from its creation time alone, so lifecycles are coherent without any state. Pure.
 *
 * Each alert family of a project has SLOTS fixed alert sources (a host, a metric, a configuration).
 * A slot's time is cut into episodes of `world.alertEpisodeSeconds`, staggered by a fifth per slot.
 * Within an episode, the first 60 % is when it opens (and re-fires), the next 20 % when it is
 * acknowledged, the last 20 % when it closes. An event of a role picks, among the slots in that
 * role's phase at its second, one slot; so a close always follows its episode's opening phase, an
 * acknowledgement comes between, and an episode that drew no close event stays open.
 */
import { Rng, hash32 } from './random.js';
import type { ScopeWorld, WorldCluster, WorldHost } from './scope-world.js';

export type AlertFamily = 'metric' | 'host' | 'replica';
export type AlertPhase = 'open' | 'acknowledge' | 'close';

export const SLOTS = 5;
/** In fifths of an episode. */
const PHASE_START: Record<AlertPhase, number> = { open: 0, acknowledge: 3, close: 4 };
const PHASE_END: Record<AlertPhase, number> = { open: 3, acknowledge: 4, close: 5 };
const FAMILY_CODE: Record<AlertFamily, number> = { metric: 0xa1e, host: 0xa2e, replica: 0xa3e };

export const METRICS: ReadonlyArray<readonly [name: string, units: string, scale: number]> = [
  ['CONNECTIONS', 'RAW', 5000],
  ['OPCOUNTER_QUERY', 'RAW', 20000],
  ['ASSERT_REGULAR', 'RAW', 50],
  ['QUERY_TARGETING_SCANNED_OBJECTS_PER_RETURNED', 'RAW', 10000],
  ['CACHE_DIRTY_BYTES', 'BYTES', 5e9],
  ['MEMORY_RESIDENT', 'MEGABYTES', 64000],
  ['DB_STORAGE_TOTAL', 'GIGABYTES', 4000],
  ['OP_EXECUTION_TIME_READS', 'MILLISECONDS', 900],
  ['OPLOG_REPLICATION_LAG_TIME', 'SECONDS', 600],
  ['OPLOG_MASTER_TIME_ESTIMATED_TTL', 'HOURS', 72],
  ['NETWORK_BYTES_IN', 'KILOBYTES', 80000],
  ['DISK_PARTITION_IOPS_TOTAL', 'RAW', 3000],
  ['BACKUP_OPLOG_WINDOW', 'DAYS', 7],
  ['NETWORK_THROUGHPUT', 'MEGABITS', 900],
  ['LOGICAL_SIZE', 'TERABYTES', 3],
];

export interface AlertEpisode {
  readonly alertId: string;
  readonly alertConfigId: string;
  readonly cluster: WorldCluster;
  readonly host: WorldHost;
  readonly metric: readonly [name: string, units: string, scale: number];
  /** Metric values at or above it are outside the threshold. */
  readonly threshold: number;
}

/** The episode an alert event of `family` and `phase` created at `created` belongs to; `u` in [0, 1) picks among candidates. */
export function alertEpisodeOf(world: ScopeWorld, family: AlertFamily, phase: AlertPhase, created: number, u: number): AlertEpisode {
  // Whole seconds throughout: with an episode length divisible by SLOTS, every second of every
  // phase has exactly one candidate slot per fifth of the episode, with no rounding gaps.
  const length = world.alertEpisodeSeconds;
  const fifth = length / SLOTS;
  const candidates: number[] = [];
  for (let slot = 0; slot < SLOTS; slot += 1) {
    const inPhase = (created - slot * fifth) % length;
    const fifths = Math.floor((inPhase < 0 ? inPhase + length : inPhase) / fifth);
    if (fifths >= PHASE_START[phase] && fifths < PHASE_END[phase]) candidates.push(slot);
  }
  const slot = candidates[Math.floor(u * candidates.length)];
  if (slot === undefined) throw new Error(`alert episodes: ${length} s is not a multiple of ${SLOTS}`);
  const startSec = slot * fifth + Math.floor((created - slot * fifth) / length) * length;
  const source = new Rng(hash32(world.seed, FAMILY_CODE[family], slot));
  const cluster = source.pick(world.clusters);
  const host = source.pick(cluster.hosts);
  const metric = source.pick(METRICS);
  const threshold = Math.round(metric[2] * (0.5 + source.next() * 0.3));
  const alertConfigId = source.objectId(1_690_000_000 + source.int(0, 9e6));
  const alertId = new Rng(hash32(world.seed, FAMILY_CODE[family], slot, startSec)).objectId(startSec);
  return { alertId, alertConfigId, cluster, host, metric, threshold };
}
