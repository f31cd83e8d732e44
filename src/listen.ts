/**
 * Starting a server the way every listener of the project does: resolve once it listens (with the
 * port taken, which `0` leaves to the system), reject with the listen error (EADDRINUSE …) instead
 * of an unhandled 'error' event.
 */
import type { Server as NetServer } from 'node:net';

export async function listenOn(server: NetServer, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}

/** The host part of the URL a local client dials to reach a server listening on `host`: a wildcard address is reached at 127.0.0.1, an IPv6 address in brackets. */
export function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
