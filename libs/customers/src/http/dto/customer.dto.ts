import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsEmail, IsIn, IsISO31661Alpha2, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { OptionalNotNull } from '#http/validators.js';
import { ListQuery } from '#http/list.js';
import { DOCUMENT_TYPES, type DocumentType } from '../../domain/customer.decider.js';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** The spec's billing address; sent as a whole object (an update replaces it entirely). */
export class BillingAddressDto {
  @ApiProperty({ example: 'Calle 100 # 8A-55' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  address_1: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Oficina 501' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  address_2?: string | null;

  @ApiProperty({ example: 'Bogotá' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  city: string;

  @ApiProperty({ example: 'Cundinamarca', description: 'State or department.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  state: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: '110111' })
  @IsOptional()
  @IsString()
  @MaxLength(20)
  postcode?: string | null;

  @ApiProperty({ example: 'CO', description: 'ISO 3166-1 alpha-2 country code; stored upper-case.' })
  @IsString()
  @IsISO31661Alpha2({ message: 'country must be an ISO 3166-1 alpha-2 country code such as CO' })
  country: string;
}

class CustomerFieldsDto {
  @ApiPropertyOptional({ type: String, nullable: true, example: 'Ana Gómez' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(256)
  name?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: '+57 300 123 4567' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(40)
  phone?: string | null;

  @ApiPropertyOptional({ nullable: true, enum: DOCUMENT_TYPES, description: 'Identification document type.' })
  @IsOptional()
  @IsIn(DOCUMENT_TYPES)
  document_type?: DocumentType | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: '1020304050' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  document_number?: string | null;

  @ApiPropertyOptional({ type: BillingAddressDto, nullable: true, description: 'Replaced as a whole on update; null removes it.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => BillingAddressDto)
  billing_address?: BillingAddressDto | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'String values of at most 255 characters. On update the keys merge; "" removes a key.',
  })
  @OptionalNotNull()
  @IsObject()
  meta_data?: Record<string, string>;
}

export class CreateCustomerDto extends CustomerFieldsDto {
  @ApiProperty({ example: 'ana@example.com', description: 'Unique per account and mode (compared case-insensitively).' })
  @Transform(trim)
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: 'clock_0lO5x1PYOc8fMNINw4RJAi3c',
    description:
      'Test mode only: the test clock the customer lives on (an existing clock of the account). The customer, its subscriptions and their collections are created and changed at the clock\'s frozen_time, and advancing the clock runs their deadlines. Set at creation only.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  test_clock?: string | null;
}

export class UpdateCustomerDto extends CustomerFieldsDto {
  @ApiPropertyOptional({ example: 'ana@example.com', description: 'Unique per account and mode (compared case-insensitively).' })
  @OptionalNotNull()
  @Transform(trim)
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(254)
  email?: string;
}

export class ListCustomersParams extends ListQuery {
  @ApiPropertyOptional({ description: 'Only the customer with this email (exact match, case-insensitive).' })
  @IsOptional()
  @IsString()
  @MaxLength(254)
  email?: string;
}

export class ListPaymentMethodsParams extends ListQuery {}
