import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { type Owner, ReadModels } from '#platform/read-models.js';
import type { CommandResult } from '#platform/write-then-read.js';
import type { ListPage } from '#http/list.js';
import { newId } from '#shared/ids.js';
import type { CouponDoc } from '../read-models/coupon.read-model.js';
import { type CouponChanges, type CouponInput, couponCodeDecider, couponCodeStream, couponDecider, couponStream } from '../domain/coupon.decider.js';

export class CreateCouponCommand {
  constructor(readonly ctx: CommandContext, readonly input: CouponInput) {}
}
export class UpdateCouponCommand {
  constructor(readonly ctx: CommandContext, readonly couponId: string, readonly changes: CouponChanges) {}
}
export class DeleteCouponCommand {
  constructor(readonly ctx: CommandContext, readonly couponId: string) {}
}
export class GetCouponQuery {
  constructor(readonly owner: Owner, readonly id: string) {}
}
export class ListCouponsQuery {
  constructor(readonly owner: Owner, readonly params: { limit?: number; starting_after?: string; code?: string }) {}
}

/** Validates, claims the code (unique per account and mode, case-insensitive), then writes the coupon; a failed write gives the code back. */
@CommandHandler(CreateCouponCommand)
export class CreateCouponHandler implements ICommandHandler<CreateCouponCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, input }: CreateCouponCommand): Promise<CommandResult> {
    const couponId = newId('coupon');
    const command = (now: Date) => ({ type: 'CreateCoupon' as const, owner: ctx, couponId, input, now });
    couponDecider.decide(command(this.executor.now(ctx)), couponDecider.initialState);
    const claim = couponCodeStream(ctx, input.code);
    await this.executor.execute(couponCodeDecider, claim, () => ({ type: 'ClaimCouponCode' as const, couponId, code: input.code }), ctx);
    try {
      const { position } = await this.executor.execute(couponDecider, couponStream(couponId), command, ctx);
      return { id: couponId, position };
    } catch (error) {
      await this.executor.execute(couponCodeDecider, claim, () => ({ type: 'ReleaseCouponCode' as const, couponId }), ctx).catch(() => undefined);
      throw error;
    }
  }
}

@CommandHandler(UpdateCouponCommand)
export class UpdateCouponHandler implements ICommandHandler<UpdateCouponCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, couponId, changes }: UpdateCouponCommand): Promise<CommandResult> {
    const { position } = await this.executor.execute(couponDecider, couponStream(couponId), (now) => ({ type: 'UpdateCoupon' as const, owner: ctx, couponId, changes, now }), ctx);
    return { id: couponId, position };
  }
}

/** Deletes a coupon: no new redemptions; discounts already granted keep applying; its code is free again. */
@CommandHandler(DeleteCouponCommand)
export class DeleteCouponHandler implements ICommandHandler<DeleteCouponCommand, CommandResult> {
  constructor(private readonly executor: AggregateExecutor) {}

  async execute({ ctx, couponId }: DeleteCouponCommand): Promise<CommandResult> {
    const done = await this.executor.execute(couponDecider, couponStream(couponId), (now) => ({ type: 'DeleteCoupon' as const, owner: ctx, couponId, now }), ctx);
    const code = done.state.fields!.code;
    await this.executor.execute(couponCodeDecider, couponCodeStream(ctx, code), () => ({ type: 'ReleaseCouponCode' as const, couponId }), ctx);
    return { id: couponId, position: done.position };
  }
}

@QueryHandler(GetCouponQuery)
export class GetCouponHandler implements IQueryHandler<GetCouponQuery, CouponDoc> {
  constructor(private readonly readModels: ReadModels) {}
  execute({ owner, id }: GetCouponQuery): Promise<CouponDoc> {
    return this.readModels.get<CouponDoc>('coupons', 'coupon', id, owner);
  }
}

/** Newest first. */
@QueryHandler(ListCouponsQuery)
export class ListCouponsHandler implements IQueryHandler<ListCouponsQuery, ListPage<CouponDoc>> {
  constructor(private readonly readModels: ReadModels) {}
  execute({ owner, params }: ListCouponsQuery): Promise<ListPage<CouponDoc>> {
    return this.readModels.list<CouponDoc>('coupons', '/v1/coupons', owner, params);
  }
}
