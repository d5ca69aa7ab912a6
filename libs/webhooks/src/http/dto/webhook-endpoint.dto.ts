import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsISO8601, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { EVENT_PATTERNS } from '#events/public-event-types.js';
import { ListQuery } from '#http/list.js';
import { OptionalNotNull } from '#http/validators.js';

export class CreateWebhookEndpointDto {
  @ApiProperty({
    example: 'https://example.com/webhooks/billing',
    description: 'Live mode: https, resolving to a public address. Test mode: https, or http://localhost / 127.0.0.1 / [::1] for development.',
  })
  @IsString()
  url: string;

  @ApiProperty({
    enum: EVENT_PATTERNS,
    isArray: true,
    example: ['subscription.*', 'charge.paid'],
    description: 'Event types to receive: types of the event feed, `prefix.*` for all the types of a resource, or `*` for all; any other value is refused.',
  })
  @IsArray()
  @IsString({ each: true })
  enabled_events: string[];

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 5000 })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @OptionalNotNull()
  @IsObject()
  meta_data?: Record<string, string>;
}

export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional()
  @OptionalNotNull()
  @IsString()
  url?: string;

  @ApiPropertyOptional({ enum: EVENT_PATTERNS, isArray: true, example: ['*'], description: 'Replaces the list (same values as at creation).' })
  @OptionalNotNull()
  @IsArray()
  @IsString({ each: true })
  enabled_events?: string[];

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: 5000 })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'Merged into the current meta_data; a key set to "" is removed.' })
  @OptionalNotNull()
  @IsObject()
  meta_data?: Record<string, string>;

  @ApiPropertyOptional({ enum: ['enabled', 'disabled'], description: '`enabled` re-enables an endpoint (also one the delivery worker disabled): delivery resumes where it stopped.' })
  @OptionalNotNull()
  @IsIn(['enabled', 'disabled'])
  status?: 'enabled' | 'disabled';
}

export class RotateWebhookSecretDto {
  @ApiPropertyOptional({ minimum: 0, maximum: 604800, default: 86400, description: 'Seconds the current secret keeps signing beside the new one (0: stops now).' })
  @OptionalNotNull()
  @IsInt()
  expires_in?: number;
}

export class ResendEventsDto {
  @ApiPropertyOptional({ example: 'evt_0f1e2d3c4b5a69788796a5b4c3d2e1f0', description: 'One event to send again.' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(100)
  event?: string;

  @ApiPropertyOptional({ example: '2026-11-20T00:00:00.000Z', description: 'Every event created since then whose delivery failed for good (at most 1000 a call).' })
  @OptionalNotNull()
  @IsISO8601({ strict: true }, { message: 'failed_since must be an ISO 8601 timestamp' })
  failed_since?: string;
}

export class ListWebhookEndpointsParams extends ListQuery {}

export class ListDeliveryAttemptsParams extends ListQuery {
  @ApiPropertyOptional({ description: 'Only the attempts of this event.' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @Type(() => String)
  event?: string;
}

export class WebhookEndpointResponse {
  @ApiProperty({ example: 'we_0lO5x1PYOc8fMNINw4RJAi3c' })
  id: string;
  @ApiProperty({ enum: ['webhook_endpoint'] })
  object: 'webhook_endpoint';
  @ApiProperty()
  url: string;
  @ApiProperty({ type: [String] })
  enabled_events: string[];
  @ApiProperty({ type: String, nullable: true })
  description: string | null;
  @ApiProperty({ enum: ['enabled', 'disabled'] })
  status: 'enabled' | 'disabled';
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } })
  meta_data: Record<string, string>;
  @ApiProperty({ example: '2026-11-23 10:00:00' })
  created_date: string;
  @ApiProperty()
  is_test: boolean;
  @ApiPropertyOptional({ example: 'whsec_…', description: 'Only in the answer to create and rotate_secret: the signing secret, never shown again.' })
  secret?: string;
}

export class StartWebhookReplayDto {
  @ApiProperty({ example: 'evt_0lO5x1PYOc8fMNINw4RJAi3c', description: 'Where to start: an event id (the events after it), or an ISO 8601 time (the events created at or after it).' })
  @IsString()
  @MaxLength(100)
  from: string;

  @ApiPropertyOptional({ example: '2026-11-20T00:00:00.000Z', description: 'Where to stop (included): an event id or an ISO 8601 time. Default: the last event when the replay was started.' })
  @OptionalNotNull()
  @IsString()
  @MaxLength(100)
  to?: string;

  @ApiPropertyOptional({ enum: EVENT_PATTERNS, isArray: true, description: "Event types to replay (as enabled_events). Default: the endpoint's enabled_events." })
  @OptionalNotNull()
  @IsArray()
  types?: string[];
}

export class ListWebhookReplaysParams extends ListQuery {}

export class WebhookReplayResponse {
  @ApiProperty({ example: 'whr_0lO5x1PYOc8fMNINw4RJAi3c' })
  id: string;
  @ApiProperty({ enum: ['webhook_replay'] })
  object: 'webhook_replay';
  @ApiProperty({ example: 'we_0lO5x1PYOc8fMNINw4RJAi3c' })
  endpoint: string;
  @ApiProperty({ description: 'As given: an event id or an ISO 8601 time' })
  from: string;
  @ApiProperty({ type: String, nullable: true })
  to: string | null;
  @ApiProperty({ type: [String] })
  types: string[];
  @ApiProperty({ enum: ['running', 'completed', 'canceled'] })
  status: 'running' | 'completed' | 'canceled';
  @ApiProperty({ description: 'Events sent so far' })
  delivered: number;
  @ApiProperty({ type: String, nullable: true, description: 'The last event of the feed the replay has gone past' })
  cursor: string | null;
  @ApiProperty()
  created: string;
  @ApiProperty({ example: '2026-11-23 10:00:00' })
  created_date: string;
  @ApiProperty({ type: String, nullable: true })
  completed_at: string | null;
  @ApiProperty({ type: String, nullable: true })
  canceled_at: string | null;
  @ApiProperty()
  is_test: boolean;
}
