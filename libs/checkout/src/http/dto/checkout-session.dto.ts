import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { ListQuery } from '#http/list.js';
import { OptionalNotNull } from '#http/validators.js';

const DECIMAL = /^\d{1,20}(\.\d{1,20})?$/;

export class CheckoutItemDto {
  @ApiProperty({ example: 'price_…' })
  @IsString()
  @MaxLength(100)
  price!: string;

  @ApiPropertyOptional({ example: 1, default: 1 })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  quantity?: number;

  @ApiPropertyOptional({ example: '50000.00', description: 'ntp prices: a preset amount (the customer may change it on the page within the limits).' })
  @OptionalNotNull()
  @IsString()
  @Matches(DECIMAL, { message: 'amount must be a decimal amount written as a string, such as "49900.00"' })
  amount?: string;
}

export class CheckoutDiscountDto {
  @ApiProperty({ example: 'BIENVENIDA10', description: 'A coupon code of the account (its amount or percent come from the coupon).' })
  @IsString()
  @MaxLength(100)
  code!: string;

  @ApiPropertyOptional({ description: 'Collections the discount applies to; every collection (every cycle of the subscription the session makes) when left out.' })
  @OptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(1000)
  duration_in_collections?: number;
}

export class AfterCompletionDto {
  @ApiPropertyOptional({ enum: ['hosted', 'redirect'], default: 'hosted' })
  @OptionalNotNull()
  @IsIn(['hosted', 'redirect'])
  type?: 'hosted' | 'redirect';

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Where an approved customer is sent (required with type redirect).' })
  @IsOptional()
  @IsString()
  redirect_url_approved?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Where a customer whose payment is processing (pse, cash) is sent.' })
  @IsOptional()
  @IsString()
  redirect_url_processing?: string | null;
}

export class SubscriptionSettingsDto {
  @ApiPropertyOptional() @OptionalNotNull() @IsInt() duration?: number;
  @ApiPropertyOptional() @OptionalNotNull() @IsInt() commitment_periods?: number;
  @ApiPropertyOptional() @OptionalNotNull() @IsInt() trial_days?: number;
}

export class ConsentDto {
  @ApiPropertyOptional({ description: 'The customer must accept before paying.' }) @OptionalNotNull() @IsBoolean() acceptance_required?: boolean;
  @ApiPropertyOptional({ description: 'Show (and require) the terms of service.' }) @OptionalNotNull() @IsBoolean() terms_of_service?: boolean;
  @ApiPropertyOptional({ description: 'Show (and require) the privacy policy.' }) @OptionalNotNull() @IsBoolean() privacy_policy?: boolean;
}

export class CustomFieldDto {
  @ApiProperty() @IsString() key!: string;
  @ApiPropertyOptional({ enum: ['text', 'options'], default: 'text' }) @OptionalNotNull() @IsIn(['text', 'options']) type?: 'text' | 'options';
  @ApiProperty() @IsString() label!: string;
  @ApiPropertyOptional({ type: [String] }) @OptionalNotNull() @IsArray() @IsString({ each: true }) options?: string[];
  @ApiPropertyOptional({ default: false }) @OptionalNotNull() @IsBoolean() required?: boolean;
}

export class InvoicingSettingsDto {
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() invoice_document_id?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() invoice_payment_method_credit?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() invoice_vendor?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() invoice_autoretention_tax_id?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true }) @IsOptional() @IsString() invoice_cost_center?: string | null;
}

export class InvoicingDto {
  @ApiPropertyOptional() @OptionalNotNull() @IsBoolean() enabled?: boolean;
  @ApiPropertyOptional({ type: InvoicingSettingsDto }) @OptionalNotNull() @ValidateNested() @Type(() => InvoicingSettingsDto) invoice_settings?: InvoicingSettingsDto;
}

/** The settings a session has and a payment link or storefront passes on to the sessions it opens. */
export class SessionSettingsDto {
  @ApiPropertyOptional({ example: 'COP', description: 'Default: the first recurring (else first) price\'s currency; COP for setup.' })
  @OptionalNotNull() @IsString() @MaxLength(3) currency?: string;

  @ApiPropertyOptional({ type: AfterCompletionDto })
  @OptionalNotNull() @ValidateNested() @Type(() => AfterCompletionDto) after_completion?: AfterCompletionDto;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } }, example: { gateway_a: ['card', 'pse'] }, description: 'Gateway → methods offered on the page; each gateway must be configured on the account.' })
  @OptionalNotNull() @IsObject() payment_methods?: Record<string, string[]>;

  @ApiPropertyOptional({ type: [CheckoutDiscountDto] })
  @OptionalNotNull() @IsArray() @ValidateNested({ each: true }) @Type(() => CheckoutDiscountDto) discounts?: CheckoutDiscountDto[];

  @ApiPropertyOptional({ type: SubscriptionSettingsDto })
  @OptionalNotNull() @ValidateNested() @Type(() => SubscriptionSettingsDto) subscription_settings?: SubscriptionSettingsDto;

  @ApiPropertyOptional() @OptionalNotNull() @IsBoolean() shipping_address_collection?: boolean;
  @ApiPropertyOptional({ type: [String], nullable: true }) @IsOptional() @IsArray() shipping_address_countries?: string[] | null;
  @ApiPropertyOptional({ description: 'A shipping charge applies (mode payment; its amount is shipping_amount).' }) @OptionalNotNull() @IsBoolean() shipping_cost?: boolean;
  @ApiPropertyOptional({ example: '12000', description: 'Ours: the shipping charge with shipping_cost, in the session currency.' })
  @OptionalNotNull() @IsString() shipping_amount?: string;
  @ApiPropertyOptional({ enum: ['Pagar', 'Suscribirse', 'Donar', 'Reservar'] }) @OptionalNotNull() @IsString() cta_text?: string;
  @ApiPropertyOptional({ type: InvoicingDto }) @OptionalNotNull() @ValidateNested() @Type(() => InvoicingDto) invoicing?: InvoicingDto;
  @ApiPropertyOptional() @OptionalNotNull() @IsString() description?: string;
  @ApiPropertyOptional({ type: ConsentDto }) @OptionalNotNull() @ValidateNested() @Type(() => ConsentDto) consent?: ConsentDto;
  @ApiPropertyOptional({ type: [CustomFieldDto] })
  @OptionalNotNull() @IsArray() @ValidateNested({ each: true }) @Type(() => CustomFieldDto) custom_fields?: CustomFieldDto[];
  @ApiPropertyOptional({ enum: ['es-CO', 'en'], default: 'es-CO' }) @OptionalNotNull() @IsIn(['es-CO', 'en']) locale?: 'es-CO' | 'en';
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } }) @OptionalNotNull() @IsObject() meta_data?: Record<string, string>;
}

