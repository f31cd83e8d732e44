/**
 * A backfill of many scopes by 1, 2 and 4 worker processes against one PostgreSQL: every scope's
 * range enqueued with `backfill --enqueue`, then the workers (built CLI, default concurrency)
 * started together and timed until the warehouse holds every event. Prints aggregate events/s,
 * the CPU seconds of the workers, the emulator (its own process) and the PostgreSQL backends, and
 * the workers' peak RSS, to show where throughput stops growing and which side saturates.
 * Fresh database, private Redis and emulator per run; 127.0.0.1 only.
 * WORKER_SCALING_SCOPES (8) × WORKER_SCALING_EVENTS (100,000 a scope), WORKER_SCALING_WORKERS (1,2,4).
 * Profile the workers: WORKER_SCALING_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' npx tsx …
 * Run: npx tsx test/bench/worker-scaling.bench.ts
 */
import { measureWorkers, type WorkersMeasure } from './measure-backfill.js';

const SCOPES = Number(process.env.WORKER_SCALING_SCOPES ?? 8);
const EVENTS_PER_SCOPE = Number(process.env.WORKER_SCALING_EVENTS ?? 100_000);
const WORKERS = (process.env.WORKER_SCALING_WORKERS ?? '1,2,4').split(',').map(Number);

const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main(): Promise<void> {
  const runs: WorkersMeasure[] = [];
  for (const workers of WORKERS) {
    const run = await measureWorkers({ eventsPerScope: EVENTS_PER_SCOPE, scopes: SCOPES, days: 30, seed: 5 }, workers);
    runs.push(run);
    console.log(
      `${workers} worker(s): ${fmt(run.events)} events in ${run.seconds.toFixed(1)} s = ${fmt(run.eventsPerSecond)} events/s; ` +
        `CPU s: workers ${run.cpu.workers.toFixed(1)}, emulator ${run.cpu.emulator.toFixed(1)}, PostgreSQL ${run.cpu.postgres.toFixed(1)} ` +
        `(${fmt((1e6 * run.cpu.postgres) / run.events, 1)} µs an event); machine ${run.machine.busy.toFixed(0)}% busy; peak worker RSS ${run.peakRssMiB} MiB; ` +
        `read ${fmt(run.reads.events)} events (${(run.reads.events / run.events).toFixed(3)} per event held) in ${fmt(run.reads.requests)} requests, ` +
        `${run.reads.runsNotSucceeded} window run(s) not succeeded`,
    );
  }
  console.log(
    '\n| workers | events/s | × one worker | workers CPU s | emulator CPU s | PostgreSQL CPU s | machine busy | peak worker RSS |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const run of runs) {
    console.log(
      `| ${run.workers} | ${fmt(run.eventsPerSecond)} | ${(run.eventsPerSecond / runs[0]!.eventsPerSecond).toFixed(2)} | ${run.cpu.workers.toFixed(1)} | ` +
        `${run.cpu.emulator.toFixed(1)} | ${run.cpu.postgres.toFixed(1)} | ${run.machine.busy.toFixed(0)} % | ${run.peakRssMiB} MiB |`,
    );
  }
  console.log(
    `FIGURE worker-scaling: ${SCOPES} scopes × ${fmt(EVENTS_PER_SCOPE)} events; ` +
      runs.map((run) => `${run.workers} worker(s) ${fmt(run.eventsPerSecond)} events/s`).join(', '),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
