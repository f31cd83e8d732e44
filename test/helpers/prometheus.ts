/**
 * A real Prometheus for tests (Debian's `prometheus` package): its own temporary folder, a free
 * port on 127.0.0.1, the scrape targets and rule files given, and its HTTP API.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitFor } from './queue-processes.js';

/** The binary on PATH or in /usr/bin; throws naming the package to install when it is in neither. */
export function findBinary(name: string): string {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), '/usr/bin'];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(
    `${name} not found on PATH or in /usr/bin: install Debian's prometheus package (apt-get install -y prometheus; .ci/run does it)`,
  );
}

export interface PromSeries {
  readonly metric: Record<string, string>;
  readonly value?: [number, string];
}

export interface PromAnswer {
  readonly status: 'success' | 'error';
  readonly resultType?: string;
  readonly result: PromSeries[];
  readonly error?: string;
}

export interface RunningPrometheus {
  readonly url: string;
  /** An instant query at now through /api/v1/query. */
  query(expr: string): Promise<PromAnswer>;
  /** GET an API path (e.g. /api/v1/rules) and return its `data`. */
  api<T>(apiPath: string): Promise<T>;
  output(): string;
  stop(): Promise<void>;
}

export interface PrometheusOptions {
  /** Scrape job name → host:port targets. */
  readonly targets: Readonly<Record<string, readonly string[]>>;
  readonly ruleFiles?: readonly string[];
  readonly intervalSeconds?: number;
}

export async function startPrometheus(options: PrometheusOptions): Promise<RunningPrometheus> {
  const binary = findBinary('prometheus');
  const dir = mkdtempSync(path.join(tmpdir(), 'em-prometheus-'));
  const every = `${options.intervalSeconds ?? 1}s`;
  const config = {
    global: { scrape_interval: every, evaluation_interval: every },
    rule_files: options.ruleFiles ?? [],
    scrape_configs: Object.entries(options.targets).map(([job, targets]) => ({ job_name: job, static_configs: [{ targets }] })),
  };
  // JSON is YAML: no YAML writer needed.
  writeFileSync(path.join(dir, 'prometheus.yml'), JSON.stringify(config, null, 2));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${path.join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      `prometheus ready on ${url}`,
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${output}`);
        return (await fetch(`${url}/-/ready`)).ok;
      },
      60_000,
      200,
    );
  } catch (error) {
    await stop();
    throw error;
  }

  const api = async <T>(apiPath: string): Promise<T> => {
    const response = await fetch(`${url}${apiPath}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`${apiPath}: ${body.error ?? response.status}`);
    return body.data;
  };
  return {
    url,
    api,
    async query(expr) {
      const response = await fetch(`${url}/api/v1/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ query: expr }).toString(),
      });
      const body = (await response.json()) as {
        status: 'success' | 'error';
        data?: { resultType: string; result: PromSeries[] };
        error?: string;
      };
      return {
        status: body.status,
        result: body.data?.result ?? [],
        ...(body.data ? { resultType: body.data.resultType } : {}),
        ...(body.error ? { error: body.error } : {}),
      };
    },
    output: () => `--- prometheus ---\n${output}`,
    stop,
  };
}
