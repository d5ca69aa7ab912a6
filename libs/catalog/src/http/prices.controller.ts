import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { CreatePriceCommand } from '../application/create-price.js';
import { DeletePriceCommand } from '../application/delete-price.js';
import { GetPriceQuery } from '../application/get-price.js';
import { ListPricesQuery } from '../application/list-prices.js';
import { UpdatePriceCommand } from '../application/update-price.js';
import { CreatePriceDto, ListPricesParams, UpdatePriceDto } from './dto/price.dto.js';
import { ApiResource } from '#http/api-resource.js';

@ApiTags('prices')
@ApiBasicAuth()
@ApiResource('prices')
@Controller('v1/prices')
export class PricesController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a price for a product' })
  create(@Ctx() ctx: CommandContext, @Body() body: CreatePriceDto) {
    return this.write.execute(new CreatePriceCommand(ctx, body), ({ id }) => new GetPriceQuery(ctx, id));
  }

  @Get()
  @ApiOperation({ summary: 'List prices, newest first' })
  list(@Ctx() ctx: CommandContext, @Query() params: ListPricesParams) {
    return this.queries.execute(new ListPricesQuery(ctx, params));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a price' })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetPriceQuery(ctx, id));
  }

  @Post(':id/update')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update a price (only active and meta_data; prices are otherwise immutable)' })
  update(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: UpdatePriceDto) {
    return this.write.execute(new UpdatePriceCommand(ctx, id, body), () => new GetPriceQuery(ctx, id));
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a price (it disappears from reads; its events stay in the feed)' })
  async remove(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    await this.write.run(new DeletePriceCommand(ctx, id));
    return { id, object: 'price', deleted: true };
  }
}
