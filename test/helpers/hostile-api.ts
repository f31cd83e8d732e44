/**
 * A plain HTTP server answering the events feed with the numbers a hostile or broken service (or a
 * proxy in front of one) might send: `answer(n)` says the status, headers and body of the n-th
 * request (from 1); by default a page of one event, short, so each request is a window's last page.
 * It asks for no authentication (the client sends none until challenged) and counts what it served.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostileAnswer {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** Default: a page of one event. */
  readonly body?: string;
}

export interface HostileApi {
  /** Ends in /api/public/v1.0. */
  readonly baseUrl: string;
  /** Requests answered so far. */
  requests(): number;
  /** The headers of every request received. */
  readonly received: IncomingHttpHeaders[];
  close(): Promise<void>;
}

export function onePageBody(n: number): string {
  const id = `64ee${String(n).padStart(20, '0')}`;
  const event = { id, created: new Date(Date.now() - 600_000).toISOString(), eventTypeName: 'JOINED_GROUP' };
  return JSON.stringify({ links: [], results: [event], totalCount: 1 });
}

export async function startHostileApi(answer: (n: number) => HostileAnswer): Promise<HostileApi> {
  let served = 0;
  const received: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    served += 1;
    received.push(req.headers);
    const { status = 200, headers = {}, body = onePageBody(served) } = answer(served);
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public/v1.0`,
    requests: () => served,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
