import { describe, expect, test } from '@jest/globals';
import { cycleBoundary } from './billing-period.js';

const d = (iso: string) => new Date(iso);
const boundary = (anchor: string, period: Parameters<typeof cycleBoundary>[1], interval: number, n: number) =>
  cycleBoundary(d(anchor), period, interval, n).toISOString();

describe('cycleBoundary: months keep the anchor day', () => {
  test('Jan 31 → Feb 28 → Mar 31 → Apr 30 (2026 is not a leap year), time of day kept', () => {
    const anchor = '2026-01-31T10:00:00.000Z';
    expect(boundary(anchor, 'month', 1, 0)).toBe('2026-01-31T10:00:00.000Z');
    expect(boundary(anchor, 'month', 1, 1)).toBe('2026-02-28T10:00:00.000Z');
    expect(boundary(anchor, 'month', 1, 2)).toBe('2026-03-31T10:00:00.000Z');
    expect(boundary(anchor, 'month', 1, 3)).toBe('2026-04-30T10:00:00.000Z');
    expect(boundary(anchor, 'month', 1, 4)).toBe('2026-05-31T10:00:00.000Z');
  });

  test('Jan 31 → Feb 29 in a leap year', () => {
    expect(boundary('2028-01-31T10:00:00.000Z', 'month', 1, 1)).toBe('2028-02-29T10:00:00.000Z');
    expect(boundary('2028-01-30T23:59:59.999Z', 'month', 1, 1)).toBe('2028-02-29T23:59:59.999Z');
  });

  test('crosses the year end', () => {
    expect(boundary('2026-12-31T10:00:00.000Z', 'month', 1, 1)).toBe('2027-01-31T10:00:00.000Z');
    expect(boundary('2026-11-30T10:00:00.000Z', 'month', 1, 14)).toBe('2028-01-30T10:00:00.000Z');
  });

  test('interval 3 (quarterly): Nov 30 → Feb 28 → May 30', () => {
    expect(boundary('2026-11-30T10:00:00.000Z', 'month', 3, 1)).toBe('2027-02-28T10:00:00.000Z');
    expect(boundary('2026-11-30T10:00:00.000Z', 'month', 3, 2)).toBe('2027-05-30T10:00:00.000Z');
  });

  test('the day is the UTC day, even late in the UTC day', () => {
    // 23:30 UTC on Jan 31 is still Jan 31 in UTC (in Bogotá it is 18:30 on Jan 31, in Tokyo Feb 1).
    expect(boundary('2026-01-31T23:30:00.000Z', 'month', 1, 1)).toBe('2026-02-28T23:30:00.000Z');
    expect(boundary('2026-03-01T00:30:00.000Z', 'month', 1, 1)).toBe('2026-04-01T00:30:00.000Z');
  });
});

describe('cycleBoundary: years', () => {
  test('Feb 29 → Feb 28 in common years, Feb 29 again in the next leap year', () => {
    expect(boundary('2028-02-29T10:00:00.000Z', 'year', 1, 1)).toBe('2029-02-28T10:00:00.000Z');
    expect(boundary('2028-02-29T10:00:00.000Z', 'year', 1, 4)).toBe('2032-02-29T10:00:00.000Z');
    expect(boundary('2026-01-31T10:00:00.000Z', 'year', 2, 1)).toBe('2028-01-31T10:00:00.000Z');
  });
});

describe('cycleBoundary: days and weeks', () => {
  test('n × interval days or weeks from the anchor', () => {
    expect(boundary('2026-01-31T10:00:00.000Z', 'day', 1, 1)).toBe('2026-02-01T10:00:00.000Z');
    expect(boundary('2026-01-31T10:00:00.000Z', 'day', 15, 2)).toBe('2026-03-02T10:00:00.000Z');
    expect(boundary('2026-01-31T10:00:00.000Z', 'week', 1, 1)).toBe('2026-02-07T10:00:00.000Z');
    expect(boundary('2026-01-31T10:00:00.000Z', 'week', 2, 3)).toBe('2026-03-14T10:00:00.000Z');
  });

  test('the UTC time of day is kept across daylight-saving changes of the host time zone', () => {
    // US clocks change on 2026-03-08 and 2026-11-01, Europe's on 2026-03-29 and 2026-10-25.
    expect(boundary('2026-03-07T10:00:00.000Z', 'day', 1, 1)).toBe('2026-03-08T10:00:00.000Z');
    expect(boundary('2026-03-01T10:00:00.000Z', 'week', 1, 1)).toBe('2026-03-08T10:00:00.000Z');
    expect(boundary('2026-10-20T10:00:00.000Z', 'week', 2, 1)).toBe('2026-11-03T10:00:00.000Z');
  });
});
