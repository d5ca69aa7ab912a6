import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { ListQuery } from '#http/list.js';

export class CreateTestClockDto {
  @ApiProperty({ example: '2026-01-31T12:00:00.000Z', description: 'The time the clock starts at (ISO 8601); its objects live at this time until it is advanced.' })
  @IsISO8601({ strict: true }, { message: 'frozen_time must be an ISO 8601 timestamp' })
  @IsString()
  frozen_time: string;

  @ApiPropertyOptional({ type: String, nullable: true, example: 'Monthly renewals', maxLength: 300 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(300)
  name?: string | null;
}

export class AdvanceTestClockDto {
  @ApiProperty({
    example: '2026-03-01T12:00:00.000Z',
    description:
      "The target time (ISO 8601): after the clock's frozen_time (or, while it is advancing, the pending target or later, which resumes a failed advance).",
  })
  @IsISO8601({ strict: true }, { message: 'frozen_time must be an ISO 8601 timestamp' })
  @IsString()
  frozen_time: string;
}

export class ListTestClocksParams extends ListQuery {}

export class TestClockResponse {
  @ApiProperty({ example: 'clock_0lO5x1PYOc8fMNINw4RJAi3c' })
  id: string;

  @ApiProperty({ enum: ['test_clock'] })
  object: 'test_clock';

  @ApiProperty({ type: String, nullable: true, example: 'Monthly renewals' })
  name: string | null;

  @ApiProperty({ example: '2026-01-31T12:00:00.000Z', description: 'ISO 8601 with milliseconds, UTC.' })
  frozen_time: string;

  @ApiProperty({ enum: ['ready', 'advancing'], description: '`advancing` while (or, after a failed run, until) an advance runs the deadlines.' })
  status: 'ready' | 'advancing';

  @ApiProperty({ example: '2026-11-23 10:00:00' })
  created_date: string;

  @ApiProperty({ enum: [true] })
  is_test: boolean;
}

export class DeletedTestClockResponse {
  @ApiProperty({ example: 'clock_0lO5x1PYOc8fMNINw4RJAi3c' })
  id: string;

  @ApiProperty({ enum: ['test_clock'] })
  object: 'test_clock';

  @ApiProperty({ enum: [true] })
  deleted: true;
}
