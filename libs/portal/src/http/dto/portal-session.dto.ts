import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import { OptionalNotNull } from '#http/validators.js';

export class CreatePortalSessionDto {
  @ApiProperty({ example: 'cus_…', description: 'The customer the portal is opened for (of the key\'s account and mode).' })
  @Matches(/^cus_[A-Za-z0-9]+$/, { message: 'customer must be a customer id (cus_…)' })
  @MaxLength(100)
  @IsString()
  customer: string;

  @ApiPropertyOptional({ example: 'https://merchant.example/account', description: 'Where the portal\'s "back" link takes the customer.' })
  @OptionalNotNull()
  @Matches(/^https?:\/\/\S+$/i, { message: 'return_url must be an http(s) URL' })
  @MaxLength(2000)
  @IsString()
  return_url?: string;
}
