/**
 * Gates a contract suite on a real server: the suite runs when its URL is set. An unset URL skips it,
 * with the reason in its name (jest's default reporter prints nothing for a file whose tests are all
 * skipped: the run's summary lists it, test/support/summary-reporter.cjs). A URL that is set but whose server does not answer the probe in time
 * FAILS the suite: whoever set it meant the suite to run. URLs are shown without credentials.
 */
export const PROBE_TIMEOUT_MS = 3000;

export async function gatedSuite(options: {
  title: string;
  envVar: string;
  probe: (url: string) => Promise<void>;
  suite: (url: string) => void;
}): Promise<void> {
  const url = process.env[options.envVar];
  const decision = await gateDecision(url, options.envVar, options.probe);
  if (decision.kind === 'run') {
    describe(options.title, () => options.suite(url!));
  } else if (decision.kind === 'fail') {
    describe(options.title, () => {
      test(`${options.envVar} is set: the server answers`, () => {
        throw new Error(decision.reason);
      });
    });
  } else {
    const skipReason = decision.reason;
    describe.skip(`${options.title} — skipped: ${skipReason}`, () => {
      test.skip(`${options.title} against a live server`, () => undefined);
    });
  }
}

export type GateDecision = { kind: 'run' } | { kind: 'skip'; reason: string } | { kind: 'fail'; reason: string };

/** Unset URL: skip. Set and answering: run. Set and not answering: fail (never a silent skip). */
export async function gateDecision(url: string | undefined, envVar: string, probe: (url: string) => Promise<void>): Promise<GateDecision> {
  if (!url) return { kind: 'skip', reason: `${envVar} is not set` };
  try {
    await withTimeout(probe(url), PROBE_TIMEOUT_MS + 500);
    return { kind: 'run' };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'fail', reason: `${envVar} is set but ${displayUrl(url)} cannot be reached (${redact(message, url)})` };
  }
}

export async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms}ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Scheme and hosts only: no user info, no query string. */
export function displayUrl(connectionString: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(connectionString)?.[0] ?? '';
  const main = connectionString.slice(scheme.length).split('?')[0];
  return scheme + main.slice(main.lastIndexOf('@') + 1);
}

function redact(text: string, connectionString: string): string {
  const main = connectionString.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split('?')[0];
  const userInfo = main.includes('@') ? main.slice(0, main.lastIndexOf('@')) : '';
  let out = text.replace(/(:\/\/)[^\s/?#]*@/g, '$1');
  if (userInfo) out = out.split(userInfo).join('***');
  return out;
}
