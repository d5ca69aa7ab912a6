import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { OptionalNotNull } from '#http/validators.js';
import { ListQuery } from '#http/list.js';
import { PaymentInformationDto } from '#payments/http/dto/payment-information.dto.js';
import { COLLECTION_STATUSES } from '../../domain/collection.decider.js';

const DECIMAL = /^\d{1,20}(\.\d{1,20})?$/;
const DECIMAL_MESSAGE = (param: string) => `${param} must be a decimal amount written as a string, such as "49900.00"`;

export class ItemDto {
  @ApiProperty({ example: 'price_…', description: 'A price of this account and mode.' })
  @MaxLength(100)
  @IsNotEmpty()
  @IsString()
  price: string;

  @ApiPropertyOptional({ example: 1, default: 1, minimum: 1 })
  @OptionalNotNull()
  @Max(1_000_000)
  @Min(1)
  @IsInt()
  quantity?: number;

  @ApiPropertyOptional({ example: '50000.00', description: 'ntp prices only: the amount the customer chose, within the price limits.' })
  @OptionalNotNull()
  @Matches(DECIMAL, { message: DECIMAL_MESSAGE('amount') })
  @IsString()
  amount?: string;
}

export class DiscountDto {
  @ApiProperty({ example: 'WELCOME10' })
  @MaxLength(100)
  @IsNotEmpty()
  @IsString()
  code: string;

  @ApiPropertyOptional({ example: '5000.00', description: 'Amount off (in the collection currency). Exactly one of amount or percent.' })
  @OptionalNotNull()
  @Matches(DECIMAL, { message: DECIMAL_MESSAGE('amount') })
  @IsString()
  amount?: string;

  @ApiPropertyOptional({ example: '10', description: 'Percent off (0–100]. Exactly one of amount or percent.' })
  @OptionalNotNull()
  @Matches(DECIMAL, { message: 'percent must be a decimal percentage written as a string, such as "10"' })
  @IsString()
  percent?: string;
}

export class InvoiceSettingsDto {
  @ApiPropertyOptional()
  @OptionalNotNull()
  @MaxLength(100)
  @IsString()
  invoice_document_id?: string;

  @ApiPropertyOptional()
  @OptionalNotNull()
  @MaxLength(100)
  @IsString()
  invoice_cost_center?: string;
}

export class CollectionRetentionsDto {
  @ApiPropertyOptional({ example: '9.66', description: 'ReteICA rate per thousand (‰) of the taxable base: Bogotá services 9.66 (0 to 1000).' })
  @OptionalNotNull()
  @MaxLength(10)
  @IsString()
  reteica?: string;

  @ApiPropertyOptional({ example: '2.5', description: 'Retención en la fuente rate in percent of the taxable base (0 to 100).' })
  @OptionalNotNull()
  @MaxLength(10)
  @IsString()
  retefte?: string;
}

export class CreateCollectionDto {
  @ApiProperty({ example: 'cus_…' })
  @MaxLength(100)
  @IsNotEmpty()
  @IsString()
  customer: string;

  @ApiProperty({ type: [ItemDto], description: 'one_time prices (1–20 items).' })
  @ValidateNested({ each: true })
  @Type(() => ItemDto)
  @ArrayMaxSize(20)
  @IsObject({ each: true })
  @IsArray()
  items: ItemDto[];

  @ApiPropertyOptional({ example: 'COP', description: "Defaults to the first price's currency; other currencies are converted at the rate of the moment." })
  @OptionalNotNull()
  @MaxLength(3)
  @IsString()
  currency?: string;

  @ApiPropertyOptional({ type: [DiscountDto] })
  @OptionalNotNull()
  @ValidateNested({ each: true })
  @Type(() => DiscountDto)
  @ArrayMaxSize(20)
  @IsObject({ each: true })
  @IsArray()
  discounts?: DiscountDto[];

  @ApiPropertyOptional({ enum: ['charge', 'collect'], default: 'collect' })
  @OptionalNotNull()
  @IsIn(['charge', 'collect'])
  collection_method?: 'charge' | 'collect';

  @ApiPropertyOptional({ example: 7, description: "Required with collect: due until the end of the day this many days after the day of creation, in the account's time zone (America/Bogota)." })
  @OptionalNotNull()
  @Max(365)
  @Min(0)
  @IsInt()
  days_until_due?: number;

  @ApiPropertyOptional()
  @OptionalNotNull()
  @MaxLength(500)
  @IsString()
  description?: string;

  @ApiPropertyOptional()
  @OptionalNotNull()
  @MaxLength(100)
  @IsString()
  collection_rule_id?: string;

  @ApiPropertyOptional({ type: InvoiceSettingsDto })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => InvoiceSettingsDto)
  @IsObject()
  invoice_settings?: InvoiceSettingsDto;

  @ApiPropertyOptional({ type: CollectionRetentionsDto })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => CollectionRetentionsDto)
  @IsObject()
  invoice_retentions?: CollectionRetentionsDto;

  @ApiPropertyOptional({ enum: ['create', 'after'], description: 'Issue a fiscal invoice for this collection when it is created (collect only) or when it is paid; left out: none.' })
  @OptionalNotNull()
  @IsIn(['create', 'after'])
  invoicing?: 'create' | 'after';

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @OptionalNotNull()
  @IsObject()
  meta_data?: Record<string, string>;
}

