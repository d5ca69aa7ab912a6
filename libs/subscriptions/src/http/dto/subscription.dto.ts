import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsISO8601, IsNotEmpty, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { OptionalNotNull } from '#http/validators.js';
import { ListQuery } from '#http/list.js';
import { PaymentInformationDto } from '#payments/http/dto/payment-information.dto.js';
import { CollectionRetentionsDto, DiscountDto, InvoiceSettingsDto } from '#collections/http/dto/collection.dto.js';
import { SUBSCRIPTION_STATUSES } from '../../domain/subscription.decider.js';

const DECIMAL = /^\d{1,20}(\.\d{1,20})?$/;

export class SubscriptionItemDto {
  @ApiPropertyOptional({ description: 'Update only: an existing item (si_…) to change or delete.' })
  @OptionalNotNull()
  @MaxLength(100)
  @IsString()
  id?: string;

  @ApiPropertyOptional({ example: 'price_…', description: 'A price of this account (required for a new item).' })
  @OptionalNotNull()
  @MaxLength(100)
  @IsString()
  price?: string;

  @ApiPropertyOptional({ example: 1, default: 1 })
  @OptionalNotNull()
  @Max(1_000_000)
  @Min(1)
  @IsInt()
  quantity?: number;

  @ApiPropertyOptional({ example: '50000.00', description: 'ntp prices: the amount the customer chose.' })
  @OptionalNotNull()
  @Matches(DECIMAL, { message: 'amount must be a decimal amount written as a string, such as "49900.00"' })
  @IsString()
  amount?: string;

  @ApiPropertyOptional({ description: 'Update only: true removes the item `id`.' })
  @OptionalNotNull()
  @IsBoolean()
  deleted?: boolean;
}

export class SubscriptionDiscountDto extends DiscountDto {
  @ApiPropertyOptional({ example: 3, description: 'Collections the discount applies to; every collection when left out.' })
  @OptionalNotNull()
  @Max(1000)
  @Min(1)
  @IsInt()
  duration_in_collections?: number;
}

/** A collection's retentions plus `reteiva`, which subscriptions also carry. */
export class SubscriptionRetentionsDto extends CollectionRetentionsDto {
  @ApiPropertyOptional({ example: '15', description: 'ReteIVA rate in percent of the tax (0 to 100).' })
  @OptionalNotNull()
  @MaxLength(10)
  @IsString()
  reteiva?: string;
}

class SubscriptionSettingsDto {
  @ApiPropertyOptional({ type: [SubscriptionDiscountDto] })
  @OptionalNotNull()
  @ValidateNested({ each: true })
  @Type(() => SubscriptionDiscountDto)
  @ArrayMaxSize(20)
  @IsObject({ each: true })
  @IsArray()
  discounts?: SubscriptionDiscountDto[];

  @ApiPropertyOptional({ example: 'pm_…', description: 'charge only: a stored method of the customer. Exclusive with payment_information.' })
  @OptionalNotNull()
  @MaxLength(100)
  @IsString()
  payment_method?: string;

  @ApiPropertyOptional({ type: 'boolean', default: true, description: 'Whether each renewal generates a fiscal invoice.' })
  @OptionalNotNull()
  @IsBoolean()
  renewal_invoicing?: boolean;

  @ApiPropertyOptional({ type: InvoiceSettingsDto })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => InvoiceSettingsDto)
  @IsObject()
  invoice_settings?: InvoiceSettingsDto;

  @ApiPropertyOptional({ type: SubscriptionRetentionsDto })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => SubscriptionRetentionsDto)
  @IsObject()
  invoice_retentions?: SubscriptionRetentionsDto;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'Values at most 255 characters; carried in every event.' })
  @OptionalNotNull()
  @IsObject()
  meta_data?: Record<string, string>;
}

export class CreateSubscriptionDto extends SubscriptionSettingsDto {
  @ApiProperty({ example: 'cus_…' })
  @MaxLength(100)
  @IsNotEmpty()
  @IsString()
  customer: string;

