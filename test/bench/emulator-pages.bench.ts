/**
 * Pages served per second by the emulator: 500-event pages from a 1,000,000-event scope, with a
 * Digest client that reuses its nonce (nc counting up), as a well-behaved client does. The
 * emulator runs as its own process (the CLI), so the client's JSON parsing does not share its
 * event loop; its memory (RSS) is read from /proc. Run: npx tsx test/bench/emulator-pages.bench.ts
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

const EVENTS = 1_000_000;
const ORG = '5f0000000000000000000b01';
const PHASE_MS = 5_000;
const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMiB: Math.round(kib('VmRSS') / 1024), peakMiB: Math.round(kib('VmHWM') / 1024) };
}

function get(agent: Agent, url: string, authorization?: string): Promise<{ status: number; header?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { Accept: 'application/json', ...(authorization ? { Authorization: authorization } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, header: res.headers['www-authenticate'], body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A minimal Digest client: one nonce, nc up by one per request, a new nonce on stale=true. */
class BenchDigestClient {
  private nonce = '';
  private nc = 0;
  private readonly cnonce = randomBytes(8).toString('hex');

  constructor(private readonly agent: Agent, private readonly user: string, private readonly password: string) {}

  async get(url: string): Promise<string> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const answer = await get(this.agent, url, this.nonce ? this.authorization(url) : undefined);
      if (answer.status === 200) return answer.body;
      if (answer.status !== 401) throw new Error(`GET ${url}: ${answer.status} ${answer.body.slice(0, 200)}`);
      this.nonce = /nonce="([^"]+)"/.exec(answer.header ?? '')?.[1] ?? '';
      this.nc = 0;
    }
    throw new Error(`GET ${url}: Digest authentication did not succeed`);
  }

  private authorization(url: string): string {
    const { pathname, search } = new URL(url);
    const uri = pathname + search;
    this.nc += 1;
    const nc = this.nc.toString(16).padStart(8, '0');
    const realm = 'MMS Public API';
    const ha1 = md5(`${this.user}:${realm}:${this.password}`);
    const response = md5(`${ha1}:${this.nonce}:${nc}:${this.cnonce}:auth:${md5(`GET:${uri}`)}`);
    return `Digest username="${this.user}", realm="${realm}", nonce="${this.nonce}", uri="${uri}", algorithm=MD5, response="${response}", qop=auth, nc=${nc}, cnonce="${this.cnonce}"`;
  }
}

async function phase(name: string, concurrency: number, agent: Agent, user: string, password: string, nextUrl: () => string): Promise<number> {
  const deadline = performance.now() + PHASE_MS;
  let pages = 0;
  let events = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    const client = new BenchDigestClient(agent, user, password);
    while (performance.now() < deadline) {
      const body = JSON.parse(await client.get(nextUrl())) as { results: unknown[] };
      pages += 1;
      events += body.results.length;
    }
  }));
  const perSecond = pages / ((performance.now() - started) / 1000);
  console.log(`${name}: ${pages} pages (${(events / pages).toFixed(0)} events/page avg) in ${PHASE_MS / 1000} s = ${perSecond.toFixed(0)} pages/s`);
  return perSecond;
}

function startEmulatorProcess(events: number): { child: ReturnType<typeof spawn>; line: Promise<string> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'emulator', '--port', '0', '--org', ORG, '--events-per-scope', String(events), '--days', '365'], {
    stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  const line = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += String(chunk);
      if (out.includes('\n')) resolve(out.split('\n')[0] as string);
    });
    child.on('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  return { child, line };
}

/** RSS of the same process holding 10 events: the runtime's own share (Node, tsx, the CLI's modules). */
async function baselineRssMiB(): Promise<number> {
  const { child, line } = startEmulatorProcess(10);
  try {
    await line;
    await new Promise((resolve) => setTimeout(resolve, 500));
    return memoryOf(child.pid as number).rssMiB;
  } finally {
    child.kill('SIGTERM');
  }
}

async function main(): Promise<void> {
  const baseline = await baselineRssMiB();
  const startedAt = performance.now();
  const { child, line: firstLine } = startEmulatorProcess(EVENTS);
  const timeout = setTimeout(() => child.kill('SIGKILL'), 100_000);
  try {
    const line = await firstLine;
    const startupMs = performance.now() - startedAt;
    const vars = Object.fromEntries(line.split(' ').map((pair) => pair.split('=') as [string, string]));
    const base = `${vars.EVENTS_API_BASE_URL}/orgs/${ORG}/events`;
    const user = vars.EVENTS_API_PUBLIC_KEY as string;
    const password = vars.EVENTS_API_PRIVATE_KEY as string;
    const idle = memoryOf(child.pid as number);
    console.log(`emulator ready with ${EVENTS.toLocaleString('en')} events in ${(startupMs / 1000).toFixed(1)} s (process start included); RSS ${idle.rssMiB} MiB (same process with 10 events: ${baseline} MiB)`);

    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const pagesTotal = EVENTS / 500;
    const randomPage = (): number => 1 + Math.floor(Math.random() * pagesTotal);
    const sequential = await phase('unfiltered, random page of 2000, 1 client', 1, agent, user, password, () => `${base}?itemsPerPage=500&pageNum=${randomPage()}`);
    const parallel = await phase('unfiltered, random page of 2000, 4 clients', 4, agent, user, password, () => `${base}?itemsPerPage=500&pageNum=${randomPage()}`);
    const nowSec = Math.floor(Date.now() / 1000);
    await phase('eventType x2 + 30-day window, 4 clients', 4, agent, user, password, () => {
      const max = nowSec - Math.floor(Math.random() * 300 * 86_400);
      const iso = (sec: number): string => new Date(sec * 1000).toISOString().replace('.000Z', 'Z');
      return `${base}?itemsPerPage=500&eventType=JOINED_ORG&eventType=INVOICE_CLOSED&minDate=${iso(max - 30 * 86_400)}&maxDate=${iso(max)}&pageNum=${1 + Math.floor(Math.random() * 3)}`;
    });
    const after = memoryOf(child.pid as number);
    agent.destroy();
    console.log(`emulator memory holding ${EVENTS.toLocaleString('en')} events: RSS ${after.rssMiB} MiB after load, peak ${after.peakMiB} MiB; ${after.rssMiB - baseline} MiB above the 10-event process`);
    console.log(`FIGURE emulator-pages: ${sequential.toFixed(0)} pages/s (1 client), ${parallel.toFixed(0)} pages/s (4 clients) of 500 events on a 1,000,000-event scope; RSS ${after.rssMiB} MiB (+${after.rssMiB - baseline} MiB over 10 events)`);
  } finally {
    clearTimeout(timeout);
    child.kill('SIGTERM');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
