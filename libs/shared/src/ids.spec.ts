import { jest } from '@jest/globals';
import { eventIdFromUuid, newEventUuid, newId, newIdempotencySeed, uuidFromEventId } from './ids.js';
import { runInIdempotentScope } from './idempotent-scope.js';

describe('newEventUuid (UUIDv7)', () => {
  const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  test('is a version 7, RFC 9562 variant UUID whose first 48 bits are the time in ms', () => {
    const before = Date.now();
    const uuid = newEventUuid();
    const after = Date.now();
    expect(uuid).toMatch(V7);
    const ms = parseInt(uuid.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after + 1);
  });

  test('ids made one after another sort in the order they were made, and never repeat', () => {
    const ids = Array.from({ length: 20_000 }, () => newEventUuid());
    expect(ids.every((id) => V7.test(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('more than 4,096 ids in one millisecond, or a clock going back, borrow the next milliseconds and stay in order', () => {
    const now = jest.spyOn(Date, 'now').mockReturnValue(Date.UTC(2030, 0, 1));
    try {
      const first = Array.from({ length: 5_000 }, () => newEventUuid());
      now.mockReturnValue(Date.UTC(2029, 0, 1)); // back a year
      const ids = [...first, ...Array.from({ length: 10 }, () => newEventUuid())];
      expect([...ids].sort()).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);
      const ms = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);
      expect(ms(ids[0])).toBe(Date.UTC(2030, 0, 1));
      expect(ms(ids[ids.length - 1])).toBe(Date.UTC(2030, 0, 1) + 1);
    } finally {
      now.mockRestore();
    }
  });

  test('keeps 62 random bits: the tails of ids made in one ms differ', () => {
    const tails = new Set(Array.from({ length: 1000 }, () => newEventUuid().slice(19)));
    expect(tails.size).toBe(1000);
  });

  test('round-trips through the public evt_ id', () => {
    const uuid = newEventUuid();
    const evt = eventIdFromUuid(uuid);
    expect(evt).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(uuidFromEventId(evt)).toBe(uuid);
  });
});

describe('newId', () => {
  const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const msOf = (id: string) => [...id.slice(id.indexOf('_') + 1, id.indexOf('_') + 9)].reduce((n, c) => n * 62 + ALPHABET.indexOf(c), 0);

  test('is the prefix and 24 base62 characters, the first 8 the time in ms', () => {
    const before = Date.now();
    const id = newId('sub');
    expect(id).toMatch(/^sub_[0-9A-Za-z]{24}$/);
    expect(msOf(id)).toBeGreaterThanOrEqual(before);
    expect(msOf(id)).toBeLessThanOrEqual(Date.now());
  });

  test('ids of later milliseconds sort after earlier ones; ids never repeat', () => {
    const now = jest.spyOn(Date, 'now');
    try {
      const ids: string[] = [];
      for (const ms of [Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1) + 1, Date.UTC(2026, 0, 1) + 61, Date.UTC(2027, 5, 30), Date.UTC(2100, 0, 1)]) {
        now.mockReturnValue(ms);
        const batch = Array.from({ length: 200 }, () => newId('col'));
        expect(batch.every((id) => msOf(id) === ms)).toBe(true);
        const earlier = ids[ids.length - 1];
        if (earlier) expect(batch.every((id) => id > earlier.slice(0, 12))).toBe(true);
        ids.push(...batch.sort());
      }
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual(ids);
    } finally {
      now.mockRestore();
    }
  });
});

describe('ids inside an Idempotency-Key scope', () => {
  const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const msOf = (id: string) => [...id.slice(id.indexOf('_') + 1, id.indexOf('_') + 9)].reduce((n, c) => n * 62 + ALPHABET.indexOf(c), 0);
  const idsIn = (seed: string) => runInIdempotentScope(seed, async () => [newId('sub'), newId('col'), newId('col')]);

  test('derive from the seed (the same ids each time the request runs) and start with the claim\'s time, so they sort like other ids', async () => {
    const now = jest.spyOn(Date, 'now');
    try {
      now.mockReturnValue(Date.UTC(2026, 10, 26, 7, 0, 0));
      const seed = newIdempotencySeed();
      expect(seed).toMatch(/^t[0-9A-Za-z]{30}$/);
      now.mockReturnValue(Date.UTC(2026, 10, 26, 7, 0, 5)); // a resumption, later: the same ids
      const ids = await idsIn(seed);
      expect(await idsIn(seed)).toEqual(ids);
      expect(new Set(ids).size).toBe(3);
      for (const id of ids) {
        expect(id).toMatch(/^(sub|col)_[0-9A-Za-z]{24}$/);
        expect(msOf(id)).toBe(Date.UTC(2026, 10, 26, 7, 0, 0));
      }
      // A claim made later: its ids sort after, and after an id made outside a scope in between.
      now.mockReturnValue(Date.UTC(2026, 10, 26, 7, 0, 1));
      const between = newId('col');
      now.mockReturnValue(Date.UTC(2026, 10, 26, 7, 0, 2));
      const later = await idsIn(newIdempotencySeed());
      expect(between > ids[2]).toBe(true);
      expect(later[1] > between).toBe(true);
    } finally {
      now.mockRestore();
    }
  });

  test('a claim made before timed seeds (its seed a UUID) derives the ids it always did', async () => {
    const seed = '6f1c1c52-2a57-4d1e-9a57-0c0d8a3b2c11';
    const { createHash } = await import('node:crypto');
    const before = (prefix: string, n: number) => {
      const digest = createHash('sha256').update(`${seed}|${prefix}|${n}`).digest();
      let out = '';
      for (let i = 0; out.length < 24; i++) out += ALPHABET[digest[i % digest.length] % ALPHABET.length];
      return `${prefix}_${out}`;
    };
    expect(await idsIn(seed)).toEqual([before('sub', 1), before('col', 1), before('col', 2)]);
  });
});
