import type { Decider, DomainEvent } from '#shared/decider.js';
import { DomainError, invalidParam } from '#shared/errors.js';
import { Money } from '#shared/money.js';
import { RETENTION_TYPES, type RetentionType, checkRetentionRate } from '#shared/retentions.js';
import type { RetentionRates } from './invoice-amounts.js';

/**
 * An account's invoicing settings, per mode (stream `invoicingsettings-<acct>-<mode>`), and the
 * numbering of its fiscal documents: each invoice and credit note gets the next consecutive number
 * of the range, assigned once (appended with the stream's expected revision, so never twice); a
 * number another document of the account already has (an uploaded invoice's) is passed over.
 */
export interface InvoicingSettings {
  /** false (the default): no invoice is issued automatically (uploads, credit notes and payments on existing invoices still work). */
  enabled: boolean;
  /** The connector that issues documents: `simulator` (the only one shipped). */
  provider: string;
  numbering: { prefix: string; next_number: number; range_end: number | null; credit_note_prefix: string; credit_note_next_number: number };
  /** Withholding rates applied when the subscription or collection names none: reteica per thousand (‰), reteiva and retefte percent. */
  default_retentions: RetentionRates;
}

/** Opt-in (the spec: invoices are issued "when an invoicing provider is used"): a new account issues none until it enables invoicing. */
export const DEFAULT_INVOICING_SETTINGS: InvoicingSettings = {
  enabled: false,
  provider: 'simulator',
  numbering: { prefix: 'SETT', next_number: 1, range_end: null, credit_note_prefix: 'NC', credit_note_next_number: 1 },
  default_retentions: {},
};

export const PROVIDERS = ['simulator'];

export type InvoicingSettingsChanges = {
  enabled?: boolean;
  provider?: string;
  numbering?: Partial<InvoicingSettings['numbering']>;
  default_retentions?: RetentionRates;
};

export type InvoicingSettingsCommand =
  | { type: 'UpdateInvoicingSettings'; accountId: string; mode: 'test' | 'live'; changes: InvoicingSettingsChanges; now: Date }
  | {
      type: 'AssignDocumentNumber';
      accountId: string;
      mode: 'test' | 'live';
      document: string;
      kind: 'invoice' | 'credit_note';
      /** The number the document was assigned and found already used by another document of the account (an upload): the next one replaces it. */
      replacing?: string;
      now: Date;
    };

export type InvoicingSettingsUpdated = DomainEvent<
  'invoicing_settings.updated',
  /** `reteica_unit`: written since ReteICA is per thousand; an event without it holds the ReteICA rate in percent (read ×10). */
  { account_id: string; mode: string; settings: InvoicingSettings; updated_at: string; reteica_unit?: 'per_mille' }
>;

/**
 * The settings an `invoicing_settings.updated` holds, ReteICA per thousand. Before `reteica_unit` the
 * settings took every rate in percent (as they said) and applied ReteICA so: that rate is read ×10,
 * so an account's withholdings stay what they were (0.966 % is 9.66 ‰).
 */
export function settingsOfEvent(data: InvoicingSettingsUpdated['data']): InvoicingSettings {
  const reteica = data.settings.default_retentions?.reteica;
  if (data.reteica_unit === 'per_mille' || reteica === null || reteica === undefined) return data.settings;
  return { ...data.settings, default_retentions: { ...data.settings.default_retentions, reteica: new Money(reteica).times(10).toFixed() } };
}
export type DocumentNumberAssigned = DomainEvent<'invoicing_settings.number_assigned', { account_id: string; mode: string; document: string; kind: 'invoice' | 'credit_note'; number: string }>;
export type InvoicingSettingsEvent = InvoicingSettingsUpdated | DocumentNumberAssigned;

export interface InvoicingSettingsState {
  settings: InvoicingSettings;
  assigned: Record<string, string>;
}

export const invoicingSettingsStream = (accountId: string, mode: string) => `invoicingsettings-${accountId}-${mode}`;

/**
 * The settings in force at `position` of the global order: those of the last `invoicing_settings.updated`
 * at or before it in the stream's `history` (the defaults before any). Whether a collection is invoiced is
 * decided with the settings in force when its event (its creation, its payment) was written, whenever and
 * by whichever path the decision is taken. Its numbering is not the current one (numbers come from the
 * stream's state when a document is numbered).
 */
