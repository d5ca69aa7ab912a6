import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsObject, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { OptionalNotNull } from '#http/validators.js';
import { ALL_GATEWAYS } from '../../domain/gateways.js';
import { CardExpiryDto } from './payment-information.dto.js';

export class UpdatePaymentMethodDto {
  @ApiPropertyOptional({ example: 12, description: 'Card methods: new expiry month.' })
  @OptionalNotNull()
  @Max(12)
  @Min(1)
  @IsInt()
  exp_month?: number;

  @ApiPropertyOptional({ example: 2031 })
  @OptionalNotNull()
  @Max(2100)
  @Min(2000)
  @IsInt()
  exp_year?: number;

  @ApiPropertyOptional({ description: "true makes this the customer's default payment method." })
  @OptionalNotNull()
  @IsBoolean()
  default?: boolean;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @OptionalNotNull()
  @IsObject()
  meta_data?: Record<string, string>;
}

export class MigratedCardDto extends CardExpiryDto {
  @ApiProperty({ example: 'visa' })
  @MaxLength(30)
  @IsNotEmpty()
  @IsString()
  brand: string;

  @ApiProperty({ example: '4242' })
  @Matches(/^\d{4}$/, { message: 'last4 must be four digits' })
  @IsString()
  last4: string;
}

export class MigratedWalletDto {
  @ApiProperty({ example: '4567' })
  @Matches(/^\S{1,4}$/, { message: 'account_last4 must be up to four characters' })
  @IsString()
  account_last4: string;
}

export class MigratePaymentMethodDto {
  @ApiProperty({ example: 'cus_…' })
  @MaxLength(100)
  @IsNotEmpty()
  @IsString()
  customer: string;

  @ApiProperty({ enum: ALL_GATEWAYS, example: 'gateway_a' })
  @IsIn(ALL_GATEWAYS)
  @IsString()
  gateway: string;

  @ApiProperty({ enum: ['card', 'wallet_a', 'wallet_b'], example: 'card' })
  @IsIn(['card', 'wallet_a', 'wallet_b'])
  @IsString()
  type: string;

  @ApiProperty({ description: 'The gateway token issued to the previous system.' })
  @MaxLength(500)
  @IsNotEmpty()
  @IsString()
  token: string;

  @ApiPropertyOptional({ type: MigratedCardDto })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => MigratedCardDto)
  @IsObject()
  card?: MigratedCardDto;

  @ApiPropertyOptional({ type: MigratedWalletDto })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => MigratedWalletDto)
  @IsObject()
  wallet?: MigratedWalletDto;

  @ApiPropertyOptional({ description: "Make it the customer's default (it becomes the default anyway when the customer has none)." })
  @OptionalNotNull()
  @IsBoolean()
  default?: boolean;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @OptionalNotNull()
  @IsObject()
  meta_data?: Record<string, string>;
}
