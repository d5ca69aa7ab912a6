import { Logger, type LoggerService } from '@nestjs/common';
import { inspect } from 'node:util';

/**
 * What the service logs during a test, kept in memory instead of printed: a test that provokes an
 * error on purpose (a gateway that dies, a full disk, a follower that keeps failing) asserts that the
 * error was logged (`expectError`, which fails when it was not) and nothing reaches the terminal.
 *
 * An error nobody claimed is still shown: after each test (and after the file's last one), on stderr,
 * with the test's name, so a real failure is never silenced. TEST_VERBOSE=1 also prints every error
 * and warning as it is logged; LOG_LEVEL (error, warn, info, debug, trace) chooses the lowest level
 * printed that way.
 *
 * One per test file (jest gives each file its own modules): Nest's static `Logger`, which the
 * libraries log through, is process-wide, so every app a file starts writes here.
 */
export type LogLevelName = 'fatal' | 'error' | 'warn' | 'log' | 'debug' | 'verbose';

export interface LogEntry {
  level: LogLevelName;
  context: string | undefined;
  /** One line: `[context] message key=value …` (an `err` with its stack), what `expectError` matches. */
  text: string;
}

/**
 * jest's console for this file, as it was when the file started (a test may stub console.error):
 * what is shown goes under the file's name in jest's output, and the summary counts it.
 */
const consoleError = console.error.bind(console);

const RANK: Record<LogLevelName, number> = { fatal: 0, error: 1, warn: 2, log: 3, debug: 4, verbose: 5 };
const LOG_LEVELS: Record<string, LogLevelName> = { fatal: 'fatal', error: 'error', warn: 'warn', info: 'log', debug: 'debug', trace: 'verbose' };

/** The lowest level printed as it is logged: none unless TEST_VERBOSE=1 or LOG_LEVEL is set. */
export function liveLevel(env: NodeJS.ProcessEnv = process.env): LogLevelName | null {
  const chosen = env.LOG_LEVEL ? LOG_LEVELS[env.LOG_LEVEL.toLowerCase()] : undefined;
  if (chosen) return chosen;
  return env.TEST_VERBOSE === '1' ? 'warn' : null;
}

export class TestLogs implements LoggerService {
  private entries: LogEntry[] = [];

  constructor(
    private readonly live: LogLevelName | null = liveLevel(),
    private readonly print: (text: string) => void = (text) => consoleError(text.trim()),
  ) {}

  fatal(message: unknown, ...rest: unknown[]): void {
    this.add('fatal', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.add('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.add('warn', message, rest);
  }
  log(message: unknown, ...rest: unknown[]): void {
    this.add('log', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.add('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.add('verbose', message, rest);
  }

  /** The errors (and fatal lines) logged and not yet claimed, those matching `match` if given. */
  errors(match?: string | RegExp): LogEntry[] {
    return this.entries.filter((e) => RANK[e.level] <= RANK.error && (match === undefined || matches(e, match)));
  }

  /** The warnings logged so far, those matching `match` if given (never shown unless verbose). */
  warnings(match?: string | RegExp): LogEntry[] {
    return this.entries.filter((e) => e.level === 'warn' && (match === undefined || matches(e, match)));
  }

  /**
   * Asserts that an error matching `match` was logged, waiting up to `timeoutMs` for it (a follower
   * logs after the request that caused it has answered); claims every error matching it, so they are
   * not reported as unexpected, and returns them. Throws, naming what was logged instead, when none came.
   */
  async expectError(match: string | RegExp, options: { timeoutMs?: number } = {}): Promise<LogEntry[]> {
    const until = Date.now() + (options.timeoutMs ?? 5000);
    while (this.errors(match).length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const found = this.claim(match);
    if (found.length === 0) {
      const logged = this.errors().map((e) => `  ${e.text}`).join('\n') || '  (no error)';
      throw new Error(`expected an error log matching ${String(match)}; logged:\n${logged}`);
    }
    return found;
  }

  /** Claims (removes) the errors matching `match` now, without asserting; returns them. */
  claim(match: string | RegExp): LogEntry[] {
    const found = this.errors(match);
    this.entries = this.entries.filter((e) => !found.includes(e));
    return found;
  }

  /** Prints the errors nobody claimed (`when`: the test's name) and forgets everything logged so far. */
  reportUnexpected(when: string | undefined): void {
    const unexpected = this.errors();
    this.entries = [];
    if (unexpected.length === 0) return;
    const lines = unexpected.map((e) => `  ${e.level.toUpperCase()} ${e.text}`).join('\n');
    this.print(`\nthe service logged ${unexpected.length} error(s) no test expected${when ? ` (${when})` : ''}:\n${lines}\n`);
  }

  private add(level: LogLevelName, message: unknown, rest: unknown[]): void {
    const entry = { level, context: contextOf(rest), text: format(message, rest) };
    if (this.live && RANK[level] <= RANK[this.live]) this.print(`${level.toUpperCase()} ${entry.text}\n`);
    // Below warn (module loading, routes, start-up lines) nothing is kept: tests assert errors.
    if (RANK[level] <= RANK.warn) this.entries.push(entry);
  }
}

function matches(entry: LogEntry, match: string | RegExp): boolean {
  return typeof match === 'string' ? entry.text.includes(match) : match.test(entry.text);
}

function contextOf(rest: unknown[]): string | undefined {
  const last = rest[rest.length - 1];
  return typeof last === 'string' ? last : undefined;
}

/** `[context] message key=value …`: Nest passes (message, stack?, context). */
function format(message: unknown, rest: unknown[]): string {
  const context = contextOf(rest);
  const stack = rest.length >= 2 && typeof rest[0] === 'string' ? rest[0] : undefined;
  const parts: string[] = [];
  if (message instanceof Error) parts.push(message.stack ?? message.message);
  else if (message !== null && typeof message === 'object') {
    const { msg, ...more } = message as Record<string, unknown>;
    if (msg !== undefined) parts.push(String(msg));
    for (const [k, v] of Object.entries(more)) parts.push(`${k}=${typeof v === 'string' ? v : inspect(v, { breakLength: Infinity, depth: 4 })}`);
  } else parts.push(String(message));
  if (stack) parts.push(stack);
  return `${context ? `[${context}] ` : ''}${parts.join(' ')}`;
}

/** This test file's logs (Nest's static Logger writes here once `captureLogs()` ran or an app started). */
export const testLogs = new TestLogs();

/**
 * Sends Nest's static Logger (what the libraries log through) to `testLogs`: for tests of a library
 * piece without an app (startTestApp does it for its apps). Returns `testLogs`.
 */
export function captureLogs(): TestLogs {
  Logger.overrideLogger(testLogs);
  return testLogs;
}

// After each test and after the file's last one, what nobody expected is shown (see above). Hooks can
// only be added while jest collects the tests: a file that first imports this module inside a test (a
// dynamic import) gets none; a test app shows them when it closes (test-app.ts) in every case.
if (currentTestName() === undefined && typeof afterEach === 'function') {
  afterEach(() => testLogs.reportUnexpected(currentTestName()));
  afterAll(() => testLogs.reportUnexpected('after the last test'));
}

function currentTestName(): string | undefined {
  try {
    return expect.getState().currentTestName;
  } catch {
    return undefined;
  }
}
