import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { OptionalNotNull } from '#http/validators.js';
import { ListQuery } from '#http/list.js';
import {
  BILLING_PERIODS,
  type BillingPeriod,
  PRICE_TYPES,
  PRICING_MODELS,
  type PriceType,
  type PricingModel,
} from '../../domain/price.decider.js';

/** Amounts travel as decimal strings; the domain checks the value and the currency's digits. */
const AMOUNT_MAX_LENGTH = 50;

export class PriceTierDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 1,
    example: 10,
    description: 'Upper bound (inclusive) of the quantity in this tier; strictly increasing; null on the last tier, and only there.',
  })
  @ValidateIf((_object, value) => value !== null)
  @Min(1)
  @IsInt()
  up_to: number | null;

  @ApiProperty({ example: '15000.00', description: 'Decimal string ≥ 0, at most the currency’s minor-unit digits.' })
  @MaxLength(AMOUNT_MAX_LENGTH)
  @IsString()
  unit_price: string;

  @ApiPropertyOptional({ example: '5000.00', description: 'Flat amount added for the tier (decimal string ≥ 0).' })
  @OptionalNotNull()
  @MaxLength(AMOUNT_MAX_LENGTH)
  @IsString()
  flat_price?: string;
}

export class PricingTiersDto {
  @ApiProperty({ type: [PriceTierDto], description: 'At least one tier (at most 100).' })
  @ValidateNested({ each: true })
  @Type(() => PriceTierDto)
  @ArrayMaxSize(100)
  @IsObject({ each: true })
  @IsArray()
  tiers: PriceTierDto[];
}

export class NtpPricingDto {
  @ApiPropertyOptional({ example: '10000.00' })
  @OptionalNotNull()
  @MaxLength(AMOUNT_MAX_LENGTH)
  @IsString()
  min_amount?: string;

  @ApiPropertyOptional({ example: '500000.00' })
  @OptionalNotNull()
  @MaxLength(AMOUNT_MAX_LENGTH)
  @IsString()
  max_amount?: string;

  @ApiPropertyOptional({ example: '50000.00' })
  @OptionalNotNull()
  @MaxLength(AMOUNT_MAX_LENGTH)
  @IsString()
  suggested_amount?: string;
}

class PriceMutableFieldsDto {
  @ApiPropertyOptional({ default: true })
  @OptionalNotNull()
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'String values of at most 255 characters; on update a key set to "" is removed.' })
  @OptionalNotNull()
  @IsObject()
  meta_data?: Record<string, string>;
}

export class CreatePriceDto extends PriceMutableFieldsDto {
  @ApiProperty({ example: 'prod_0123456789ABCDEFGHIJabcd', description: 'A product of the same account and mode.' })
  @MaxLength(100)
  @IsNotEmpty()
  @IsString()
  product_id: string;

  @ApiPropertyOptional({ default: 'COP', example: 'COP', description: 'ISO 4217 code (stored upper-case).' })
  @OptionalNotNull()
  @MaxLength(10)
  @IsString()
  currency?: string;

  @ApiProperty({ enum: PRICE_TYPES })
  @IsIn(PRICE_TYPES)
  type: PriceType;

  @ApiPropertyOptional({ enum: BILLING_PERIODS, description: 'Required with type recurring; not allowed with one_time.' })
  @OptionalNotNull()
  @IsIn(BILLING_PERIODS)
  billing_period?: BillingPeriod;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, example: 1, description: 'Periods per cycle (3 with month = quarterly). Required with recurring; not allowed with one_time.' })
  @OptionalNotNull()
  @Min(1)
  @IsInt()
  billing_interval?: number;

  @ApiPropertyOptional({ enum: PRICING_MODELS, default: 'standard' })
  @OptionalNotNull()
  @IsIn(PRICING_MODELS)
  pricing_model?: PricingModel;

  @ApiPropertyOptional({ example: '15000.00', description: 'Decimal string ≥ 0. Required with pricing_model standard; not allowed otherwise.' })
  @OptionalNotNull()
  @MaxLength(AMOUNT_MAX_LENGTH)
  @IsString()
  unit_price?: string;

  @ApiPropertyOptional({ type: PricingTiersDto, description: 'Required with pricing_model graduated or volume; not allowed otherwise.' })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => PricingTiersDto)
  pricing_tiers?: PricingTiersDto;

  @ApiPropertyOptional({ type: NtpPricingDto, description: 'Required with pricing_model ntp (may be {}); not allowed otherwise. min ≤ suggested ≤ max.' })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => NtpPricingDto)
  ntp_pricing?: NtpPricingDto;
}

/** Prices are immutable apart from these; any other field is an unknown parameter. */
export class UpdatePriceDto extends PriceMutableFieldsDto {}

export class ListPricesParams extends ListQuery {
  @ApiPropertyOptional()
  @IsOptional()
  @MaxLength(100)
  @IsString()
  product_id?: string;

  @ApiPropertyOptional({ type: 'boolean' })
  @IsOptional()
  @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean({ message: 'active must be true or false' })
  active?: boolean;

  @ApiPropertyOptional({ enum: PRICE_TYPES })
  @IsOptional()
  @IsIn(PRICE_TYPES)
  type?: PriceType;

  @ApiPropertyOptional({ example: 'COP' })
  @IsOptional()
  @Matches(/^[A-Za-z]{3}$/, { message: 'currency must be a three-letter currency code' })
  @IsString()
  currency?: string;
}
