import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { CollectionLines } from '#collections/application/collection-lines.js';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import type { Config } from '#platform/config.js';
import { type Owner, ReadModels } from '#platform/read-models.js';
import { CONFIG } from '#platform/tokens.js';
import type { CommandResult } from '#platform/write-then-read.js';
import type { ListPage } from '#http/list.js';
import { invalidParam, missingParam } from '#shared/errors.js';
import { newId } from '#shared/ids.js';
import type { MetaData } from '#shared/meta-data.js';
import { ownedBy } from '#shared/owner.js';
import type { PaymentLinkDoc } from '../read-models/payment-link.read-model.js';
import type { StorefrontDoc } from '../read-models/storefront.read-model.js';
import { type LinkItem, type LinkSessionSettings, checkLinkItems, paymentLinkDecider, paymentLinkStream } from '../domain/payment-link.decider.js';
import { storefrontDecider, storefrontStream } from '../domain/storefront.decider.js';
import { OpenCheckoutSession } from './create-checkout-session.js';

/** Link and storefront bodies: their own fields, and the session settings they pass on to every session they open. */
export type LinkBody = LinkSessionSettings & {
  items?: Array<{ price: string; quantity?: number }>;
  usage_limit?: number | null;
  cta_text?: string;
  active?: boolean;
  meta_data?: MetaData;
  name?: string;
};

const OWN_FIELDS = ['items', 'usage_limit', 'cta_text', 'active', 'meta_data', 'name'] as const;

/** The session settings of a body (everything that is not the link's own field), only those sent. */
export function settingsOf(body: LinkBody): LinkSessionSettings {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!(OWN_FIELDS as readonly string[]).includes(k) && v !== undefined) out[k] = v;
  return out as LinkSessionSettings;
}

async function linkItems(lines: CollectionLines, ctx: CommandContext, items: LinkBody['items']): Promise<LinkItem[]> {
  if (items === undefined) throw missingParam('items', 'items must have at least one item');
  if (!Array.isArray(items)) throw invalidParam('items', 'items must be an array');
  if (items.length > 50) throw invalidParam('items', 'items can have at most 50 items');
  const out: LinkItem[] = [];
  for (const [i, it] of items.entries()) {
    const snap = await lines.priceSnapshot(ctx, it.price, `items[${i}][price]`);
    out.push({ price: snap.price, product: snap.product, quantity: it.quantity ?? 1 });
  }
  return out;
}

/** The session a visit to the link would open: checked at creation and update so that every visit can open one. */
export function sessionBodyOfLink(mode: 'subscription' | 'payment', items: LinkItem[], settings: LinkSessionSettings, ctaText: string) {
  return { ...settings, mode, items: items.map((it) => ({ price: it.price.id, quantity: it.quantity })), cta_text: ctaText } as never;
}

export class CreatePaymentLinkCommand {
  constructor(readonly ctx: CommandContext, readonly body: LinkBody) {}
}
export class UpdatePaymentLinkCommand {
  constructor(readonly ctx: CommandContext, readonly linkId: string, readonly body: LinkBody) {}
}
export class GetPaymentLinkQuery {
  constructor(readonly owner: Owner, readonly id: string) {}
}
export class ListPaymentLinksQuery {
  constructor(readonly owner: Owner, readonly params: { limit?: number; starting_after?: string; active?: boolean }) {}
}

@CommandHandler(CreatePaymentLinkCommand)
export class CreatePaymentLinkHandler implements ICommandHandler<CreatePaymentLinkCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly lines: CollectionLines,
    private readonly sessions: OpenCheckoutSession,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async execute({ ctx, body }: CreatePaymentLinkCommand): Promise<CommandResult> {
    const items = await linkItems(this.lines, ctx, body.items);
    const settings = settingsOf(body);
    const linkId = newId('pl');
    const command = (now: Date) => ({
      type: 'CreatePaymentLink' as const,
      owner: ctx,
      linkId,
      url: `${this.config.checkoutUrl}/pl/${linkId}`,
      items,
      usageLimit: body.usage_limit,
      ctaText: body.cta_text,
      active: body.active,
      settings,
      metaData: body.meta_data,
      now,
    });
    // The link's own rules (the spec's), then every session rule its visits will meet.
    const [created] = paymentLinkDecider.decide(command(this.executor.now(ctx)), paymentLinkDecider.initialState);
    const f = created.data as { mode: 'subscription' | 'payment'; cta_text: string };
    await this.sessions.validate(ctx, sessionBodyOfLink(f.mode, items, settings, f.cta_text));
    const { position } = await this.executor.execute(paymentLinkDecider, paymentLinkStream(linkId), command, ctx);
    return { id: linkId, position };
  }
}

