import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBasicAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { Ctx } from '#http/request-context.js';
import { CreatePortalSession } from '../application/create-portal-session.js';
import { CreatePortalSessionDto } from './dto/portal-session.dto.js';
import { ApiResource } from '#http/api-resource.js';

@ApiTags('portal')
@ApiBasicAuth()
@ApiResource('portal_sessions')
@Controller('v1/portal_sessions')
export class PortalSessionsController {
  constructor(private readonly sessions: CreatePortalSession) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a customer portal session: a single-use link {portal_url}/p/login/<url_id>, valid 15 minutes' })
  create(@Ctx() ctx: CommandContext, @Body() body: CreatePortalSessionDto) {
    return this.sessions.create(ctx, body.customer, body.return_url ?? null);
  }
}
