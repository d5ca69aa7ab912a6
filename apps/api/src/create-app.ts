import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { type LoggerService, NotFoundException } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { handleClientError } from '#http/client-error.js';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { newId } from '#shared/ids.js';
import { toApiError } from '#http/api-exception.filter.js';
import { httpRequestDuration } from '#platform/metrics.js';
import { finishDocument } from '#http/openapi-document.js';
import { registerRateLimit } from '#http/rate-limit.js';
import { registerJsonBody } from '#http/json-body.js';
import { registerHandlerTimeout } from '#http/handler-timeout.js';
import { registerMethodNotAllowed } from '#http/method-not-allowed.js';
import type { PlatformOptions } from '#platform/platform.module.js';
import { AppModule } from './app.module.js';
import { PinoNestLogger } from './pino-nest-logger.js';
import { registerWebPlatform } from '#web/web-platform.js';

export interface CreateAppOptions extends PlatformOptions {
  /** JSON request logs (pino, through Fastify); off in tests. */
  logRequests?: boolean;
  /** Where the JSON logs go (default stdout); tests pass their own stream. */
  logStream?: NodeJS.WritableStream;
  /**
   * Where the application's own logs go when request logs are off (default: errors on the console):
   * tests keep them in memory and assert the ones they provoke (test/support/test-logs.ts).
   */
  logger?: LoggerService;
}

/** Builds the HTTP application: Fastify, JSON request logs with a request id, OpenAPI at /openapi.json and /docs. */
export async function createApp(options: CreateAppOptions): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    logger: options.logRequests
      ? {
          level: options.config.logLevel,
          redact: ['req.headers.authorization', 'req.headers.cookie'],
          ...(options.logStream ? { stream: options.logStream } : {}),
        }
      : false,
    // One line per request, written when it is answered (below), instead of pino's two.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => newId('req'),
    // Fastify takes a hop count too (the adapter's type omits it).
    trustProxy: options.config.trustProxy as boolean,
    bodyLimit: options.config.bodyLimitBytes,
    requestTimeout: options.config.requestTimeoutMs,
    // On SIGTERM, a kept-alive connection's next request after the close began is served like the
    // others (Fastify answers it with `Connection: close`, so it is the connection's last) instead of
    // Fastify's own 503, whose body is not the API's error shape. No new connection is accepted, so
    // the drain is bounded; the stores close only once every response is out.
    return503OnClosing: false,
    // What Node's parser refuses before routing (headers over 16 KiB: 431, an unparseable request: 400)
    // in the API's error shape too.
    clientErrorHandler: handleClientError,
    // What the router refuses before any hook runs (an over-long path parameter: 414, a malformed
    // URL: 400), in the API's error shape; Nest's own handler (which this replaces) also set the
    // security headers, so that is kept.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      try {
        (adapter as unknown as { securityHook?: (req: unknown, res: unknown) => void }).securityHook?.(request, reply.raw);
      } catch {
        // rejected either way
      }
      const apiError = toApiError(error);
      reply.status(apiError.status).header('Request-Id', request.id).send(apiError.toBody());
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(options), adapter, {
    // Application logs as JSON lines too, like Fastify's request logs.
    // Framework start-up chatter (module loading, ~110 route mappings) only at LOG_LEVEL=debug.
    // Application logs through Fastify's pino logger: one JSON format for every line.
    logger: options.logRequests ? new PinoNestLogger(adapter.getInstance().log) : (options.logger ?? ['error']),
    abortOnError: false,
    // The JSON body parser is ours (registerJsonBody: depth cap, storable keys and values).
    bodyParser: false,
  });
  // Nest's JSON parser is off (ours is registerJsonBody); its form parser is kept for the pages.
  app.useBodyParser('application/x-www-form-urlencoded');
  // Pages (hosted checkout, collection page): cookies, CSRF, security headers, form bodies.
  await registerWebPlatform(app, { secureCookies: options.config.checkoutUrl.startsWith('https:') });
  const fastify = app.getHttpAdapter().getInstance();
  if (options.config.role === 'worker') {
    // A worker serves no API: it listens on HEALTH_PORT (main.ts) for its health only, anything else is 404.
    fastify.addHook('onRequest', async (request, reply) => {
      const path = request.url.split('?')[0];
      if (path === '/health' || path === '/health/ready') return;
      return reply.status(404).header('Request-Id', request.id).send(toApiError(new NotFoundException()).toBody());
    });
  }
  registerJsonBody(fastify);
  await registerRateLimit(fastify, options.config);
  registerMethodNotAllowed(fastify);
  registerHandlerTimeout(fastify, options.config.handlerTimeoutMs);
  fastify.addHook('onSend', async (request, reply) => {
    reply.header('Request-Id', request.id);
  });
  fastify.addHook('onResponse', async (request, reply) => {
    // By route pattern (`/v1/products/:id`), never the raw URL, so label values stay few.
    const route = request.routeOptions.url ?? 'unmatched';
    httpRequestDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    // The request's one log line (no headers, so no key or cookie; no body).
    if (options.logRequests) {
      request.log.info({ req: { method: request.method, url: withoutLinkSecrets(request.url) }, res: { statusCode: reply.statusCode }, responseTime: Math.round(reply.elapsedTime * 10) / 10 }, 'request');
    }
  });
  const document = finishDocument(SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Subscription Billing Service')
      .setDescription('Subscriptions, collections, catalog, customers and the evt_ event feed. Authenticate with HTTP Basic: your secret key as the user name, empty password (`curl -u sk_test_…:`); `Authorization: Bearer sk_test_…` is accepted too.')
      .setVersion('v1')
      // Relative: the paths are under the address the document was read from, whatever the host and port.
      .addServer('/', 'This service')
      .build(),
  ));
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json' });
  await app.init();
  await fastify.ready();
  return app;
}

/** Paths whose last segment is a link's secret (an invitation, a password reset): logged without it. */
const SECRET_LINKS = /^(\/dashboard\/(?:invitations|password\/reset))\/[^/?#]+/;
export const withoutLinkSecrets = (url: string) => url.replace(SECRET_LINKS, '$1/[redacted]');
