import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBasicAuth, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { CommandContext } from '#platform/command-context.js';
import { WriteThenRead } from '#platform/write-then-read.js';
import { Ctx } from '#http/request-context.js';
import { AdvanceTestClockCommand } from '../application/advance-test-clock.js';
import { CreateTestClockCommand } from '../application/create-test-clock.js';
import { DeleteTestClockCommand } from '../application/delete-test-clock.js';
import { GetTestClockQuery } from '../application/get-test-clock.js';
import { ListTestClocksQuery } from '../application/list-test-clocks.js';
import { AdvanceTestClockDto, CreateTestClockDto, DeletedTestClockResponse, ListTestClocksParams, TestClockResponse } from './dto/test-clock.dto.js';
import { TestModeOnlyGuard } from './test-mode-only.guard.js';
import { ApiResource } from '#http/api-resource.js';

/** Test clocks (test mode only): put customers and their subscriptions on a clock, advance it, watch time happen. */
@ApiTags('test clocks')
@ApiBasicAuth()
@ApiForbiddenResponse({ description: 'A live key: `test_mode_only`, "Test clocks are only available with a test key".' })
@UseGuards(TestModeOnlyGuard)
@ApiResource('test_clocks')
@Controller('v1/test_helpers/test_clocks')
export class TestClocksController {
  constructor(
    private readonly write: WriteThenRead,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Create a test clock frozen at frozen_time (customers created with test_clock live at its time)' })
  @ApiOkResponse({ type: TestClockResponse })
  create(@Ctx() ctx: CommandContext, @Body() body: CreateTestClockDto) {
    return this.write.execute(new CreateTestClockCommand(ctx, body), ({ id }) => new GetTestClockQuery(ctx, id));
  }

  @Get()
  @ApiOperation({ summary: 'List test clocks, newest first' })
  list(@Ctx() ctx: CommandContext, @Query() params: ListTestClocksParams) {
    return this.queries.execute(new ListTestClocksQuery(ctx, params));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a test clock' })
  @ApiOkResponse({ type: TestClockResponse })
  get(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    return this.queries.execute(new GetTestClockQuery(ctx, id));
  }

  @Post(':id/advance')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Advance a test clock to frozen_time: every deadline of its objects up to then runs in time order, each at its own time; answers the clock (status ready) once they have run. If a run fails the clock stays advancing and the error is answered: advance again to the same time or later to resume.",
  })
  @ApiOkResponse({ type: TestClockResponse })
  advance(@Ctx() ctx: CommandContext, @Param('id') id: string, @Body() body: AdvanceTestClockDto) {
    return this.write.execute(new AdvanceTestClockCommand(ctx, id, body.frozen_time), () => new GetTestClockQuery(ctx, id));
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a test clock (its objects stay at its last frozen time and no longer move)' })
  @ApiOkResponse({ type: DeletedTestClockResponse })
  async remove(@Ctx() ctx: CommandContext, @Param('id') id: string) {
    await this.write.run(new DeleteTestClockCommand(ctx, id));
    return { id, object: 'test_clock', deleted: true };
  }
}
