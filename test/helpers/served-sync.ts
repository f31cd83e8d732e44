/**
 * A running `events-mirror sync --serve-sql 0` (the CLI child) mirroring the emulator into a copy of
 * the run's migrated embedded warehouse, polling every 2 s, as the served-port tests need it: the
 * port it logged, its output so far, its passes, and the events its first pass landed.
 */
import { type EmulatorOptions, startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { copyMigratedDataDir, type EmbeddedDataDir } from './database.js';
import { emulatorEnv } from './emulator.js';
import { startCli, waitFor, type CliProcess } from './queue-processes.js';
import { daysAgo } from './sync-fixture.js';
import { countCell, syncSummaryRows } from './sync-summary.js';

export interface ServedSync {
  /** The environment the sync runs with (for other CLI children on the same warehouse). */
  readonly env: Record<string, string>;
  readonly emulator: RunningEmulator;
  /** Starts the sync and waits for its port and first pass. */
  start(): Promise<void>;
  readonly sync: CliProcess;
  readonly port: number;
  readonly pid: number;
  /** The new events of the first pass's summary, summed. */
  readonly landed: number;
  stdout(): string;
  stderr(): string;
  /** Passes finished so far. */
  passes(): number;
  /** Waits for `count` passes more than now. */
  morePasses(count: number): Promise<void>;
  /** SIGTERM, and the exit. */
  stop(): ReturnType<CliProcess['stop']>;
  /** Stops what is left (SIGKILL), the emulator, and removes the warehouse. */
  close(): Promise<void>;
}

export async function servedSync(emulatorOptions: Omit<EmulatorOptions, 'port'>): Promise<ServedSync> {
  const emulator = await startEmulator({ port: 0, ...emulatorOptions });
  const dataDir: EmbeddedDataDir = copyMigratedDataDir()!;
  const env = {
    ...emulatorEnv(emulator),
    EVENTS_START_DATE: daysAgo(2).toISOString(),
    EVENTS_MIRROR_DATA_DIR: dataDir.dataDir,
    EVENTS_POLL_INTERVAL_SECONDS: '2',
    LOG_LEVEL: 'info',
  };
  let [stdout, stderr] = ['', ''];
  let sync: CliProcess | undefined;
  let [port, landed] = [0, 0];
  const passes = () => stdout.match(/scopes? synced/g)?.length ?? 0;
  return {
    env,
    emulator,
    async start() {
      sync = startCli('sync', ['sync', '--serve-sql', '0'], env);
      sync.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      sync.child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const serving = /"port":(\d+),"msg":"serving the embedded warehouse read-only/;
      await waitFor('the port', () => Promise.resolve(serving.test(stderr)), 120_000);
      port = Number(serving.exec(stderr)![1]);
      await waitFor('the first pass to finish', () => Promise.resolve(passes() > 0), 180_000);
      landed = [...syncSummaryRows(stdout).values()].reduce((sum, row) => sum + countCell(row.new), 0);
    },
    get sync() {
      return sync!;
    },
    get port() {
      return port;
    },
    get pid() {
      return sync!.child.pid!;
    },
    get landed() {
      return landed;
    },
    stdout: () => stdout,
    stderr: () => stderr,
    passes,
    async morePasses(count) {
      const target = passes() + count;
      await waitFor(`${count} more passes`, () => Promise.resolve(passes() >= target), 120_000);
    },
    async stop() {
      const stopped = await sync!.stop('SIGTERM');
      sync = undefined;
      return stopped;
    },
    async close() {
      await sync?.stop('SIGKILL').catch(() => undefined);
      await emulator.close();
      dataDir.remove();
    },
  };
}
