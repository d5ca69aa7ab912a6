import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** Cursor pagination of every list: `limit` (1–100, default 10) and `starting_after` (an object id). */
export class ListQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 10 })
  // Checked bottom-up: a non-number (`limit=abc`) is reported as such, not as "greater than 100".
  @IsOptional()
  @Type(() => Number)
  @Max(100)
  @Min(1)
  @IsInt({ message: 'limit must be a whole number between 1 and 100' })
  limit?: number;

  @ApiPropertyOptional({ description: 'Return objects after this object id (the last id of the previous page).' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  starting_after?: string;
}

export interface ListPage<T> {
  object: 'list';
  url: string;
  has_more: boolean;
  data: T[];
}

export function listPage<T>(url: string, rows: T[], limit: number): ListPage<T> {
  return { object: 'list', url, has_more: rows.length > limit, data: rows.slice(0, limit) };
}