  @ApiProperty({ type: [SubscriptionItemDto], description: 'Prices with quantities; all recurring prices share billing_period and billing_interval.' })
  @ValidateNested({ each: true })
  @Type(() => SubscriptionItemDto)
  @ArrayMaxSize(20)
  @IsObject({ each: true })
  @IsArray()
  items: SubscriptionItemDto[];

  @ApiPropertyOptional({ example: 'COP', description: "Defaults to the first recurring price's currency; other prices are converted at the rate of the moment." })
  @OptionalNotNull()
  @MaxLength(3)
  @IsString()
  currency?: string;

  @ApiPropertyOptional({ enum: ['charge', 'collect'], default: 'charge' })
  @OptionalNotNull()
  @IsIn(['charge', 'collect'])
  collection_method?: 'charge' | 'collect';

  @ApiPropertyOptional({ type: PaymentInformationDto, description: 'charge only: one-off payment data. Exclusive with payment_method; not with schedule_date.' })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => PaymentInformationDto)
  @IsObject()
  payment_information?: PaymentInformationDto;

  @ApiPropertyOptional({ example: 7, description: "Required with collect, rejected with charge: each collection is due until the end of the day this many days after the day it is made, in the account's time zone (America/Bogota)." })
  @OptionalNotNull()
  @Max(365)
  @Min(0)
  @IsInt()
  days_until_due?: number;

  @ApiPropertyOptional({ enum: ['create', 'after'], default: 'after', description: 'With charge only after is valid.' })
  @OptionalNotNull()
  @IsIn(['create', 'after'])
  first_payment_invoicing?: 'create' | 'after';

  @ApiPropertyOptional({ example: '2026-12-01T00:00:00.000Z', description: 'A future start. Not with payment_information or trial_days.' })
  @OptionalNotNull()
  @IsISO8601({ strict: true }, { message: 'schedule_date must be an ISO 8601 timestamp' })
  @IsString()
  schedule_date?: string;

  @ApiPropertyOptional({ example: 14 })
  @OptionalNotNull()
  @Max(730)
  @Min(1)
  @IsInt()
  trial_days?: number;

  @ApiPropertyOptional({ example: 12, description: 'Total number of cycles.' })
  @OptionalNotNull()
  @Max(1000)
  @Min(1)
  @IsInt()
  duration?: number;

  @ApiPropertyOptional({ example: 6, description: 'Minimum commitment periods.' })
  @OptionalNotNull()
  @Max(1000)
  @Min(1)
  @IsInt()
  commitment_periods?: number;

  @ApiPropertyOptional({ description: 'At each renewal: subscription.report_usage, a wait, then the collection.' })
  @OptionalNotNull()
  @IsBoolean()
  usage_based?: boolean;

  @ApiPropertyOptional({ description: 'collect only: once the customer pays with a card or wallet, renewals are charged.' })
  @OptionalNotNull()
  @IsBoolean()
  switch_to_charge?: boolean;
}

export class MigrateSubscriptionDto extends CreateSubscriptionDto {
  @ApiProperty({ example: '2026-12-15T00:00:00.000Z', description: 'When the imported subscription renews next.' })
  @IsISO8601({ strict: true }, { message: 'next_renewal_date must be an ISO 8601 timestamp' })
  @IsString()
  next_renewal_date: string;
}

export class UpdateSubscriptionDto extends SubscriptionSettingsDto {
  @ApiPropertyOptional({ type: [SubscriptionItemDto], description: '{price, quantity} adds; {id, quantity|price|amount} changes; {id, deleted: true} removes.' })
  @OptionalNotNull()
  @ValidateNested({ each: true })
  @Type(() => SubscriptionItemDto)
  @ArrayMaxSize(20)
  @IsObject({ each: true })
  @IsArray()
  items?: SubscriptionItemDto[];

  @ApiPropertyOptional({ example: 10, description: 'collect only.' })
  @OptionalNotNull()
  @Max(365)
  @Min(0)
  @IsInt()
  days_until_due?: number;
}

