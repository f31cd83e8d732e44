import { describe, expect, it } from 'vitest';
import { processesJson, renderProcesses } from '../../src/report/processes-status.js';
import type { ProcessSeen } from '../../src/warehouse/processes.repository.js';

const NOW = new Date('2026-11-28T10:00:00Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);
const seen = (p: Partial<ProcessSeen> & Pick<ProcessSeen, 'kind' | 'pid'>): ProcessSeen => ({
  id: `id-${p.pid}`,
  host: 'host-a',
  startedAt: ago(3600),
  lastSeenAt: ago(5),
  stoppedAt: null,
  ...p,
});

describe("status's processes", () => {
  it('calls a process silent after three heartbeats unheard, and says when no scheduler runs', () => {
    const processes = [
      seen({ kind: 'scheduler', pid: 10, lastSeenAt: ago(46) }),
      seen({ kind: 'worker', pid: 11, lastSeenAt: ago(44) }),
      seen({ kind: 'worker', pid: 12, lastSeenAt: ago(600), stoppedAt: ago(600) }),
      seen({ kind: 'worker', pid: 13, host: 'a-very-long-host-name.internal.example.com', lastSeenAt: ago(7200) }),
    ];
    expect(processesJson(processes, NOW).map((p) => p.state)).toEqual(['silent', 'running', 'stopped', 'silent']);
    const text = renderProcesses(processes, NOW);
    expect(text).toContain('processes: 0 schedulers, 1 worker running (heartbeat 15 s, last 24 h)');
    expect(text).toContain('no scheduler running: nothing is polled on schedule');
    expect(text).toMatch(/scheduler\s+host-a\s+10\s+SILENT\s+46 s ago/);
    expect(text).toMatch(/worker\s+host-a\s+12\s+stopped\s+stopped 10 min ago/);
    expect(text).toMatch(/worker\s+\S+…\s+13\s+SILENT\s+2 h ago/);
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(renderProcesses([], NOW)).toBe('');
  });
});
