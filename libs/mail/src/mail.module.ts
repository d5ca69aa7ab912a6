import { Controller, Get, Global, Inject, Module, OnApplicationBootstrap, OnModuleDestroy, Optional, Query, Injectable } from '@nestjs/common';
import { LeaseManager } from '#platform/leases.js';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Config } from '#platform/config.js';
import { CONFIG, EVENT_STORE, READ_STORE } from '#platform/tokens.js';
import type { EventStore } from '#event-store/event-store.port.js';
import type { ReadStore } from '#read-store/read-store.port.js';
import { type Clock, CLOCK } from '#shared/clock.js';
import { DomainError } from '#shared/errors.js';
import type { CommandContext } from '#platform/command-context.js';
import { Ctx } from '#http/request-context.js';
import { ProjectionEngine } from '#projection-runtime/projection-engine.js';
import { collectionMailHandler } from '#collections/application/collection-mail.js';
import { EventMailFollower } from './event-mail-follower.js';
import { MAIL, type MailPort } from './mail.port.js';
import { OutboxMail } from './outbox-mail.js';
import { SmtpMail } from './smtp-mail.js';
import { ApiResource } from '#http/api-resource.js';

/** The embedded outbox (always there, so the test-mode endpoint can answer; empty when SMTP is chosen). */
export const OUTBOX = Symbol('OUTBOX');
export const COLLECTION_MAIL_FOLLOWER = Symbol('COLLECTION_MAIL_FOLLOWER');

/**
 * The collection mail follower runs in the worker holding the `mail` lease (ROLE all/worker; never
 * taken with MAIL_FOLLOWER=off; libs/platform/src/leases.ts): its checkpoints carry the lease's epoch.
 */
@Injectable()
export class MailLifecycle implements OnApplicationBootstrap, OnModuleDestroy {
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(OUTBOX) private readonly outbox: OutboxMail,
    @Inject(MAIL) private readonly mail: MailPort,
    @Inject(COLLECTION_MAIL_FOLLOWER) private readonly follower: EventMailFollower,
    @Optional() private readonly leases?: LeaseManager,
  ) {
    if (config.role !== 'api' && config.mail.follower) leases?.register('mail', { start: (lease) => follower.start(lease), stop: () => follower.stop() });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.outbox.init();
    if (!this.leases && this.config.role !== 'api' && this.config.mail.follower) await this.follower.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.follower.stop();
    if (this.mail instanceof SmtpMail) this.mail.close();
  }
}

/** Test mode: the messages the embedded outbox holds for the caller's account, newest first. */
@ApiTags('test helpers')
@ApiBasicAuth()
@ApiResource('outbox')
@Controller('v1/test_helpers/outbox')
export class OutboxController {
  constructor(@Inject(OUTBOX) private readonly outbox: OutboxMail) {}

  @Get()
  @ApiOperation({ summary: 'Test mode: e-mails the service sent to customers (embedded outbox), newest first; filter by to and kind' })
  async list(@Ctx() ctx: CommandContext, @Query('to') to?: string, @Query('kind') kind?: string, @Query('limit') limit?: string) {
    if (ctx.mode !== 'test') throw new DomainError('test_mode_only', 'Test helpers are only available with a test key', null, 403);
    const n = limit === undefined ? 100 : Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > 100) throw new DomainError('parameter_invalid', 'limit must be a whole number from 1 to 100', 'limit', 400);
    const rows = await this.outbox.list(ctx.accountId, ctx.mode, { to, kind, limit: n });
    return { object: 'list', url: '/v1/test_helpers/outbox', has_more: false, data: rows.map(({ _account, _created, ...rest }) => rest) };
  }
}

/**
 * The mail port (MAIL): the embedded outbox by default, SMTP (nodemailer) when SMTP_URL is set;
 * and the follower that mails customers their collections (`collection.sent`, `collection.reminder`).
 */
@Global()
@Module({
  controllers: [OutboxController],
  providers: [
    { provide: OUTBOX, useFactory: (store: ReadStore, clock: Clock) => new OutboxMail(store, clock), inject: [READ_STORE, CLOCK] },
    {
      provide: MAIL,
      useFactory: (config: Config, outbox: OutboxMail) => (config.mail.smtpUrl ? new SmtpMail(config.mail.smtpUrl, config.mail.from) : outbox),
      inject: [CONFIG, OUTBOX],
    },
    {
      provide: COLLECTION_MAIL_FOLLOWER,
      useFactory: (events: EventStore, store: ReadStore, mail: MailPort, engine: ProjectionEngine, config: Config) =>
        new EventMailFollower(events, store, mail, collectionMailHandler(store, engine), config.scheduler.pollMs),
      inject: [EVENT_STORE, READ_STORE, MAIL, ProjectionEngine, CONFIG],
    },
    MailLifecycle,
  ],
  exports: [MAIL, OUTBOX, COLLECTION_MAIL_FOLLOWER],
})
export class MailModule {}
