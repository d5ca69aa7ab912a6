import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { GetRetryPolicyQuery } from '../application/get-retry-policy.js';
import { SetRetryPolicyCommand } from '../application/set-retry-policy.js';
import { RetryPolicyResponse, SetRetryPolicyDto } from './dto/retry-policy.dto.js';
import { ApiResource } from '#http/api-resource.js';

/** The caller's own account's dunning policy: one per account, the same with the test and the live key. */
@ApiTags('account')
@ApiBasicAuth()
@ApiResource('account')
@Controller('v1/account/retry_policy')
export class AccountRetryPolicyController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly queries: QueryBus,
  ) {}

  @Get()
  @ApiOperation({ summary: "The caller's account's retry policy (the default when it never set one)" })
  @ApiOkResponse({ type: RetryPolicyResponse })
  get(@Ctx() ctx: CommandContext) {
    return this.queries.execute(new GetRetryPolicyQuery(ctx));
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: "Set the account's retry policy (both modes; setting the same policy changes nothing)" })
  @ApiOkResponse({ type: RetryPolicyResponse })
  set(@Ctx() ctx: CommandContext, @Body() body: SetRetryPolicyDto) {
    return this.write.execute(new SetRetryPolicyCommand(ctx, body.retry_days, body.final_days), () => new GetRetryPolicyQuery(ctx));
  }
}