export class PayCollectionDto {
  @ApiPropertyOptional({ example: 'pm_…', description: "A stored method of the collection's customer. Without it (and without payment_information) the customer's default is charged." })
  @OptionalNotNull()
  @MaxLength(100)
  @IsString()
  payment_method?: string;

  @ApiPropertyOptional({ type: PaymentInformationDto, description: 'One-off payment data; card and wallets are saved as a payment method once paid.' })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => PaymentInformationDto)
  @IsObject()
  payment_information?: PaymentInformationDto;

  @ApiPropertyOptional({ description: 'The customer paid outside the service (transfer, cash at the office).' })
  @OptionalNotNull()
  @IsBoolean()
  paid_out_of_band?: boolean;

  @ApiPropertyOptional({ example: 'https://example.com/receipts/123.pdf' })
  @OptionalNotNull()
  @MaxLength(2000)
  @IsString()
  out_of_band_proof?: string;
}

export class RefundCollectionDto {
  @ApiPropertyOptional({ example: '10000.00', description: 'Part to refund; the whole remaining amount when left out.' })
  @OptionalNotNull()
  @Matches(DECIMAL, { message: DECIMAL_MESSAGE('amount') })
  @IsString()
  amount?: string;

  @ApiPropertyOptional({ example: 'requested_by_customer' })
  @OptionalNotNull()
  @MaxLength(500)
  @IsString()
  reason?: string;
}

export class UpdateCollectionItemsDto {
  @ApiProperty({ type: [ItemDto] })
  @ValidateNested({ each: true })
  @Type(() => ItemDto)
  @ArrayMaxSize(20)
  @IsObject({ each: true })
  @IsArray()
  items: ItemDto[];
}

export class UpdateCollectionDiscountsDto {
  @ApiProperty({ type: [DiscountDto], description: 'Replaces the discounts ([] removes all).' })
  @ValidateNested({ each: true })
  @Type(() => DiscountDto)
  @ArrayMaxSize(20)
  @IsObject({ each: true })
  @IsArray()
  discounts: DiscountDto[];
}

export class ListCollectionsParams extends ListQuery {
  @ApiPropertyOptional()
  @IsOptional()
  @MaxLength(100)
  @IsString()
  customer?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @MaxLength(100)
  @IsString()
  subscription?: string;

  @ApiPropertyOptional({ enum: COLLECTION_STATUSES })
  @IsOptional()
  @IsIn(COLLECTION_STATUSES)
  status?: string;
}

export class ListChargesParams extends ListQuery {
  @ApiPropertyOptional()
  @IsOptional()
  @MaxLength(100)
  @IsString()
  collection?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @MaxLength(100)
  @IsString()
  customer?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @MaxLength(100)
  @IsString()
  transaction?: string;

  @ApiPropertyOptional({ enum: ['in_progress', 'pending', 'succeeded', 'failed'] })
  @IsOptional()
  @IsIn(['in_progress', 'pending', 'succeeded', 'failed'])
  status?: string;
}

export class ListTransactionsParams extends ListQuery {
  @ApiPropertyOptional()
  @IsOptional()
  @MaxLength(100)
  @IsString()
  collection?: string;
}

export class PartialPaymentDto {
  @ApiProperty({ example: '30000.00', description: 'The amount now to pay: more than 0 and less than the total, with the currency digits. It becomes the total.' })
  @Matches(DECIMAL, { message: DECIMAL_MESSAGE('amount') })
  @IsString()
  amount: string;

  @ApiPropertyOptional({
    default: false,
    description: 'Also create a collection for the rest (collect, no items, balance_of this one, due days_until_due days after today), created and sent.',
  })
  @OptionalNotNull()
  @IsBoolean()
  create_collection_with_balance?: boolean;

  @ApiPropertyOptional({ example: 15, description: "Required with create_collection_with_balance: the balance collection is due until the end of the day this many days after today, in the account's time zone (America/Bogota)." })
  @OptionalNotNull()
  @Max(365)
  @Min(0)
  @IsInt()
  days_until_due?: number;

  @ApiPropertyOptional({ description: 'With create_collection_with_balance: the collection_rule_id of the balance collection.' })
  @OptionalNotNull()
  @MaxLength(100)
  @IsString()
  collection_rule_id?: string;
}

export class UpdateCollectionTotalDto {
  @ApiProperty({ example: '20000.00', description: 'The new total (the spec\'s five conditions apply; 400 collection_total_not_updatable naming the one not met).' })
  @Matches(DECIMAL, { message: DECIMAL_MESSAGE('total') })
  @IsString()
  total: string;
}

export class RegisterInvoicesPaymentDto {
  @ApiProperty({ example: '150000.00', description: "The amount the customer paid; at most the open balance of the customer's collections." })
  @Matches(DECIMAL, { message: DECIMAL_MESSAGE('amount') })
  @IsString()
  amount: string;

  @ApiPropertyOptional({ example: 'COP', description: 'Only needed when the open collections are in more than one currency.' })
  @OptionalNotNull()
  @MaxLength(3)
  @IsString()
  currency?: string;
}
