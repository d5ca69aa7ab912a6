import type { LoggerService, LogLevel } from '@nestjs/common';
import type { FastifyBaseLogger } from 'fastify';

/** Nest's own start-up contexts (module loading, ~110 route mappings): debug, not info. */
const FRAMEWORK_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestFactory', 'NestApplication']);

type PinoLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

/**
 * Nest's application logs through the same pino logger as Fastify's request logs, so every line the
 * service writes is one JSON format (`level` a pino number, `time`, `msg`, `context`): never Nest's
 * own `"level":"log"` lines beside pino's. A message given as an object (`{ msg, reqId, err }`) keeps
 * its fields.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly pino: FastifyBaseLogger) {}

  log(message: unknown, ...rest: unknown[]): void {
    const context = contextOf(rest);
    this.write(context && FRAMEWORK_CONTEXTS.has(context) ? 'debug' : 'info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }
  setLogLevels(_levels: LogLevel[]): void {
    // The level is pino's (LOG_LEVEL), set when the logger was made.
  }

  private write(level: PinoLevel, message: unknown, rest: unknown[]): void {
    const context = contextOf(rest);
    // Nest passes (message, stack, context) to error(): the stack is the middle argument.
    const stack = level === 'error' && rest.length >= 2 && typeof rest[0] === 'string' ? rest[0] : undefined;
    const fields: Record<string, unknown> = context ? { context } : {};
    if (stack) fields.stack = stack;
    if (message instanceof Error) {
      this.pino[level]({ ...fields, err: message }, message.message);
    } else if (message !== null && typeof message === 'object') {
      const { msg, ...more } = message as Record<string, unknown>;
      this.pino[level]({ ...fields, ...more }, typeof msg === 'string' ? msg : '');
    } else {
      this.pino[level](fields, String(message));
    }
  }
}

function contextOf(rest: unknown[]): string | undefined {
  const last = rest[rest.length - 1];
  return typeof last === 'string' ? last : undefined;
}