export function settingsInForceAt(history: readonly { type: string; data: unknown; position: string }[], position: string): InvoicingSettings {
  let settings = DEFAULT_INVOICING_SETTINGS;
  for (const e of history) {
    if (e.position > position) break;
    if (e.type === 'invoicing_settings.updated') settings = settingsOfEvent(e.data as InvoicingSettingsUpdated['data']);
  }
  return settings;
}

function checkChanges(c: InvoicingSettingsChanges): void {
  if (c.provider !== undefined && !PROVIDERS.includes(c.provider)) throw invalidParam('provider', `provider must be one of ${PROVIDERS.join(', ')}`);
  const n = c.numbering;
  if (n) {
    for (const p of ['prefix', 'credit_note_prefix'] as const) {
      if (n[p] !== undefined && (typeof n[p] !== 'string' || !/^[A-Z0-9]{1,4}$/.test(n[p]!))) throw invalidParam(`numbering[${p}]`, `numbering[${p}] must be 1 to 4 upper-case letters or digits (DIAN prefixes)`);
    }
    for (const p of ['next_number', 'credit_note_next_number'] as const) {
      if (n[p] !== undefined && (!Number.isInteger(n[p]) || n[p]! < 1 || n[p]! > 9_999_999_999)) throw invalidParam(`numbering[${p}]`, `numbering[${p}] must be an integer from 1`);
    }
    if (n.range_end !== undefined && n.range_end !== null && (!Number.isInteger(n.range_end) || n.range_end < 1)) throw invalidParam('numbering[range_end]', 'numbering[range_end] must be a positive integer or null');
  }
  for (const [k, v] of Object.entries(c.default_retentions ?? {})) {
    if (!RETENTION_TYPES.includes(k as never)) throw invalidParam(`default_retentions[${k}]`, `default_retentions accepts ${RETENTION_TYPES.join(', ')}`);
    checkRetentionRate(`default_retentions[${k}]`, k as RetentionType, v);
  }
}

export const invoicingSettingsDecider: Decider<InvoicingSettingsCommand, InvoicingSettingsState, InvoicingSettingsEvent> = {
  initialState: { settings: DEFAULT_INVOICING_SETTINGS, assigned: {} },
  decide(command, state) {
    const base = { account_id: command.accountId, mode: command.mode };
    if (command.type === 'UpdateInvoicingSettings') {
      checkChanges(command.changes);
      const s = state.settings;
      const c = command.changes;
      const settings: InvoicingSettings = {
        enabled: c.enabled ?? s.enabled,
        provider: c.provider ?? s.provider,
        numbering: { ...s.numbering, ...(c.numbering ?? {}) },
        default_retentions: c.default_retentions ? { ...s.default_retentions, ...c.default_retentions } : s.default_retentions,
      };
      if (settings.numbering.range_end !== null && settings.numbering.next_number > settings.numbering.range_end) {
        throw invalidParam('numbering[next_number]', `numbering[next_number] ${settings.numbering.next_number} is past the end of the range (${settings.numbering.range_end})`);
      }
      if (JSON.stringify(settings) === JSON.stringify(s)) return [];
      return [{ type: 'invoicing_settings.updated', data: { ...base, settings, updated_at: command.now.toISOString(), reteica_unit: 'per_mille' } }];
    }
    const assigned = state.assigned[command.document];
    if (assigned && assigned !== command.replacing) return [];
    const n = state.settings.numbering;
    const invoice = command.kind === 'invoice';
    const next = invoice ? n.next_number : n.credit_note_next_number;
    if (invoice && n.range_end !== null && next > n.range_end) {
      throw new DomainError('numbering_range_exhausted', `The numbering range of account ${command.accountId} is exhausted (${n.prefix}${n.range_end}); set a new range in the invoicing settings`, null, 409);
    }
    return [{ type: 'invoicing_settings.number_assigned', data: { ...base, document: command.document, kind: command.kind, number: `${invoice ? n.prefix : n.credit_note_prefix}${next}` } }];
  },
  evolve(state, event) {
    if (event.type === 'invoicing_settings.updated') return { ...state, settings: settingsOfEvent(event.data) };
    const n = state.settings.numbering;
    const numbering = event.data.kind === 'invoice' ? { ...n, next_number: n.next_number + 1 } : { ...n, credit_note_next_number: n.credit_note_next_number + 1 };
    return { settings: { ...state.settings, numbering }, assigned: { ...state.assigned, [event.data.document]: event.data.number } };
  },
};
