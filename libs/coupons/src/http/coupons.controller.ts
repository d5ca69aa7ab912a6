import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { CreateCouponCommand, DeleteCouponCommand, GetCouponQuery, ListCouponsQuery, UpdateCouponCommand } from '../application/coupon-commands.js';
import { CreateCouponDto, ListCouponsParams, UpdateCouponDto } from './dto/coupon.dto.js';
import { ApiResource } from '#http/api-resource.js';

@ApiTags('coupons')
@ApiBasicAuth()
@ApiResource('coupons')
@Controller('v1/coupons')
export class CouponsController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a coupon (code, amount or percent, duration, validity, redemption limit)' })
  create(@Ctx() ctx: CommandContext, @Body() body: CreateCouponDto) {
    return this.write.execute(new CreateCouponCommand(ctx, body as never), ({ id }) => new GetCouponQuery(ctx, id));
  }

  @Get()
  @ApiOperation({ summary: 'List coupons, newest first' })
  list(@Ctx() ctx: CommandContext, @Query() params: ListCouponsParams) {
    return this.queries.execute(new ListCouponsQuery(ctx, params));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a coupon (times_redeemed counts its redemptions)' })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetCouponQuery(ctx, id));
  }

  @Post(':id/update')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update name, valid_until, max_redemptions, active, meta_data (amount, percent and code never change)' })
  update(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: UpdateCouponDto) {
    return this.write.execute(new UpdateCouponCommand(ctx, id, body as never), () => new GetCouponQuery(ctx, id));
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a coupon: no new redemptions (granted discounts keep applying)' })
  async remove(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    await this.write.run(new DeleteCouponCommand(ctx, id));
    return { id, object: 'coupon', deleted: true };
  }
}
