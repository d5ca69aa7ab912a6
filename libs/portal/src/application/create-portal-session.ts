import { Inject, Injectable } from '@nestjs/common';
import { customerDecider, customerStream } from '#customers/domain/customer.decider.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { Config } from '#platform/config.js';
import { CONFIG } from '#platform/tokens.js';
import { notFound } from '#shared/errors.js';
import { ownedBy } from '#shared/owner.js';
import { portalSessionDecider, portalSessionStream } from '../domain/portal-session.decider.js';
import { newPortalLink } from './portal-signing.js';

export interface PortalSessionView {
  id: string;
  object: 'portal_session';
  customer: string;
  return_url: string | null;
  url: string;
  created: string;
  expires_at: string;
  is_test: boolean;
}

/**
 * `POST /v1/portal_sessions`: a single-use link `{portal_url}/p/login/<url_id>` for one customer of
 * the caller's account and mode. The answer is the only place the link appears (only a hash-derived
 * id is stored), so it is returned here and never again.
 */
@Injectable()
export class CreatePortalSession {
  constructor(
    private readonly executor: AggregateExecutor,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async create(ctx: CommandContext, customer: string, returnUrl: string | null): Promise<PortalSessionView> {
    const { state } = await this.executor.load(customerDecider, customerStream(customer));
    if (!ownedBy(state, ctx)) throw notFound('customer', customer, 'customer');
    const { urlId, sessionId } = newPortalLink();
    const done = await this.executor.execute(
      portalSessionDecider,
      portalSessionStream(sessionId),
      (now) => ({ type: 'CreatePortalSession' as const, owner: ctx, sessionId, customer, returnUrl, now }),
      ctx,
    );
    const f = done.state.fields!;
    return {
      id: f.id,
      object: 'portal_session',
      customer: f.customer,
      return_url: f.return_url,
      url: `${this.config.portalUrl}/p/login/${urlId}`,
      created: f.created,
      expires_at: f.expires_at,
      is_test: ctx.mode === 'test',
    };
  }
}