/** Updates `active` (deactivate / reactivate), `usage_limit`, `cta_text`, `meta_data` and the session settings; items do not change. */
@CommandHandler(UpdatePaymentLinkCommand)
export class UpdatePaymentLinkHandler implements ICommandHandler<UpdatePaymentLinkCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly sessions: OpenCheckoutSession,
  ) {}

  async execute({ ctx, linkId, body }: UpdatePaymentLinkCommand): Promise<CommandResult> {
    if (body.items !== undefined) throw invalidParam('items', 'The items of a payment link cannot change; create a new link');
    const settings = settingsOf(body);
    const changes = {
      ...(body.active !== undefined ? { active: body.active } : {}),
      ...(body.usage_limit !== undefined ? { usage_limit: body.usage_limit } : {}),
      ...(body.cta_text !== undefined ? { cta_text: body.cta_text } : {}),
      ...(body.meta_data !== undefined ? { meta_data: body.meta_data } : {}),
      ...(Object.keys(settings).length > 0 ? { settings } : {}),
    };
    const { state } = await this.executor.load(paymentLinkDecider, paymentLinkStream(linkId));
    const command = (now: Date) => ({ type: 'UpdatePaymentLink' as const, owner: ctx, linkId, changes, now });
    const events = paymentLinkDecider.decide(command(this.executor.now(ctx)), state);
    if (ownedBy(state, ctx) && events.length > 0 && (changes.settings || changes.cta_text)) {
      const after = events.reduce((s, e) => paymentLinkDecider.evolve(s, e), state).fields!;
      checkLinkItems(after.items, after.settings);
      await this.sessions.validate(ctx, sessionBodyOfLink(after.mode, after.items, after.settings, after.cta_text));
    }
    const { position } = await this.executor.execute(paymentLinkDecider, paymentLinkStream(linkId), command, ctx);
    return { id: linkId, position };
  }
}

@QueryHandler(GetPaymentLinkQuery)
export class GetPaymentLinkHandler implements IQueryHandler<GetPaymentLinkQuery, PaymentLinkDoc> {
  constructor(private readonly readModels: ReadModels) {}
  execute({ owner, id }: GetPaymentLinkQuery): Promise<PaymentLinkDoc> {
    return this.readModels.get<PaymentLinkDoc>('payment_links', 'payment link', id, owner);
  }
}

/** Newest first; filter `active`. */
@QueryHandler(ListPaymentLinksQuery)
export class ListPaymentLinksHandler implements IQueryHandler<ListPaymentLinksQuery, ListPage<PaymentLinkDoc>> {
  constructor(private readonly readModels: ReadModels) {}
  execute({ owner, params }: ListPaymentLinksQuery): Promise<ListPage<PaymentLinkDoc>> {
    return this.readModels.list<PaymentLinkDoc>('payment_links', '/v1/payment_links', owner, params, params.active === undefined ? {} : { active: params.active });
  }
}

export class CreateStorefrontCommand {
  constructor(readonly ctx: CommandContext, readonly body: LinkBody) {}
}
export class UpdateStorefrontCommand {
  constructor(readonly ctx: CommandContext, readonly storefrontId: string, readonly body: LinkBody) {}
}
export class GetStorefrontQuery {
  constructor(readonly owner: Owner, readonly id: string) {}
}
export class ListStorefrontsQuery {
  constructor(readonly owner: Owner, readonly params: { limit?: number; starting_after?: string }) {}
}

/** Storefront items are prices (each listed once); each choice opens a one-price session, checked here like a link's. */
async function checkStorefrontSessions(sessions: OpenCheckoutSession, ctx: CommandContext, items: Array<Omit<LinkItem, 'quantity'>>, settings: LinkSessionSettings, cta: string | null) {
  for (const it of items) {
    const mode = it.price.type === 'recurring' ? 'subscription' : 'payment';
    const own = mode === 'payment' ? { ...settings, subscription_settings: undefined } : settings;
    await sessions.validate(ctx, sessionBodyOfLink(mode, [{ ...it, quantity: 1 }], own, cta ?? (mode === 'subscription' ? 'Suscribirse' : 'Pagar')));
  }
}

