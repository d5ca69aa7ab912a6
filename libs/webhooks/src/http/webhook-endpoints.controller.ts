import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { TestModeOnlyGuard } from '#test-clocks/http/test-mode-only.guard.js';
import { GetEventQuery } from '#events/application/get-event.js';
import { CreateWebhookEndpointCommand } from '../application/create-webhook-endpoint.js';
import { DeleteWebhookEndpointCommand } from '../application/delete-webhook-endpoint.js';
import { GetWebhookEndpointQuery, ListWebhookEndpointsQuery } from '../application/get-and-list-webhook-endpoints.js';
import { ListDeliveryAttemptsQuery } from '../application/list-delivery-attempts.js';
import { ResendEventsCommand } from '../application/resend-events.js';
import { RotateWebhookSecretCommand } from '../application/rotate-webhook-secret.js';
import { SendTestEventCommand } from '../application/send-test-event.js';
import { UpdateWebhookEndpointCommand } from '../application/update-webhook-endpoint.js';
import { CancelWebhookReplayCommand, GetWebhookReplayQuery, ListWebhookReplaysQuery, StartWebhookReplayCommand } from '../application/webhook-replays.js';
import {
  CreateWebhookEndpointDto,
  ListDeliveryAttemptsParams,
  ListWebhookEndpointsParams,
  ListWebhookReplaysParams,
  StartWebhookReplayDto,
  WebhookReplayResponse,
  ResendEventsDto,
  RotateWebhookSecretDto,
  UpdateWebhookEndpointDto,
  WebhookEndpointResponse,
} from './dto/webhook-endpoint.dto.js';
import { ApiResource } from '#http/api-resource.js';

/** Webhook endpoints of the key's account and mode: where the `evt_` feed is pushed, signed (Standard Webhooks). */
@ApiTags('webhook endpoints')
@ApiBasicAuth()
@ApiResource('webhook_endpoints')
@Controller('v1/webhook_endpoints')
export class WebhookEndpointsController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Register an endpoint; the answer carries its signing secret (whsec_…), shown only this once' })
  @ApiOkResponse({ type: WebhookEndpointResponse })
  async create(@Ctx() ctx: CommandContext, @Body() body: CreateWebhookEndpointDto) {
    const result = await this.write.run(new CreateWebhookEndpointCommand(ctx, body));
    const endpoint = await this.queries.execute(new GetWebhookEndpointQuery(ctx, result.id));
    return { ...endpoint, secret: (result as typeof result & { secret: string }).secret };
  }

  @Get()
  @ApiOperation({ summary: 'List endpoints, newest first' })
  list(@Ctx() ctx: CommandContext, @Query() params: ListWebhookEndpointsParams) {
    return this.queries.execute(new ListWebhookEndpointsQuery(ctx, params));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an endpoint (never its secret)' })
  @ApiOkResponse({ type: WebhookEndpointResponse })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetWebhookEndpointQuery(ctx, id));
  }

  @Post(':id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Update url, enabled_events, description, meta_data or status' })
  @ApiOkResponse({ type: WebhookEndpointResponse })
  update(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: UpdateWebhookEndpointDto) {
    return this.write.execute(new UpdateWebhookEndpointCommand(ctx, id, body), () => new GetWebhookEndpointQuery(ctx, id));
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete an endpoint: nothing more is sent to it' })
  async remove(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    await this.write.run(new DeleteWebhookEndpointCommand(ctx, id));
    return { id, object: 'webhook_endpoint', deleted: true };
  }

  @Post(':id/rotate_secret')
  @HttpCode(200)
  @ApiOperation({ summary: 'A new signing secret (answered once); the old one keeps signing beside it for expires_in seconds (default 24 h)' })
  @ApiOkResponse({ type: WebhookEndpointResponse })
  async rotate(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: RotateWebhookSecretDto) {
    const result = await this.write.run(new RotateWebhookSecretCommand(ctx, id, body.expires_in));
    const endpoint = await this.queries.execute(new GetWebhookEndpointQuery(ctx, id));
    return { ...endpoint, secret: (result as typeof result & { secret: string }).secret };
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: "The endpoint's delivery attempts, newest first (kept for WEBHOOK_RETENTION_DAYS, default 30)" })
  deliveries(@Ctx() ctx: CommandContext, @Param('id') id: string, @Query() params: ListDeliveryAttemptsParams) {
    return this.queries.execute(new ListDeliveryAttemptsQuery(ctx, id, params));
  }

  @Post(':id/resend')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send one event again (event), or every event whose delivery failed for good since a time (failed_since)' })
  resend(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: ResendEventsDto) {
    return this.commands.execute(new ResendEventsCommand(ctx, id, body));
  }

  @Post(':id/replays')
  @HttpCode(200)
  @ApiOperation({
    summary: "Re-deliver the account's events to this endpoint from an event (after it) or a time, up to `to` (default: now), of `types` (default: its enabled_events), at most WEBHOOK_REPLAY_RATE a second, beside its live deliveries",
  })
  @ApiOkResponse({ type: WebhookReplayResponse })
  start(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: StartWebhookReplayDto) {
    return this.write.execute(new StartWebhookReplayCommand(ctx, id, body), (r) => new GetWebhookReplayQuery(ctx, id, r.id));
  }

  @Get(':id/replays')
  @ApiOperation({ summary: "The endpoint's replays, newest first" })
  replays(@Ctx() ctx: CommandContext, @Param('id') id: string, @Query() params: ListWebhookReplaysParams) {
    return this.queries.execute(new ListWebhookReplaysQuery(ctx, id, params));
  }

  @Get(':id/replays/:replay')
  @ApiOperation({ summary: 'A replay and its progress (delivered, cursor)' })
  @ApiOkResponse({ type: WebhookReplayResponse })
  replay(@Ctx() ctx: CommandContext, @Param('id') id: string, @Param('replay') replay: string) {
    return this.queries.execute(new GetWebhookReplayQuery(ctx, id, replay));
  }

  @Post(':id/replays/:replay/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a running replay: nothing more is sent after the attempt in flight' })
  @ApiOkResponse({ type: WebhookReplayResponse })
  cancelReplay(@Ctx() ctx: CommandContext, @Param('id') id: string, @Param('replay') replay: string) {
    return this.write.execute(new CancelWebhookReplayCommand(ctx, id, replay), () => new GetWebhookReplayQuery(ctx, id, replay));
  }
}

/** Test mode: a test event to one endpoint. */
@ApiTags('webhook endpoints')
@ApiBasicAuth()
@UseGuards(TestModeOnlyGuard)
@ApiResource('webhook_endpoints')
@Controller('v1/test_helpers/webhook_endpoints')
export class WebhookTestHelpersController {
  constructor(private readonly write: WriteThenRead) {}

  @Post(':id/send_test_event')
  @HttpCode(200)
  @ApiOperation({ summary: 'Append a webhook_endpoint.test event, delivered to this endpoint only; answers the event' })
  sendTestEvent(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.write.execute(new SendTestEventCommand(ctx, id), ({ id: eventId }) => new GetEventQuery(ctx, eventId));
  }
}
