import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  type: string;
  body: any;
  headers: http.IncomingHttpHeaders;
  /** Which of the receiver's secrets verified it (null: none did). */
  verifiedWith: string | null;
  at: number;
}

/**
 * A webhook receiver on 127.0.0.1 that verifies every request with the `standardwebhooks` package,
 * as a merchant would. `respond` decides the answer per request (default 200 at once); `down()`
 * closes the port (connection refused) and `up()` opens it again on the same port.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Requests that reached us (verified or not), in arrival order. */
  requests = 0;
  secrets: string[] = [];
  respond: (req: Received, n: number) => { status: number; delayMs?: number } = () => ({ status: 200 });
  private server: http.Server | null = null;
  private port = 0;
  private readonly sockets = new Set<import('node:net').Socket>();
  private closed = false;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async up(): Promise<this> {
    // A test that timed out goes on running after its teardown closed the receiver: it must not open
    // a port again, which would keep jest's worker from exiting.
    if (this.closed) throw new Error('this receiver was closed by the test teardown');
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const headers = req.headers as Record<string, string>;
        let verifiedWith: string | null = null;
        for (const secret of this.secrets) {
          try {
            new Webhook(secret).verify(raw, headers);
            verifiedWith = secret;
            break;
          } catch {
            /* not this one */
          }
        }
        let body: any = null;
        try {
          body = JSON.parse(raw);
        } catch {
          /* kept null */
        }
        const r: Received = { id: String(headers['webhook-id']), type: body?.type, body, headers: req.headers, verifiedWith, at: Date.now() };
        const n = ++this.requests;
        const answer = verifiedWith ? this.respond(r, n) : { status: 400 };
        const reply = () => {
          if (verifiedWith && answer.status >= 200 && answer.status < 300) this.received.push(r);
          if (!res.destroyed) res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(verifiedWith ? `answer ${answer.status}` : 'signature refused');
        };
        if (answer.delayMs) setTimeout(reply, answer.delayMs);
        else reply();
      });
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async down(): Promise<void> {
    if (!this.server) return;
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Down for good (the teardown's): a later `up()` is refused. */
  async close(): Promise<void> {
    this.closed = true;
    await this.down();
  }

  ids(): string[] {
    return this.received.map((r) => r.id);
  }

  /** Waits until `check` holds (polling), or fails after `timeoutMs`. */
  async until(check: () => boolean, timeoutMs = 10_000, what = 'the receiver'): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what} (received ${this.received.length}: ${this.received.map((r) => r.type).join(', ')})`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