export class CancelSubscriptionDto {
  @ApiProperty({ enum: ['period_end', 'now'] })
  @IsIn(['period_end', 'now'], { message: 'cancel_at must be period_end or now' })
  cancel_at: 'period_end' | 'now';
}

export class PauseSubscriptionDto {
  @ApiPropertyOptional({ example: '2027-01-15T00:00:00.000Z', description: 'Resume on its own at this time.' })
  @OptionalNotNull()
  @IsISO8601({ strict: true }, { message: 'resumes_at must be an ISO 8601 timestamp' })
  @IsString()
  resumes_at?: string;
}

export class ShippingAddressDto {
  @ApiProperty() @MaxLength(200) @IsNotEmpty() @IsString() address_1: string;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @MaxLength(200) @IsString() address_2?: string | null;
  @ApiProperty() @MaxLength(100) @IsNotEmpty() @IsString() city: string;
  @ApiProperty() @MaxLength(100) @IsNotEmpty() @IsString() state: string;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @MaxLength(20) @IsString() postcode?: string | null;
  @ApiProperty({ example: 'CO' }) @Matches(/^[A-Za-z]{2}$/, { message: 'country must be an ISO 3166-1 alpha-2 code' }) @IsString() country: string;
}

export class SubscriptionShippingDto {
  @ApiProperty({ example: 'Ana Gómez' }) @MaxLength(200) @IsNotEmpty() @IsString() name: string;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @MaxLength(40) @IsString() phone?: string | null;
  @ApiProperty({ type: ShippingAddressDto }) @ValidateNested() @Type(() => ShippingAddressDto) @IsObject() address: ShippingAddressDto;
}

export class SubscriptionShippingItemDto {
  @ApiProperty({ example: 'Envío nacional' }) @MaxLength(200) @IsNotEmpty() @IsString() description: string;
  @ApiProperty({ example: '12000.00', description: 'In the subscription currency.' })
  @Matches(DECIMAL, { message: 'amount must be a decimal amount written as a string, such as "12000.00"' })
  @IsString()
  amount: string;
}

export class CreateSubscriptionItemDto {
  @ApiProperty({ example: 'sub_…' }) @MaxLength(100) @IsNotEmpty() @IsString() subscription: string;
  @ApiProperty({ example: 'price_…' }) @MaxLength(100) @IsNotEmpty() @IsString() price: string;
  @ApiPropertyOptional({ example: 1 }) @OptionalNotNull() @Max(1_000_000) @Min(1) @IsInt() quantity?: number;
  @ApiPropertyOptional({ example: '50000.00' })
  @OptionalNotNull()
  @Matches(DECIMAL, { message: 'amount must be a decimal amount written as a string, such as "49900.00"' })
  @IsString()
  amount?: string;
}

export class UpdateSubscriptionItemDto {
  @ApiPropertyOptional({ example: 'price_…' }) @OptionalNotNull() @MaxLength(100) @IsString() price?: string;
  @ApiPropertyOptional({ example: 2 }) @OptionalNotNull() @Max(1_000_000) @Min(1) @IsInt() quantity?: number;
  @ApiPropertyOptional({ example: '50000.00' })
  @OptionalNotNull()
  @Matches(DECIMAL, { message: 'amount must be a decimal amount written as a string, such as "49900.00"' })
  @IsString()
  amount?: string;
}

export class ListSubscriptionsParams extends ListQuery {
  @ApiPropertyOptional() @IsOptional() @MaxLength(100) @IsString() customer?: string;
  @ApiPropertyOptional({ enum: SUBSCRIPTION_STATUSES }) @IsOptional() @IsIn(SUBSCRIPTION_STATUSES) status?: string;
}

export class GetSubscriptionParams {
  @ApiPropertyOptional({ description: 'An ISO 8601 time or an event id (evt_…): the subscription as it stood then, rebuilt from its events.' })
  @IsOptional()
  @MaxLength(100)
  @IsString()
  as_of?: string;
}

export class HistoryParams extends ListQuery {}
