import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsNotEmpty, IsObject, IsOptional, IsString, IsUrl, MaxLength, ValidateNested } from 'class-validator';
import { OptionalNotNull } from '#http/validators.js';
import { ListQuery } from '#http/list.js';

export class ProductInvoiceSettingsDto {
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Tax id at the invoicing provider.' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  invoice_tax_id?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, example: '19', description: 'Tax percentage as a decimal string (0–100).' })
  @IsOptional()
  @IsString()
  @MaxLength(20)
  invoice_tax_percentage?: string | null;
}

class ProductFieldsDto {
  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(5000)
  description?: string | null;

  @ApiPropertyOptional({ enum: ['active', 'inactive'], default: 'active' })
  @OptionalNotNull()
  @IsIn(['active', 'inactive'])
  status?: 'active' | 'inactive';

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  product_merchant_id?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  product_invoicing_id?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  product_shopA_id?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  product_shopB_id?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Image URL' })
  @IsOptional()
  @IsUrl({ require_protocol: true, protocols: ['http', 'https'] }, { message: 'image must be an http(s) URL' })
  @MaxLength(2048)
  image?: string | null;

  @ApiPropertyOptional({ type: ProductInvoiceSettingsDto })
  @OptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => ProductInvoiceSettingsDto)
  invoice_settings?: ProductInvoiceSettingsDto;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'String values of at most 255 characters.' })
  @OptionalNotNull()
  @IsObject()
  meta_data?: Record<string, string>;
}

export class CreateProductDto extends ProductFieldsDto {
  @ApiProperty({ example: 'Plan Oro' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(250)
  name: string;
}

export class UpdateProductDto extends ProductFieldsDto {
  @ApiPropertyOptional()
  @OptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(250)
  name?: string;
}

export class ListProductsParams extends ListQuery {
  @ApiPropertyOptional({ enum: ['active', 'inactive'] })
  @IsOptional()
  @IsIn(['active', 'inactive'])
  status?: 'active' | 'inactive';
}
