import { describe, expect, test } from '@jest/globals';
import { encodePosition } from '#event-store/positions.js';
import { DEFAULT_INVOICING_SETTINGS, type InvoicingSettingsEvent, invoicingSettingsDecider, settingsInForceAt } from './invoicing-settings.decider.js';

const now = new Date('2026-03-01T10:00:00.000Z');
const owner = { accountId: 'acct_1', mode: 'test' as const };
const update = (changes: Record<string, unknown>, state = invoicingSettingsDecider.initialState) =>
  invoicingSettingsDecider.decide({ type: 'UpdateInvoicingSettings', ...owner, changes, now }, state) as InvoicingSettingsEvent[];
/** Events as the store returns them: at global positions `at` (other streams' events lie between them). */
const at = (position: number, event: InvoicingSettingsEvent) => ({ ...event, position: encodePosition(BigInt(position)) });

describe('the invoicing settings in force at a position of the global order', () => {
  const [enabled] = update({ enabled: true });
  const on = invoicingSettingsDecider.evolve(invoicingSettingsDecider.initialState, enabled);
  const [numbered] = invoicingSettingsDecider.decide({ type: 'AssignDocumentNumber', ...owner, document: 'inv_1', kind: 'invoice', now }, on) as InvoicingSettingsEvent[];
  const [disabled] = update({ enabled: false }, invoicingSettingsDecider.evolve(on, numbered));
  const history = [at(10, enabled), at(20, numbered), at(30, disabled)];

  test('before any change: the defaults (invoicing off)', () => {
    expect(settingsInForceAt(history, encodePosition(5n))).toEqual(DEFAULT_INVOICING_SETTINGS);
    expect(settingsInForceAt([], encodePosition(5n)).enabled).toBe(false);
  });

  test('a payment written after invoicing was turned on and before it was turned off: on (a later change does not count)', () => {
    expect(settingsInForceAt(history, encodePosition(15n)).enabled).toBe(true);
    expect(settingsInForceAt(history, encodePosition(25n)).enabled).toBe(true);
  });

  test('at the change itself and after it: the change is in force', () => {
    expect(settingsInForceAt(history, encodePosition(10n)).enabled).toBe(true);
    expect(settingsInForceAt(history, encodePosition(30n)).enabled).toBe(false);
    expect(settingsInForceAt(history, encodePosition(31n)).enabled).toBe(false);
  });
});
