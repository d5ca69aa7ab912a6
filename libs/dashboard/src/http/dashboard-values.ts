import type { Translate } from '#web/i18n.js';

/** Fields whose values (the API's enumerations) the dashboard shows in the page's language; and every true or false. */
const WORDED_FIELDS = new Set(['status', 'collection_method', 'type', 'billing_period', 'cancel_at', 'object', 'first_payment_invoicing', 'billing_reason', 'payment_method_type', 'document_type']);

/** Fields whose values are another field's: a payment method's type is the same words wherever it is named. */
const SAME_WORDS: Record<string, string> = { payment_method_type: 'type' };

/**
 * How the dashboard shows the value of `field` on a `resource` page: the page's words for it —
 * `dash.value.<resource>.<field>.<value>` first (Spanish agrees a status with its noun: a subscription
 * is "Activa", a product "Activo"), then `dash.value.<field>.<value>` (a status: `status.<value>`, the
 * portal's words too, STATUS_MESSAGES) — else the value as the API
 * gives it (an event's type, an id, a value without words). True and false are words in any field.
 * The pages keep the API's value beside the words (`data-value`, an option's `value`), for filters,
 * forms and scripts.
 */
export function valueLabel(t: Translate, resource: string, field: string, value: unknown): string {
  const raw = value === null || value === undefined ? '' : String(value);
  if (typeof value === 'boolean') return t(`dash.value.boolean.${raw}`);
  if (raw === '' || !WORDED_FIELDS.has(field)) return raw;
  for (const key of [`dash.value.${resource}.${field}.${raw}`, field === 'status' ? `status.${raw}` : `dash.value.${SAME_WORDS[field] ?? field}.${raw}`]) {
    const words = t(key);
    if (words !== key) return words;
  }
  return raw;
}
