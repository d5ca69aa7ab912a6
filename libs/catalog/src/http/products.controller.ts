import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { CreateProductCommand } from '../application/create-product.js';
import { DeleteProductCommand } from '../application/delete-product.js';
import { GetProductQuery } from '../application/get-product.js';
import { ListProductsQuery } from '../application/list-products.js';
import { UpdateProductCommand } from '../application/update-product.js';
import { CreateProductDto, ListProductsParams, UpdateProductDto } from './dto/product.dto.js';
import { ApiResource } from '#http/api-resource.js';

@ApiTags('products')
@ApiBasicAuth()
@ApiResource('products')
@Controller('v1/products')
export class ProductsController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a product' })
  create(@Ctx() ctx: CommandContext, @Body() body: CreateProductDto) {
    return this.write.execute(new CreateProductCommand(ctx, body), ({ id }) => new GetProductQuery(ctx, id));
  }

  @Get()
  @ApiOperation({ summary: 'List products, newest first' })
  list(@Ctx() ctx: CommandContext, @Query() params: ListProductsParams) {
    return this.queries.execute(new ListProductsQuery(ctx, params));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a product' })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetProductQuery(ctx, id));
  }

  @Post(':id/update')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update a product (status "inactive" archives it)' })
  update(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: UpdateProductDto) {
    return this.write.execute(new UpdateProductCommand(ctx, id, body), () => new GetProductQuery(ctx, id));
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a product that has no prices' })
  async remove(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    await this.write.run(new DeleteProductCommand(ctx, id));
    return { id, object: 'product', deleted: true };
  }
}
