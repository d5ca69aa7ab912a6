import { ApiProperty } from '@nestjs/swagger';
import { IsArray, IsInt } from 'class-validator';

/** Types only: the rules (counts, ranges, order) are the account decider's, so the CLI gets the same answers. */
export class SetRetryPolicyDto {
  @ApiProperty({
    type: [Number],
    example: [1, 3, 5],
    description:
      'Days after the due date at which a charge collection is retried (a collect collection gets a reminder): 0–10 integers, each 1–60, strictly increasing, all less than final_days.',
  })
  @IsInt({ each: true })
  @IsArray()
  retry_days: number[];

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: 90,
    example: 7,
    description: 'Days after the due date at which the collection becomes uncollectible and its subscription unpaid: an integer 1–90.',
  })
  @IsInt()
  final_days: number;
}

export class RetryPolicyResponse {
  @ApiProperty({ enum: ['retry_policy'] })
  object: 'retry_policy';

  @ApiProperty({ type: [Number], example: [1, 3, 5] })
  retry_days: number[];

  @ApiProperty({ type: 'integer', example: 7 })
  final_days: number;
}
