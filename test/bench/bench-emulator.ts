/**
 * Shared by the benchmarks that run the emulator as its own process (the CLI), so its CPU and
 * memory stay apart from the measured side: start it and read its start line, read a process's
 * memory and CPU time from /proc, and a minimal Digest client for direct requests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

/** The variables of the emulator's start line: EVENTS_API_BASE_URL, the key pair, EVENTS_SCOPES. */
export interface EmulatorStartLine {
  readonly baseUrl: string;
  readonly publicKey: string;
  readonly privateKey: string;
  readonly scopes: readonly string[];
}

export interface EmulatorProcess {
  readonly child: ChildProcess;
  /** Resolves once the emulator printed its start line (it is listening then). */
  readonly ready: Promise<EmulatorStartLine>;
}

/** `events-mirror emulator --port 0 <flags>` in its own process; kill `child` when done. */
export function startEmulatorProcess(flags: readonly string[]): EmulatorProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'emulator', '--port', '0', ...flags], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'warn' },
  });
  const ready = new Promise<EmulatorStartLine>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk) => {
      out += String(chunk);
      if (out.includes('\n')) resolve(parseStartLine(out.split('\n')[0] as string));
    });
    child.on('exit', (code, signal) => reject(new Error(`emulator exited with ${code ?? signal}`)));
  });
  return { child, ready };
}

function parseStartLine(line: string): EmulatorStartLine {
  const vars = Object.fromEntries(line.split(' ').map((pair) => pair.split('=') as [string, string]));
  const value = (name: string): string => {
    const found = vars[name];
    if (found === undefined) throw new Error(`the emulator's start line has no ${name}: ${line}`);
    return found;
  };
  return {
    baseUrl: value('EVENTS_API_BASE_URL'),
    publicKey: value('EVENTS_API_PUBLIC_KEY'),
    privateKey: value('EVENTS_API_PRIVATE_KEY'),
    scopes: value('EVENTS_SCOPES').split(','),
  };
}

/** Current (VmRSS) and peak (VmHWM) resident memory of a live process, in MiB. */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMiB: Math.round(kib('VmRSS') / 1024), peakMiB: Math.round(kib('VmHWM') / 1024) };
}

/** User + system CPU seconds a live process has used (Linux clock ticks of 1/100 s). */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which sits in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Machine-wide CPU time so far, in clock ticks, from the first line of /proc/stat. */
export function machineCpuTicks(): { busy: number; idle: number; iowait: number } {
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return { busy: user + nice + system + irq + softirq + steal, idle, iowait };
}

const md5 = (text: string): string => createHash('md5').update(text).digest('hex');

function get(agent: Agent, url: string, authorization?: string): Promise<{ status: number; header?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { agent, headers: { Accept: 'application/json', ...(authorization ? { Authorization: authorization } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, header: res.headers['www-authenticate'], body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A minimal Digest client: one nonce, nc up by one per request, a new nonce on stale=true. */
export class BenchDigestClient {
  private nonce = '';
  private nc = 0;
  private readonly cnonce = randomBytes(8).toString('hex');

  constructor(
    private readonly agent: Agent,
    private readonly user: string,
    private readonly password: string,
  ) {}

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
