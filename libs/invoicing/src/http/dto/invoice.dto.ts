import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { ListQuery } from '#http/list.js';
import { OptionalNotNull } from '#http/validators.js';
import { INVOICE_STATUSES } from '../../domain/invoice.decider.js';

export class ListInvoicesParams extends ListQuery {
  @ApiPropertyOptional({ example: 'cus_…' })
  @IsOptional()
  @MaxLength(100)
  @IsString()
  customer?: string;

  @ApiPropertyOptional({ enum: INVOICE_STATUSES })
  @IsOptional()
  @IsIn(INVOICE_STATUSES as unknown as string[])
  status?: string;

  @ApiPropertyOptional({ example: '2026-01-01', description: "Only invoices due at or after this date/time (a date: from the start of that day in the account's time zone)." })
  @IsOptional()
  @MaxLength(40)
  @IsString()
  due_date_from?: string;

  @ApiPropertyOptional({ example: '2026-12-31T23:59:59Z', description: "Only invoices due at or before this date/time (a date: through the end of that day in the account's time zone)." })
  @IsOptional()
  @MaxLength(40)
  @IsString()
  due_date_to?: string;
}

export class CreateCreditNoteDto {
  @ApiProperty({ example: '19000.00', description: 'At most the invoice amount due: a credit note never takes the balance below zero.' })
  @Matches(/^\d+(\.\d+)?$/, { message: 'amount must be a positive decimal amount' })
  @MaxLength(30)
  @IsString()
  amount: string;

  @ApiProperty({ example: 'Descuento por pronto pago' })
  @MaxLength(500)
  @IsNotEmpty()
  @IsString()
  reason: string;
}

export class NumberingDto {
  @ApiPropertyOptional({ example: 'SETT', description: '1–4 upper-case letters or digits.' })
  @OptionalNotNull()
  @IsString()
  prefix?: string;

  @ApiPropertyOptional({ example: 1 })
  @OptionalNotNull()
  @Max(9_999_999_999)
  @Min(1)
  @IsInt()
  next_number?: number;

  @ApiPropertyOptional({ type: 'integer', example: 5000, nullable: true, description: 'Last number of the authorised range (null: open).' })
  @IsOptional()
  @Min(1)
  @IsInt()
  range_end?: number | null;

  @ApiPropertyOptional({ example: 'NC' })
  @OptionalNotNull()
  @IsString()
  credit_note_prefix?: string;

  @ApiPropertyOptional({ example: 1 })
  @OptionalNotNull()
  @Max(9_999_999_999)
  @Min(1)
  @IsInt()
  credit_note_next_number?: number;
}

export class DefaultRetentionsDto {
  @ApiPropertyOptional({ type: String, example: '15', nullable: true, description: 'ReteIVA rate in percent of the tax (0 to 100).' })
  @IsOptional()
  @MaxLength(10)
  @IsString()
  reteiva?: string | null;

  @ApiPropertyOptional({ type: String, example: '9.66', nullable: true, description: 'ReteICA rate per thousand (‰) of the taxable base: Bogotá services 9.66 (0 to 1000).' })
  @IsOptional()
  @MaxLength(10)
  @IsString()
  reteica?: string | null;

  @ApiPropertyOptional({ type: String, example: '2.5', nullable: true, description: 'Retención en la fuente rate in percent of the taxable base (0 to 100).' })
  @IsOptional()
  @MaxLength(10)
  @IsString()
  retefte?: string | null;
}

export class UpdateInvoicingSettingsDto {
  @ApiPropertyOptional({ description: 'false: invoices are not issued automatically.' })
  @OptionalNotNull()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ enum: ['simulator'] })
  @OptionalNotNull()
  @IsString()
  provider?: string;

  @ApiPropertyOptional({ type: NumberingDto })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => NumberingDto)
  @IsObject()
  numbering?: NumberingDto;

  @ApiPropertyOptional({ type: DefaultRetentionsDto, description: 'Withholding rates used when the subscription or collection names none: reteica per thousand (‰), reteiva and retefte percent.' })
  @OptionalNotNull()
  @ValidateNested()
  @Type(() => DefaultRetentionsDto)
  @IsObject()
  default_retentions?: DefaultRetentionsDto;
}

export class InvoicingProviderBehaviourDto {
  @ApiPropertyOptional({ example: 2, description: 'The next N calls fail (provider_unavailable).' })
  @OptionalNotNull()
  @Max(100)
  @Min(0)
  @IsInt()
  fail_next?: number;

  @ApiPropertyOptional({ example: 0, description: 'Each call answers after this many milliseconds.' })
  @OptionalNotNull()
  @Max(30_000)
  @Min(0)
  @IsInt()
  delay_ms?: number;
}

const AMOUNT = /^\d+(\.\d+)?$/;

export class UploadInvoiceDto {
  @ApiProperty({ example: 'cus_…' })
  @MaxLength(100)
  @IsNotEmpty()
  @IsString()
  customer: string;

  @ApiProperty({ example: 'FE-1024', description: 'The number the invoice was issued with (elsewhere).' })
  @MaxLength(50)
  @IsNotEmpty()
  @IsString()
  number: string;

  @ApiProperty({ example: '2026-01-10', description: "A date (a day of the account's time zone, America/Bogota: issued at its start) or an ISO 8601 timestamp." })
  @MaxLength(40)
  @IsString()
  issue_date: string;

  @ApiProperty({
    example: '2026-02-09',
    description: "A date, or an ISO 8601 timestamp naming the day that holds it, in the account's time zone (America/Bogota): due until the end of that day (2026-02-09 → due_date 2026-02-10T04:59:59.999Z).",
  })
  @MaxLength(40)
  @IsString()
  due_date: string;

  @ApiPropertyOptional({ example: 'COP', default: 'COP' })
  @OptionalNotNull()
  @MaxLength(3)
  @IsString()
  currency?: string;

  @ApiProperty({ example: '100000.00' })
  @Matches(AMOUNT, { message: 'subtotal must be a decimal amount' })
  @MaxLength(30)
  @IsString()
  subtotal: string;

  @ApiProperty({ example: '19000.00' })
  @Matches(AMOUNT, { message: 'tax_total must be a decimal amount' })
  @MaxLength(30)
  @IsString()
  tax_total: string;

  @ApiProperty({ example: '119000.00', description: 'subtotal + tax_total.' })
  @Matches(AMOUNT, { message: 'total must be a decimal amount' })
  @MaxLength(30)
  @IsString()
  total: string;

  @ApiPropertyOptional({ example: 'https://example.com/FE-1024.pdf' })
  @OptionalNotNull()
  @MaxLength(2000)
  @IsString()
  pdf_url?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @OptionalNotNull()
  @IsObject()
  meta_data?: Record<string, string>;
}

export class PayInvoiceDto {
  @ApiPropertyOptional({ example: '50000.00', description: 'Default: the amount due. At most the amount due.' })
  @OptionalNotNull()
  @Matches(AMOUNT, { message: 'amount must be a positive decimal amount' })
  @MaxLength(30)
  @IsString()
  amount?: string;
}
