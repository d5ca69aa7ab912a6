import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { canonicalText, eventHash, prepareChain } from './chain-core.mjs';

/**
 * The writers hash the canonical JSON of an event's data and metadata as safe-stable-stringify sorts
 * them, prepared from the objects before the write transaction (chain-core.mjs prepareChain); the
 * verifiers use the `canonicalize` package (RFC 8785) on the stored texts parsed again. The two must
 * agree for every value an event may hold: JSON's values, and what JSON.stringify drops or changes
 * (undefined, NaN, Dates, objects with toJSON, integer-like keys, unicode, escapes).
 */
const odd = fc.oneof(
  fc.constant(undefined),
  fc.constant(Number.NaN),
  fc.constant(-0),
  fc.date({ noInvalidDate: true }),
  fc.string().map((s) => ({ toJSON: () => `decimal:${s}` })),
  fc.double({ noNaN: false }),
);
const value = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small' }, fc.jsonValue(), odd, tie('object'), tie('array')),
  object: fc.dictionary(fc.oneof(fc.string(), fc.nat().map(String), fc.constantFrom('a', 'B', 'é', 'ñ', '\u0000', '10', '9', '€', '😀')), tie('any'), { maxKeys: 6 }),
  array: fc.array(tie('any'), { maxLength: 5 }),
})).object;

/** What the verifier computes from the stored text (JSON.stringify of the object). */
const viaStoredText = (x: unknown) => canonicalize(JSON.parse(JSON.stringify(x)));

test('the writers\' canonical JSON equals RFC 8785 (canonicalize) of the stored text, for every value', () => {
  fc.assert(
    fc.property(value, (data) => {
      let expected: string | undefined;
      try {
        expected = viaStoredText(data);
      } catch {
        return; // a value RFC 8785 refuses (a lone surrogate): the writer's fallback, not this path
      }
      expect(canonicalText(JSON.stringify(data))).toBe(expected);
      // The revision not known (an append with `any`): the writer hashes the prepared texts.
      const prepared = prepareChain('7f2c3c1e-0d7a-4b9e-9a55-0c1d2e3f4a5b', 'thing.happened', 'thing-1', null, data, { account_id: 'acct_1', occurred_at: '2026-01-01T00:00:00.000Z' });
      expect(prepared?.[0]).toBe(expected);
      expect(prepared?.[2]).toBeNull();
    }),
    { numRuns: 2000 },
  );
});

test('a prepared event hash equals the verifier\'s hash of the stored event', () => {
  fc.assert(
    fc.property(value, value, (data, extra) => {
      const metadata = { account_id: 'acct_1', occurred_at: '2026-01-01T00:00:00.000Z', extra };
      const id = '7f2c3c1e-0d7a-4b9e-9a55-0c1d2e3f4a5b';
      let stored: { data: unknown; metadata: typeof metadata };
      try {
        stored = { data: JSON.parse(JSON.stringify(data)), metadata: JSON.parse(JSON.stringify(metadata)) };
        canonicalize(stored.data);
        canonicalize(stored.metadata);
      } catch {
        return;
      }
      const prepared = prepareChain(id, 'thing.happened', 'thing-1', 7, data, metadata)!;
      expect(Buffer.from(prepared[2]!, 'latin1').toString('hex')).toBe(eventHash({ id, type: 'thing.happened', streamId: 'thing-1', revision: 7, ...stored }));
      expect(prepared[4]).toBe('acct_1');
      // The hash made, the texts are not sent to the writer (its message stays the append's size).
      expect([prepared[0], prepared[1], prepared[3]]).toEqual([null, null, null]);
    }),
    { numRuns: 500 },
  );
});

test('a lone surrogate, refused by RFC 8785, is refused by the writers too (the event is not stored); pairs and escaped backslashes are not', () => {
  const id = '7f2c3c1e-0d7a-4b9e-9a55-0c1d2e3f4a5b';
  const meta = { occurred_at: '2026-01-01T00:00:00.000Z' };
  for (const note of ['a\uD800b', '\uDC00', 'x\\\uDBFF']) {
    expect(() => viaStoredText({ note })).toThrow();
    expect(prepareChain(id, 't', 's-1', 0, { note }, meta)).toBeNull();
    expect(() => canonicalText(JSON.stringify({ note }))).toThrow(/surrogate/);
  }
  for (const note of ['😀', '\\uD800 as text', 'a\\\\uDC00']) {
    expect(prepareChain(id, 't', 's-1', null, { note }, meta)?.[0]).toBe(viaStoredText({ note }));
  }
});

test('events that repeat their metadata (one command\'s) are hashed as the verifier hashes each, whichever metadata came before', () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(0, 1, 2), { minLength: 1, maxLength: 8 }), value, (order, extra) => {
      const metas = [
        { account_id: 'acct_1', occurred_at: '2026-01-01T00:00:00.000Z', request_id: 'req_1' },
        { occurred_at: '2026-01-01T00:00:00.000Z', account_id: 'acct_1', request_id: 'req_1' }, // the same value, its keys in another order
        { account_id: 'acct_2', occurred_at: '2026-01-02T00:00:00.000Z', extra },
      ];
      order.forEach((m, i) => {
        const metadata = metas[m];
        let stored: Record<string, unknown>;
        try {
          stored = JSON.parse(JSON.stringify(metadata));
          canonicalize(stored);
        } catch {
          return;
        }
        const id = `7f2c3c1e-0d7a-4b9e-9a55-0c1d2e3f4a${String(i).padStart(2, '0')}`;
        const prepared = prepareChain(id, 'thing.happened', 'thing-1', i, { n: i }, metadata, JSON.stringify(metadata))!;
        expect(Buffer.from(prepared[2]!, 'latin1').toString('hex')).toBe(eventHash({ id, type: 'thing.happened', streamId: 'thing-1', revision: i, data: { n: i }, metadata: stored }));
      });
    }),
    { numRuns: 300 },
  );
});
