import { CommandBus } from '@nestjs/cqrs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import request from 'supertest';
import { createApp } from '#api/create-app.js';
import { CreateAccountCommand, type CreatedAccount } from '#accounts/application/create-account.js';
import { loadConfig } from '#platform/config.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';

test('request logs are JSON lines with a request id and never the key', async () => {
  const stream = new PassThrough();
  const lines: string[] = [];
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'logs-')) });
  const app = await createApp({ config, logRequests: true, logStream: stream });
  try {
    const account = await app.get(CommandBus).execute<CreateAccountCommand, CreatedAccount>(new CreateAccountCommand('Logs'));
    await app.get(ProjectionEngine).waitFor(account.position);
    const res = await request(app.getHttpServer())
      .post('/v1/products')
      .auth(account.test_key, '')
      .send({ name: 'Logged' });
    expect(res.status).toBe(200);
    const requestId = res.headers['request-id'];
    expect(requestId).toMatch(/^req_/);
    await new Promise((r) => setTimeout(r, 50));
    const parsed = lines.map((l) => JSON.parse(l));
    const mine = parsed.filter((l) => l.reqId === requestId);
    // One line per request, when it is answered.
    expect(mine).toEqual([expect.objectContaining({ level: 30, msg: 'request', req: { method: 'POST', url: '/v1/products' }, res: { statusCode: 200 }, responseTime: expect.any(Number) })]);
    // One format for every line: pino's (a numeric level, a time, a msg), Nest's own lines included.
    expect(parsed.length).toBeGreaterThan(mine.length);
    for (const line of parsed) expect(line).toEqual(expect.objectContaining({ level: expect.any(Number), time: expect.any(Number), msg: expect.any(String) }));
    expect(parsed.some((l) => l.context === 'InstanceLoader' || l.context === 'RoutesResolver')).toBe(false); // start-up chatter only at debug
    const secret = account.test_key.slice('sk_test_'.length);
    expect(lines.join('\n')).not.toContain(secret);
    expect(lines.join('\n')).not.toContain(Buffer.from(`${account.test_key}:`).toString('base64'));
  } finally {
    await app.close();
  }
});
