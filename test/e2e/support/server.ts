import { startTestApp, type TestApp } from '../../support/test-app.js';

/** The whole service listening on a free local port, for a browser to visit. */
export async function startServer(): Promise<TestApp & { base: string }> {
  const t = await startTestApp();
  await t.app.listen(0, '127.0.0.1');
  const address = t.app.getHttpServer().address() as { port: number };
  return Object.assign(t, { base: `http://127.0.0.1:${address.port}` });
}
