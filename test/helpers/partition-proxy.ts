/**
 * A TCP proxy a test controls, to model network failures the way they happen in production,
 * without root or iptables:
 *
 * - `partition()`: every byte in both directions is dropped and nothing is closed. Connections
 *   opened during the partition are accepted and then never answered (the client's connect
 *   succeeds, its first request hears nothing).
 * - `heal()`: new connections work again. Connections opened before the heal stay dead for good on
 *   the client's side (still open, still silent), while their server side is closed, as the
 *   server's keepalives would close it: a session holding a lock ends and frees it.
 * - `restart()`: closes every connection on both sides at once, as a server restart does.
 * - `throttle(n)`: the server's bytes reach clients at `n` bytes a second, a trickle that keeps
 *   every per-read timeout happy while a response takes forever (a slow API answers late).
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface PartitionProxy {
  /** The port clients connect to on 127.0.0.1. */
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's. */
  via(url: string): string;
  partition(): void;
  heal(): void;
  restart(): void;
  /** Bytes a second from server to client; undefined for full speed. */
  throttle(bytesPerSecond: number | undefined): void;
  readonly partitioned: boolean;
  /** Connections a client holds open: live ones forward, dead ones drop everything. */
  counts(): { live: number; dead: number };
  close(): Promise<void>;
}

interface Link {
  readonly client: Socket;
  upstream: Socket | undefined;
  live: boolean;
  /** Server bytes held back by the throttle, and whether the server ended after them. */
  held: Buffer[];
  endAfterHeld: boolean;
}

const TICKS_PER_SECOND = 10;

export async function startPartitionProxy(target: { host: string; port: number }): Promise<PartitionProxy> {
  const links = new Set<Link>();
  let partitioned = false;
  let bytesPerSecond: number | undefined;

  const kill = (link: Link) => {
    link.live = false;
    link.client.destroy();
    link.upstream?.destroy();
    links.delete(link);
  };

  // Half-open allowed: a dead link must not answer a client's FIN with its own (a partition drops it).
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    const link: Link = { client, upstream: undefined, live: !partitioned, held: [], endAfterHeld: false };
    links.add(link);
    client.on('error', () => undefined);
    client.on('close', () => {
      link.upstream?.destroy();
      links.delete(link);
    });
    // A dead link reads and discards: the client's writes are taken and never answered.
    client.on('data', (chunk: Buffer) => {
      if (link.live) link.upstream?.write(chunk);
    });
    client.on('end', () => {
      if (link.live) link.upstream?.end();
    });
    if (!link.live) return;
    const upstream = connect({ port: target.port, host: target.host, allowHalfOpen: true });
    link.upstream = upstream;
    client.pause();
    upstream.on('connect', () => client.resume());
    upstream.on('error', () => undefined);
    upstream.on('data', (chunk: Buffer) => {
      if (!link.live) return;
      if (bytesPerSecond === undefined && link.held.length === 0) client.write(chunk);
      else link.held.push(chunk);
    });
    upstream.on('end', () => {
      if (!link.live) return;
      if (link.held.length === 0) client.end();
      else link.endAfterHeld = true;
    });
    // The server closing a live connection reaches the client; a dead link hears nothing.
    upstream.on('close', () => {
      if (link.live) kill(link);
    });
  });
  server.on('error', () => undefined);

  const release = (link: Link, budget: number) => {
    while (budget > 0 && link.held.length > 0) {
      const head = link.held[0]!;
      const part = head.subarray(0, budget);
      link.client.write(part);
      budget -= part.length;
      if (part.length === head.length) link.held.shift();
      else link.held[0] = head.subarray(part.length);
    }
    if (link.held.length === 0 && link.endAfterHeld) link.client.end();
  };
  const trickle = setInterval(() => {
    const budget = bytesPerSecond === undefined ? Infinity : Math.max(1, Math.floor(bytesPerSecond / TICKS_PER_SECOND));
    for (const link of links) if (link.live) release(link, budget);
  }, 1000 / TICKS_PER_SECOND);
  trickle.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    port,
    via(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString().replace(/\/$/, url.endsWith('/') ? '/' : '');
    },
    partition() {
      partitioned = true;
      for (const link of links) link.live = false;
    },
    heal() {
      partitioned = false;
      for (const link of links) {
        if (link.live) continue;
        link.upstream?.destroy();
        link.upstream = undefined;
      }
    },
    restart() {
      for (const link of [...links]) kill(link);
    },
    throttle(rate) {
      bytesPerSecond = rate;
    },
    get partitioned() {
      return partitioned;
    },
    counts() {
      let live = 0;
      for (const link of links) if (link.live) live += 1;
      return { live, dead: links.size - live };
    },
    async close() {
      clearInterval(trickle);
      for (const link of [...links]) kill(link);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
