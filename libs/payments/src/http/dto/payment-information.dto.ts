import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsNotEmpty, IsObject, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { OptionalNotNull } from '#http/validators.js';
import { ALL_GATEWAYS } from '../../domain/gateways.js';

/** A card's expiry: part of raw card data and of an imported card's details. */
export class CardExpiryDto {
  @ApiProperty({ example: 12 })
  @Max(12)
  @Min(1)
  @IsInt()
  exp_month: number;

  @ApiProperty({ example: 2030 })
  @Max(2100)
  @Min(2000)
  @IsInt()
  exp_year: number;
}

export class CardDto extends CardExpiryDto {
  @ApiProperty({ example: '4242424242424242', description: 'Passed to the gateway to tokenize; never stored or logged.' })
  @MaxLength(23)
  @IsString()
  number: string;

  @ApiPropertyOptional({ example: '123' })
  @OptionalNotNull()
  @MaxLength(4)
  @IsString()
  cvc?: string;

  @ApiPropertyOptional({ example: 'ANA GOMEZ' })
  @OptionalNotNull()
  @MaxLength(100)
  @IsString()
  holder_name?: string;
}

export class WalletDto {
  @ApiProperty({ example: '3001234567', description: 'The wallet account (phone or e-mail).' })
  @MaxLength(100)
  @IsNotEmpty()
  @IsString()
  account: string;
}

/** One-off payment data: a gateway, a method it offers, and the method's data. */
export class PaymentInformationDto {
  @ApiProperty({ enum: ALL_GATEWAYS, example: 'gateway_a', description: 'Must be configured on the account.' })
  @IsIn(ALL_GATEWAYS)
  @IsString()
  gateway: string;

  @ApiProperty({ example: 'card', description: "One of the gateway's methods (free-form for offline)." })
  @MaxLength(64)
  @IsNotEmpty()
  @IsString()
  type: string;

  @ApiPropertyOptional({ type: CardDto })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => CardDto)
  @IsObject()
  card?: CardDto;

  @ApiPropertyOptional({ type: WalletDto })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => WalletDto)
  @IsObject()
  wallet?: WalletDto;

  @ApiPropertyOptional({ example: '1007', description: 'pse: the bank code.' })
  @OptionalNotNull()
  @MaxLength(20)
  @IsString()
  bank_code?: string;

  @ApiPropertyOptional({ description: "A token from the gateway's own tokenization instead of raw data." })
  @OptionalNotNull()
  @MaxLength(200)
  @IsString()
  token?: string;
}
