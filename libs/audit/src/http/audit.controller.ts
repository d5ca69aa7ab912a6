import { Controller, Get, Query, Res } from '@nestjs/common';
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { ApiBasicAuth, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Min } from 'class-validator';
import type { CommandContext } from '#platform/command-context.js';
import { Ctx } from '#http/request-context.js';
import { ApiResource } from '#http/api-resource.js';
import { invalidParam, notFound } from '#shared/errors.js';
import { AuditLog, headObject } from '../application/audit-log.js';
import { AuditExport } from '../application/audit-export.js';

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

export class ExportParams {
  @ApiPropertyOptional({ enum: ['account', 'customer', 'subscription'], default: 'account', description: 'Whose history: the whole account, or the events the feed files under one customer or subscription.' })
  @IsOptional()
  @IsIn(['account', 'customer', 'subscription'])
  scope?: 'account' | 'customer' | 'subscription';

  @ApiPropertyOptional({ description: 'The customer (cus_…) or subscription (sub_…) with scope customer or subscription; with scope account, the caller\'s account (optional).' })
  @IsOptional()
  @IsString()
  @Matches(/^(acct|cus|sub)_[0-9A-Za-z]+$/, { message: 'id must be the account (acct_…), a customer (cus_…) or a subscription (sub_…) id' })
  id?: string;

  @ApiPropertyOptional({ description: 'From this ISO 8601 time (inclusive, the event’s time) or this event (evt_…, inclusive); default: the first event.' })
  @IsOptional()
  @IsString()
  from?: string;

  @ApiPropertyOptional({ description: 'Up to this ISO 8601 time (exclusive) or this event (evt_…, inclusive); default: the head signed for the export.' })
  @IsOptional()
  @IsString()
  to?: string;
}

/** The audit log (docs/audit.md): the public key, signed heads of the caller's account, inclusion and consistency proofs. */
@ApiTags('audit')
@ApiBasicAuth()
@ApiResource('audit')
@Controller('v1/audit')
export class AuditController {
  constructor(
    private readonly audit: AuditLog,
    private readonly exporter: AuditExport,
  ) {}

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

  @Get('export')
  @ApiOperation({ summary: 'The account’s, a customer’s or a subscription’s history as JSON Lines (application/x-ndjson), with each event’s chain entry and the signed head at the end, for scripts/verify-audit-export.mjs (docs/audit.md §6)' })
  async export(@Ctx() ctx: CommandContext, @Query() params: ExportParams, @Res({ passthrough: true }) reply: FastifyReply) {
    const type = params.scope ?? 'account';
    if (type === 'account' && params.id && params.id !== ctx.accountId) throw notFound('account', params.id);
    if (type !== 'account' && !params.id?.startsWith(type === 'customer' ? 'cus_' : 'sub_')) throw invalidParam('id', `scope ${type} needs the ${type}'s id (${type === 'customer' ? 'cus_' : 'sub_'}…)`);
    const prepared = await this.exporter.prepare(ctx.accountId, type === 'account' ? { type } : { type, id: params.id! }, { from: params.from, to: params.to });
    async function* lines(source: AsyncGenerator<string>) {
      for await (const line of source) yield `${line}\n`;
    }
    reply
      .header('Content-Type', 'application/x-ndjson; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="audit-${ctx.accountId}${type === 'account' ? '' : `-${params.id}`}.jsonl"`)
      .header('Cache-Control', 'no-store');
    return reply.send(Readable.from(lines(this.exporter.lines(prepared))));
  }
}
