/**
 * Pages served per second by the emulator: 500-event pages from a 1,000,000-event scope, with a
 * Digest client that reuses its nonce (nc counting up), as a well-behaved client does. The
 * emulator runs as its own process (the CLI), so the client's JSON parsing does not share its
 * event loop; its memory (RSS) is read from /proc. Run: npx tsx test/bench/emulator-pages.bench.ts
 */
import { Agent } from 'node:http';
import { BenchDigestClient, memoryOf, startEmulatorProcess as startEmulatorCli } from './bench-emulator.js';

const EVENTS = 1_000_000;
const ORG = '5f0000000000000000000b01';
const PHASE_MS = 5_000;

async function phase(
  name: string,
  concurrency: number,
  agent: Agent,
  user: string,
  password: string,
  nextUrl: () => string,
): Promise<number> {
  const deadline = performance.now() + PHASE_MS;
  let pages = 0;
  let events = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const client = new BenchDigestClient(agent, user, password);
      while (performance.now() < deadline) {
        const body = JSON.parse(await client.get(nextUrl())) as { results: unknown[] };
        pages += 1;
        events += body.results.length;
      }
    }),
  );
  const perSecond = pages / ((performance.now() - started) / 1000);
  console.log(
    `${name}: ${pages} pages (${(events / pages).toFixed(0)} events/page avg) in ${PHASE_MS / 1000} s = ${perSecond.toFixed(0)} pages/s`,
  );
  return perSecond;
}

function startEmulatorProcess(events: number) {
  return startEmulatorCli(['--org', ORG, '--events-per-scope', String(events), '--days', '365']);
}

/** RSS of the same process holding 10 events: the runtime's own share (Node, tsx, the CLI's modules). */
async function baselineRssMiB(): Promise<number> {
  const { child, ready } = startEmulatorProcess(10);
  try {
    await ready;
    await new Promise((resolve) => setTimeout(resolve, 500));
    return memoryOf(child.pid as number).rssMiB;
  } finally {
    child.kill('SIGTERM');
  }
}

async function main(): Promise<void> {
  const baseline = await baselineRssMiB();
  const startedAt = performance.now();
  const { child, ready } = startEmulatorProcess(EVENTS);
  const timeout = setTimeout(() => child.kill('SIGKILL'), 100_000);
  try {
    const emulator = await ready;
    const startupMs = performance.now() - startedAt;
    const base = `${emulator.baseUrl}/orgs/${ORG}/events`;
    const user = emulator.publicKey;
    const password = emulator.privateKey;
    const idle = memoryOf(child.pid as number);
    console.log(
      `emulator ready with ${EVENTS.toLocaleString('en')} events in ${(startupMs / 1000).toFixed(1)} s (process start included); RSS ${idle.rssMiB} MiB (same process with 10 events: ${baseline} MiB)`,
    );

    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const pagesTotal = EVENTS / 500;
    const randomPage = (): number => 1 + Math.floor(Math.random() * pagesTotal);
    const sequential = await phase(
      'unfiltered, random page of 2000, 1 client',
      1,
      agent,
      user,
      password,
      () => `${base}?itemsPerPage=500&pageNum=${randomPage()}`,
    );
    const parallel = await phase(
      'unfiltered, random page of 2000, 4 clients',
      4,
      agent,
      user,
      password,
      () => `${base}?itemsPerPage=500&pageNum=${randomPage()}`,
    );
    const nowSec = Math.floor(Date.now() / 1000);
    await phase('eventType x2 + 30-day window, 4 clients', 4, agent, user, password, () => {
      const max = nowSec - Math.floor(Math.random() * 300 * 86_400);
      const iso = (sec: number): string => new Date(sec * 1000).toISOString().replace('.000Z', 'Z');
      return `${base}?itemsPerPage=500&eventType=JOINED_ORG&eventType=INVOICE_CLOSED&minDate=${iso(max - 30 * 86_400)}&maxDate=${iso(max)}&pageNum=${1 + Math.floor(Math.random() * 3)}`;
    });
    const after = memoryOf(child.pid as number);
    agent.destroy();
    console.log(
      `emulator memory holding ${EVENTS.toLocaleString('en')} events: RSS ${after.rssMiB} MiB after load, peak ${after.peakMiB} MiB; ${after.rssMiB - baseline} MiB above the 10-event process`,
    );
    console.log(
      `FIGURE emulator-pages: ${sequential.toFixed(0)} pages/s (1 client), ${parallel.toFixed(0)} pages/s (4 clients) of 500 events on a 1,000,000-event scope; RSS ${after.rssMiB} MiB (+${after.rssMiB - baseline} MiB over 10 events)`,
    );
  } finally {
    clearTimeout(timeout);
    child.kill('SIGTERM');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
