import { Controller, Get, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Min } from 'class-validator';
import type { CommandContext } from '#platform/command-context.js';
import { Ctx } from '#http/request-context.js';
import { ApiResource } from '#http/api-resource.js';
import { AuditLog, headObject } from '../application/audit-log.js';

export class HeadParams {
  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'Sign the chain as it stands now instead of answering the latest signed head.' })
  @IsOptional()
  @IsIn(['true', 'false'])
  fresh?: 'true' | 'false';
}

export class ProofParams {
  @ApiProperty({ description: 'The event (evt_…) to prove in the account’s log.' })
  @IsString()
  @Matches(/^evt_[0-9a-f]{32}$/, { message: 'event must be an event id (evt_…)' })
  event!: string;
}

export class ConsistencyParams {
  @ApiProperty({ description: 'The size of the older tree (an earlier signed head’s `size`).', minimum: 1 })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  from_size!: number;

  @ApiPropertyOptional({ description: 'The size of the newer tree (default: the latest signed head’s).', minimum: 1 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  to_size?: number;
}

/** The audit log (docs/audit.md): the public key, signed heads of the caller's account, inclusion and consistency proofs. */
@ApiTags('audit')
@ApiBasicAuth()
@ApiResource('audit')
@Controller('v1/audit')
export class AuditController {
  constructor(private readonly audit: AuditLog) {}

  @Get('public_key')
  @ApiOperation({ summary: 'The Ed25519 public key that signs the audit log’s heads' })
  publicKey() {
    return this.audit.publicKey();
  }

  @Get('head')
  @ApiOperation({ summary: 'The latest signed head of the account’s audit log (`fresh=true`: signed now)' })
  async head(@Ctx() ctx: CommandContext, @Query() params: HeadParams) {
    return headObject(await this.audit.head(ctx.accountId, params.fresh === 'true'));
  }

  @Get('proof')
  @ApiOperation({ summary: 'A Merkle inclusion proof (RFC 6962) of one event in the account’s log, against the latest signed head' })
  proof(@Ctx() ctx: CommandContext, @Query() params: ProofParams) {
    return this.audit.inclusion(ctx.accountId, params.event);
  }

  @Get('consistency')
  @ApiOperation({ summary: 'A Merkle consistency proof (RFC 6962): the log of `from_size` entries is a prefix of the log of `to_size`' })
  consistency(@Ctx() ctx: CommandContext, @Query() params: ConsistencyParams) {
    return this.audit.consistency(ctx.accountId, params.from_size, params.to_size);
  }
}