@CommandHandler(CreateStorefrontCommand)
export class CreateStorefrontHandler implements ICommandHandler<CreateStorefrontCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly lines: CollectionLines,
    private readonly sessions: OpenCheckoutSession,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async execute({ ctx, body }: CreateStorefrontCommand): Promise<CommandResult> {
    if (body.usage_limit !== undefined) throw invalidParam('usage_limit', 'usage_limit belongs to payment links');
    const items = (await linkItems(this.lines, ctx, body.items)).map(({ price, product }) => ({ price, product }));
    const settings = settingsOf(body);
    const storefrontId = newId('sf');
    const command = (now: Date) => ({
      type: 'CreateStorefront' as const,
      owner: ctx,
      storefrontId,
      url: `${this.config.checkoutUrl}/sf/${storefrontId}`,
      name: body.name as string,
      items,
      ctaText: body.cta_text,
      active: body.active,
      settings,
      metaData: body.meta_data,
      now,
    });
    storefrontDecider.decide(command(this.executor.now(ctx)), storefrontDecider.initialState);
    await checkStorefrontSessions(this.sessions, ctx, items, settings, body.cta_text ?? null);
    const { position } = await this.executor.execute(storefrontDecider, storefrontStream(storefrontId), command, ctx);
    return { id: storefrontId, position };
  }
}

@CommandHandler(UpdateStorefrontCommand)
export class UpdateStorefrontHandler implements ICommandHandler<UpdateStorefrontCommand, CommandResult> {
  constructor(
    private readonly executor: AggregateExecutor,
    private readonly lines: CollectionLines,
    private readonly sessions: OpenCheckoutSession,
  ) {}

  async execute({ ctx, storefrontId, body }: UpdateStorefrontCommand): Promise<CommandResult> {
    if (body.usage_limit !== undefined) throw invalidParam('usage_limit', 'usage_limit belongs to payment links');
    const items = body.items === undefined ? undefined : (await linkItems(this.lines, ctx, body.items)).map(({ price, product }) => ({ price, product }));
    const settings = settingsOf(body);
    const changes = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.active !== undefined ? { active: body.active } : {}),
      ...(items !== undefined ? { items } : {}),
      ...(body.cta_text !== undefined ? { cta_text: body.cta_text } : {}),
      ...(body.meta_data !== undefined ? { meta_data: body.meta_data } : {}),
      ...(Object.keys(settings).length > 0 ? { settings } : {}),
    };
    const { state } = await this.executor.load(storefrontDecider, storefrontStream(storefrontId));
    const command = (now: Date) => ({ type: 'UpdateStorefront' as const, owner: ctx, storefrontId, changes, now });
    const events = storefrontDecider.decide(command(this.executor.now(ctx)), state);
    if (events.length > 0 && (changes.items || changes.settings || changes.cta_text)) {
      const after = events.reduce((s, e) => storefrontDecider.evolve(s, e), state).fields!;
      await checkStorefrontSessions(this.sessions, ctx, after.items, after.settings, after.cta_text);
    }
    const { position } = await this.executor.execute(storefrontDecider, storefrontStream(storefrontId), command, ctx);
    return { id: storefrontId, position };
  }
}

@QueryHandler(GetStorefrontQuery)
export class GetStorefrontHandler implements IQueryHandler<GetStorefrontQuery, StorefrontDoc> {
  constructor(private readonly readModels: ReadModels) {}
  execute({ owner, id }: GetStorefrontQuery): Promise<StorefrontDoc> {
    return this.readModels.get<StorefrontDoc>('storefronts', 'storefront', id, owner);
  }
}

@QueryHandler(ListStorefrontsQuery)
export class ListStorefrontsHandler implements IQueryHandler<ListStorefrontsQuery, ListPage<StorefrontDoc>> {
  constructor(private readonly readModels: ReadModels) {}
  execute({ owner, params }: ListStorefrontsQuery): Promise<ListPage<StorefrontDoc>> {
    return this.readModels.list<StorefrontDoc>('storefronts', '/v1/storefronts', owner, params);
  }
}
