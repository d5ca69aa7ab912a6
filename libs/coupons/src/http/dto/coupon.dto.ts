import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { ListQuery } from '../../../../http/src/list.js';

/** Types only; ranges and combinations are the decider's (one place for every rule). */
export class CreateCouponDto {
  @ApiProperty({ example: 'BIENVENIDA10', description: 'What customers type; unique per account and mode (case-insensitive).' })
  @IsString()
  @MaxLength(100)
  code!: string;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  name?: string | null;

  @ApiPropertyOptional({ type: String, example: '10000', description: 'Amount off, in `currency` (exactly one of amount or percent).' })
  @IsOptional()
  @IsString()
  amount?: string | null;

  @ApiPropertyOptional({ type: String, example: '10', description: 'Percent off (0–100].' })
  @IsOptional()
  @IsString()
  percent?: string | null;

  @ApiPropertyOptional({ type: String, example: 'COP', description: 'Required with amount; with percent, restricts the coupon to one currency.' })
  @IsOptional()
  @IsString()
  currency?: string | null;

  @ApiPropertyOptional({ type: Number, nullable: true, description: 'Collections the discount applies to (default: all).' })
  @IsOptional()
  @IsInt()
  duration_in_collections?: number | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'ISO 8601; not redeemable before.' })
  @IsOptional()
  @IsString()
  valid_from?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'ISO 8601; not redeemable after.' })
  @IsOptional()
  @IsString()
  valid_until?: string | null;

  @ApiPropertyOptional({ type: Number, nullable: true, description: 'Total redemptions allowed (default: unlimited).' })
  @IsOptional()
  @IsInt()
  max_redemptions?: number | null;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({ type: Object })
  @IsOptional()
  @IsObject()
  meta_data?: Record<string, string>;
}

export class UpdateCouponDto {
  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  name?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  valid_until?: string | null;

  @ApiPropertyOptional({ type: Number, nullable: true })
  @IsOptional()
  @IsInt()
  max_redemptions?: number | null;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  active?: boolean;

  @ApiPropertyOptional({ type: Object })
  @IsOptional()
  @IsObject()
  meta_data?: Record<string, string>;
}

export class ListCouponsParams extends ListQuery {}
