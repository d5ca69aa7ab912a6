import { describe, expect, test } from '@jest/globals';
import { encodePosition } from '#event-store/positions.js';
import { DEFAULT_INVOICING_SETTINGS, type InvoicingSettingsEvent, invoicingSettingsDecider, settingsInForceAt } from './invoicing-settings.decider.js';

const now = new Date('2026-03-01T10:00:00.000Z');
const owner = { accountId: 'acct_1', mode: 'test' as const };
const update = (changes: Record<string, unknown>, state = invoicingSettingsDecider.initialState) =>
  invoicingSettingsDecider.decide({ type: 'UpdateInvoicingSettings', ...owner, changes, now }, state) as InvoicingSettingsEvent[];

describe('invoicing settings: ReteICA per thousand, ReteIVA and ReteFuente percent', () => {
  test('the Bogotá rate is taken as 9.66 (‰) and the event says its unit', () => {
    const [e] = update({ default_retentions: { reteica: '9.66', retefte: '2.5', reteiva: '15' } });
    expect(e.data).toMatchObject({ settings: { default_retentions: { reteica: '9.66', retefte: '2.5', reteiva: '15' } }, reteica_unit: 'per_mille' });
    expect(invoicingSettingsDecider.evolve(invoicingSettingsDecider.initialState, e).settings.default_retentions).toEqual({ reteica: '9.66', retefte: '2.5', reteiva: '15' });
  });

  test('each rate up to its whole (1000 ‰, 100 %), at most 4 decimals; the message names the unit', () => {
    expect(update({ default_retentions: { reteica: '150' } })).toHaveLength(1);
    const refuse = (changes: Record<string, unknown>) => {
      try {
        update(changes);
      } catch (error) {
        return error as { code: string; param: string; message: string };
      }
      throw new Error('accepted');
    };
    expect(refuse({ default_retentions: { reteica: '1000.01' } })).toMatchObject({
      code: 'parameter_invalid',
      param: 'default_retentions[reteica]',
      message: 'default_retentions[reteica] must be a rate per thousand (‰) from 0 to 1000 with at most 4 decimals, such as "9.66", or null',
    });
    expect(refuse({ default_retentions: { retefte: '150' } })).toMatchObject({ param: 'default_retentions[retefte]', message: expect.stringContaining('percent from 0 to 100') });
    expect(refuse({ default_retentions: { reteica: '-1' } })).toMatchObject({ param: 'default_retentions[reteica]' });
    expect(refuse({ default_retentions: { reteica: '9.66666' } })).toMatchObject({ param: 'default_retentions[reteica]' });
  });

  test('a stored event from before the unit (ReteICA in percent, as the settings said) is read ×10: the withholding stays what it was', () => {
    // As written before: no reteica_unit, 0.966 meaning 0.966 % (966 on 100,000).
    const old = {
      type: 'invoicing_settings.updated',
      data: { account_id: 'acct_1', mode: 'test', settings: { ...DEFAULT_INVOICING_SETTINGS, enabled: true, default_retentions: { reteica: '0.966', retefte: '2.5' } }, updated_at: now.toISOString() },
    } as InvoicingSettingsEvent;
    const state = invoicingSettingsDecider.evolve(invoicingSettingsDecider.initialState, old);
    expect(state.settings.default_retentions).toEqual({ reteica: '9.66', retefte: '2.5' });
    expect(settingsInForceAt([{ ...old, position: encodePosition(10n) }], encodePosition(11n)).default_retentions).toEqual({ reteica: '9.66', retefte: '2.5' });
    // Saving the same settings again changes nothing; a later change is written per thousand.
    expect(update({ default_retentions: { reteica: '9.66' } }, state)).toEqual([]);
    const [later] = update({ enabled: false }, state);
    expect(later.data).toMatchObject({ settings: { enabled: false, default_retentions: { reteica: '9.66', retefte: '2.5' } }, reteica_unit: 'per_mille' });
  });
});