/** `POST /v1/checkout_session`: types here; every rule (and each combination) is the decider's. */
export class CreateCheckoutSessionDto extends SessionSettingsDto {
  @ApiProperty({ enum: ['subscription', 'payment', 'setup'] })
  @IsIn(['subscription', 'payment', 'setup'])
  mode!: 'subscription' | 'payment' | 'setup';

  @ApiPropertyOptional({ example: 'cus_…', description: 'Pre-associates an existing customer; otherwise the page identifies or creates one.' })
  @OptionalNotNull() @IsString() @MaxLength(100) customer?: string;

  @ApiPropertyOptional({ type: [CheckoutItemDto] })
  @OptionalNotNull() @IsArray() @ValidateNested({ each: true }) @Type(() => CheckoutItemDto) items?: CheckoutItemDto[];

  @ApiPropertyOptional({ description: 'Only with mode setup: the subscription whose payment method is replaced.' })
  @OptionalNotNull() @IsString() @MaxLength(100) setup_subscription_id?: string;

  @ApiPropertyOptional() @OptionalNotNull() @IsString() internal_reference_id?: string;
  @ApiPropertyOptional({ description: 'ISO 8601, 30 minutes to 24 hours from now (default 24 hours).' }) @OptionalNotNull() @IsString() expires_at?: string;
}

export class LinkItemDto {
  @ApiProperty({ example: 'price_…' }) @IsString() @MaxLength(100) price!: string;
  @ApiPropertyOptional({ default: 1 }) @OptionalNotNull() @IsInt() @Min(1) @Max(1_000_000) quantity?: number;
}

/** `POST /v1/payment_links`. */
export class CreatePaymentLinkDto extends SessionSettingsDto {
  @ApiProperty({ type: [LinkItemDto] }) @IsArray() @ValidateNested({ each: true }) @Type(() => LinkItemDto) items!: LinkItemDto[];
  @ApiPropertyOptional({ type: Number, nullable: true, description: 'How many times the link can be paid (default: unlimited).' }) @IsOptional() @IsInt() usage_limit?: number | null;
  @ApiPropertyOptional({ default: true }) @OptionalNotNull() @IsBoolean() active?: boolean;
}

/** `POST /v1/payment_links/{id}/update`: `active: false` deactivates. Items do not change. */
export class UpdatePaymentLinkDto extends SessionSettingsDto {
  @ApiPropertyOptional({ type: Number, nullable: true }) @IsOptional() @IsInt() usage_limit?: number | null;
  @ApiPropertyOptional() @OptionalNotNull() @IsBoolean() active?: boolean;
}

export class ListPaymentLinksParams extends ListQuery {
  @ApiPropertyOptional() @IsOptional() @Type(() => String) @IsIn(['true', 'false']) active?: string;
}

export class StorefrontItemDto {
  @ApiProperty({ example: 'price_…' }) @IsString() @MaxLength(100) price!: string;
}

/** `POST /v1/storefronts`. */
export class CreateStorefrontDto extends SessionSettingsDto {
  @ApiProperty({ example: 'Tienda Acme' }) @IsString() @MaxLength(200) name!: string;
  @ApiProperty({ type: [StorefrontItemDto], description: 'The prices listed (recurring ones share one frequency).' })
  @IsArray() @ValidateNested({ each: true }) @Type(() => StorefrontItemDto) items!: StorefrontItemDto[];
  @ApiPropertyOptional({ default: true }) @OptionalNotNull() @IsBoolean() active?: boolean;
}

export class UpdateStorefrontDto extends SessionSettingsDto {
  @ApiPropertyOptional() @OptionalNotNull() @IsString() @MaxLength(200) name?: string;
  @ApiPropertyOptional({ type: [StorefrontItemDto] }) @OptionalNotNull() @IsArray() @ValidateNested({ each: true }) @Type(() => StorefrontItemDto) items?: StorefrontItemDto[];
  @ApiPropertyOptional() @OptionalNotNull() @IsBoolean() active?: boolean;
}

export class ListCheckoutSessionsParams extends ListQuery {
  @ApiPropertyOptional({ enum: ['open', 'complete', 'expired'] }) @IsOptional() @IsIn(['open', 'complete', 'expired']) status?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() customer?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() subscription?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() payment_link?: string;
}
