import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { ListQuery } from '#http/list.js';

/** An optional field that may be null (types only: its ranges are the decider's). */
const OptionalString = (doc: ApiPropertyOptions = {}) => applyDecorators(ApiPropertyOptional({ type: String, nullable: true, ...doc } as ApiPropertyOptions), IsOptional(), IsString());
const OptionalInt = (doc: ApiPropertyOptions = {}) => applyDecorators(ApiPropertyOptional({ type: Number, nullable: true, ...doc } as ApiPropertyOptions), IsOptional(), IsInt());
const OptionalBoolean = (doc: ApiPropertyOptions = {}) => applyDecorators(ApiPropertyOptional(doc), IsOptional(), IsBoolean());
const OptionalMetaData = () => applyDecorators(ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } }), IsOptional(), IsObject());

/** Types only; ranges and combinations are the decider's (one place for every rule). */
export class CreateCouponDto {
  @ApiProperty({ example: 'BIENVENIDA10', description: 'What customers type; unique per account and mode (case-insensitive).' })
  @IsString()
  @MaxLength(100)
  code!: string;

  @OptionalString()
  name?: string | null;

  @OptionalString({ example: '10000', description: 'Amount off, in `currency` (exactly one of amount or percent).' })
  amount?: string | null;

  @OptionalString({ example: '10', description: 'Percent off (0–100].' })
  percent?: string | null;

  @OptionalString({ example: 'COP', description: 'Required with amount; with percent, restricts the coupon to one currency.' })
  currency?: string | null;

  @OptionalInt({ description: 'Collections the discount applies to when a customer types the code on a hosted checkout page (default: all). A request naming the code in `discounts` gives its own `duration_in_collections`, or none: then every cycle.' })
  duration_in_collections?: number | null;

  @OptionalString({ description: 'ISO 8601; not redeemable before.' })
  valid_from?: string | null;

  @OptionalString({ description: 'ISO 8601; not redeemable after.' })
  valid_until?: string | null;

  @OptionalInt({ description: 'Total redemptions allowed (default: unlimited).' })
  max_redemptions?: number | null;

  @OptionalBoolean({ default: true })
  active?: boolean;

  @OptionalMetaData()
  meta_data?: Record<string, string>;
}

export class UpdateCouponDto {
  @OptionalString()
  name?: string | null;

  @OptionalString()
  valid_until?: string | null;

  @OptionalInt()
  max_redemptions?: number | null;

  @OptionalBoolean()
  active?: boolean;

  @OptionalMetaData()
  meta_data?: Record<string, string>;
}

export class ListCouponsParams extends ListQuery {}
