import { addCalendarDays, calendarDayOf, dueDateAfterDays, dueDateOfDay, endOfCalendarDay, isCalendarDay, isPastDue, parseDueDate, parseStartDate, startOfCalendarDay } from './dates.js';

describe('calendar days in the account zone (Bogotá)', () => {
  test('a due date is the last millisecond of its day in Bogotá: in time all that day, late after it', () => {
    expect(dueDateOfDay('2026-12-31')).toBe('2027-01-01T04:59:59.999Z');
    const due = parseDueDate('2026-12-31')!;
    expect(due).toBe('2027-01-01T04:59:59.999Z');
    // 23:00 on Dec 31 in Bogotá (04:00Z on Jan 1): still due, not the UTC day's 19:00 the evening before.
    expect(isPastDue(due, new Date('2026-12-31T19:00:00.000-05:00'))).toBe(false);
    expect(isPastDue(due, new Date('2026-12-31T23:00:00.000-05:00'))).toBe(false);
    expect(isPastDue(due, new Date('2026-12-31T23:59:59.998-05:00'))).toBe(false);
    expect(isPastDue(due, new Date('2027-01-01T00:00:00.000-05:00'))).toBe(true);
    expect(isPastDue('2026-03-01T10:00:00.000Z', new Date('2026-03-01T10:00:00.000Z'))).toBe(true);
  });

  test('the day of an instant is the Bogotá day, across the UTC midnight', () => {
    expect(calendarDayOf('2027-01-01T04:59:59.999Z')).toBe('2026-12-31');
    expect(calendarDayOf('2027-01-01T05:00:00.000Z')).toBe('2027-01-01');
    expect(calendarDayOf(new Date('2026-03-01T00:00:00.000Z'))).toBe('2026-02-28');
    expect(startOfCalendarDay('2026-12-31').toISOString()).toBe('2026-12-31T05:00:00.000Z');
    expect(endOfCalendarDay('2026-02-28').toISOString()).toBe('2026-03-01T04:59:59.999Z');
  });

  test('days_until_due counts calendar days from the Bogotá day of now', () => {
    // 21:00 on Jan 30 in Bogotá is already Jan 31 in UTC: 5 days later is Feb 4, not Feb 5.
    expect(dueDateAfterDays(new Date('2026-01-31T02:00:00.000Z'), 5)).toBe('2026-02-05T04:59:59.999Z');
    expect(dueDateAfterDays(new Date('2026-01-31T10:00:00.000Z'), 5)).toBe('2026-02-06T04:59:59.999Z');
    expect(dueDateAfterDays(new Date('2026-01-31T10:00:00.000Z'), 0)).toBe('2026-02-01T04:59:59.999Z');
    expect(dueDateAfterDays(new Date('2028-02-28T10:00:00.000Z'), 1)).toBe('2028-03-01T04:59:59.999Z');
  });

  test('input: a date names its day, a timestamp the Bogotá day that holds it; anything else is refused', () => {
    expect(parseDueDate('2026-12-31T10:00:00.000Z')).toBe('2027-01-01T04:59:59.999Z');
    expect(parseDueDate('2026-12-31T00:00:00.000Z')).toBe('2026-12-31T04:59:59.999Z');
    expect(parseDueDate('2026-02-30')).toBeNull();
    expect(parseDueDate('nope')).toBeNull();
    expect(parseDueDate(20261231)).toBeNull();
    expect(parseStartDate('2026-12-01')).toBe('2026-12-01T05:00:00.000Z');
    expect(parseStartDate('2026-12-01T08:30:00.000Z')).toBe('2026-12-01T08:30:00.000Z');
    expect(isCalendarDay('2028-02-29')).toBe(true);
    expect(isCalendarDay('2026-02-29')).toBe(false);
    expect(addCalendarDays('2026-12-31', 1)).toBe('2027-01-01');
    expect(addCalendarDays('2026-03-01', -1)).toBe('2026-02-28');
  });

  test('another zone, across its DST changes: a day is 23 or 25 hours long', () => {
    const zone = 'America/New_York';
    expect(startOfCalendarDay('2026-03-08', zone).toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(endOfCalendarDay('2026-03-08', zone).toISOString()).toBe('2026-03-09T03:59:59.999Z');
    expect(endOfCalendarDay('2026-11-01', zone).toISOString()).toBe('2026-11-02T04:59:59.999Z');
    expect(dueDateAfterDays(new Date('2026-03-07T17:00:00.000Z'), 1, zone)).toBe('2026-03-09T03:59:59.999Z');
  });
});
