import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { ConfigureGatewayCommand } from '../application/configure-gateway.js';
import { GetGatewayQuery } from '../application/get-gateway.js';
import { ListGatewaysQuery } from '../application/list-gateways.js';
import { RemoveGatewayCommand } from '../application/remove-gateway.js';
import { ConfigureGatewayDto, GatewayResponse } from './dto/gateway.dto.js';
import { ApiResource } from '#http/api-resource.js';

/** The caller's own account, in the mode of the key used (test or live). */
@ApiTags('account')
@ApiBasicAuth()
@ApiResource('account')
@Controller('v1/account/gateways')
export class AccountGatewaysController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly queries: QueryBus,
  ) {}

  @Get()
  @ApiOperation({ summary: "List the gateways configured on the caller's account in the key's mode" })
  list(@Ctx() ctx: CommandContext) {
    return this.queries.execute(new ListGatewaysQuery(ctx));
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: "Configure a gateway in the key's mode (configuring one already configured changes nothing)" })
  @ApiOkResponse({ type: GatewayResponse })
  configure(@Ctx() ctx: CommandContext, @Body() body: ConfigureGatewayDto) {
    return this.write.execute(new ConfigureGatewayCommand(ctx, body.gateway), () => new GetGatewayQuery(ctx, body.gateway));
  }

  @Delete(':gateway')
  @ApiOperation({ summary: "Remove a gateway from the key's mode (404 when it is not configured)" })
  async remove(@Ctx() ctx: CommandContext, @Param('gateway') gateway: string) {
    await this.write.run(new RemoveGatewayCommand(ctx, gateway));
    return { id: gateway, object: 'gateway', deleted: true };
  }
}
