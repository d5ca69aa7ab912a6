import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A TCP port free on 127.0.0.1 for a service a test starts, chosen below the kernel's ephemeral range
 * (net.ipv4.ip_local_port_range, 32768–60999 by default). A port the kernel hands out for `listen(0)`
 * comes from that range, which every outgoing connection of the parallel suites also draws from: one
 * of them could take it between the probe and the child's listen (EADDRINUSE). Below the range only
 * another test's choice can collide, and startChild tries another port when that happens.
 */
export async function freePort(): Promise<number> {
  const [low] = ephemeralRange();
  const top = Math.min(low, 65536) - 1;
  const bottom = Math.max(10_000, top - 20_000);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = bottom + Math.floor(Math.random() * (top - bottom));
    if (await canListen(port)) return port;
  }
  return anyPort();
}

function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low > 11_000 && high >= low) return [low, high];
  } catch {
    // not Linux: the IANA dynamic range
  }
  return [49152, 65535];
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function anyPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
