import { Controller, Get, Param, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOperation, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import type { CommandContext } from '#platform/command-context.js';
import { Ctx } from '#http/request-context.js';
import { ListQuery } from '#http/list.js';
import { GetEventQuery } from '../application/get-event.js';
import { ListEventsQuery } from '../application/list-events.js';
import { EVENT_PATTERNS } from '../public-event-types.js';
import { ApiResource } from '#http/api-resource.js';

export class ListEventsParams extends ListQuery {
  @ApiPropertyOptional({
    enum: EVENT_PATTERNS.filter((p) => p !== '*'),
    description: 'An event type (`product.created`) or a family (`product.*`): the values of webhook endpoints\' `enabled_events` but `*`.',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z_]+(\.[a-z_]+)*(\.\*)?$/, { message: 'type must be an event type such as product.created or product.*' })
  type?: string;

  @ApiPropertyOptional({ description: 'Only events about this object (its full history, oldest first).' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  object_id?: string;

  @ApiPropertyOptional({ description: 'Only events about this customer or its objects (invoices, collections, subscriptions, …), oldest first.' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  customer?: string;
}

@ApiTags('events')
@ApiBasicAuth()
@ApiResource('events')
@Controller('v1/events')
export class EventsController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({ summary: 'Page through the event feed in global order, oldest first' })
  list(@Ctx() ctx: CommandContext, @Query() params: ListEventsParams) {
    return this.queries.execute(new ListEventsQuery(ctx, params, '/v1/events'));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get one event' })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetEventQuery(ctx, id));
  }
}
