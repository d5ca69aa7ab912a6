import type { ApiError } from '#shared/errors.js';
import { formatDate } from './format.js';
import type { Catalog, Locale, Translate } from './i18n.js';

/**
 * The API's refusals in a page's words. The API answers in its own English (`message`), which a page
 * never shows: a page says what went wrong from the error's `code` and `param` (and, for a payment,
 * its `decline_code`), in the page's language, naming the field by its label on that page.
 *
 * Lookup, first found: `api_error.<code>.<param>`, `api_error.<code>.<last segment of param>` (so
 * `payment_information[card][number]` and `card[number]` both find `…number`), `api_error.<code>`,
 * then the generic message, which still names the field. Placeholders: `{field}` (the field's label),
 * `{value}` (the quoted value of the API's message, e.g. an id that does not exist), `{status}` (a
 * state, in words), `{date}` (a date of the message, formatted), `{code}`.
 */
export const API_ERROR_MESSAGES: Catalog = {
  'es-CO': {
    'api_error.generic': 'No pudimos completar la acción ({code}).',
    'api_error.generic_field': 'No pudimos completar la acción: revisa {field}.',
    'api_error.parameter_missing': '{field}: este dato es obligatorio.',
    'api_error.parameter_invalid': '{field}: el valor no es válido.',
    'api_error.parameter_invalid.number': 'El número de tarjeta no es válido.',
    'api_error.parameter_invalid.exp_month': 'El mes de vencimiento debe estar entre 1 y 12.',
    'api_error.parameter_invalid.exp_year': 'El año de vencimiento debe tener cuatro cifras.',
    'api_error.parameter_invalid.email': 'Escribe un correo electrónico válido.',
    'api_error.parameter_invalid.payment_method': 'Elige uno de tus medios de pago guardados.',
    'api_error.parameter_unknown': '{field}: este campo no se reconoce.',
    'api_error.resource_missing': '{field}: «{value}» no existe.',
    'api_error.resource_missing.none': 'Lo que buscas no existe.',
    'api_error.resource_already_exists': '{field}: ese valor ya está registrado.',
    'api_error.invalid_state': 'No se puede hacer en su estado actual ({status}).',
    'api_error.commitment_not_met': 'Tiene un compromiso de permanencia hasta el {date}: no se puede cancelar ahora, solo al final del periodo.',
    'api_error.test_mode_only': 'Solo está disponible en modo de prueba.',
    'api_error.payment_method_required': 'Falta un medio de pago: agrega una tarjeta o usa el medio predeterminado del cliente.',
    'api_error.gateway_not_configured': 'La pasarela de pagos no está configurada para esta cuenta.',
    'api_error.payment_in_progress': 'Ya hay un pago en curso; espera a que termine.',
    'api_error.attempt_already_made': 'Ya se hizo un intento de pago; espera su resultado.',
    'api_error.concurrent_update': 'Otro cambio llegó al mismo tiempo. Inténtalo de nuevo.',
    'api_error.amount_exceeds_balance': '{field}: el valor supera el saldo.',
    'api_error.currency_conversion_unavailable': 'No hay tasa de cambio disponible para esa moneda.',
    'api_error.collection_total_not_updatable': 'El total del cobro ya no se puede cambiar.',
    'api_error.no_open_collections': 'No hay cobros abiertos.',
    'api_error.card_declined': 'La tarjeta fue rechazada. Prueba con otra tarjeta.',
    'api_error.card_declined.insufficient_funds': 'La tarjeta no tiene fondos suficientes. Prueba con otra tarjeta.',
    'api_error.expired_card': 'La tarjeta está vencida. Prueba con otra tarjeta.',
    'api_error.processing_error': 'No pudimos procesar el pago. Inténtalo de nuevo.',
    'api_error.invalid_token': 'El medio de pago no es válido en la pasarela.',
    'api_error.payment_failed': 'El pago no fue aprobado.',
    'api_error.payment_link_used_up': 'Este enlace de pago ya alcanzó su límite de usos.',
    'api_error.payment_link_inactive': 'Este enlace de pago ya no está activo.',
    'api_error.coupon_invalid': 'El cupón no es válido.',
    'api_error.coupon_expired': 'El cupón venció.',
    'api_error.coupon_used_up': 'El cupón ya alcanzó su límite de usos.',
  },
  en: {
    'api_error.generic': 'We could not complete the action ({code}).',
    'api_error.generic_field': 'We could not complete the action: check {field}.',
    'api_error.parameter_missing': '{field}: this field is required.',
    'api_error.parameter_invalid': '{field}: the value is not valid.',
    'api_error.parameter_invalid.number': 'The card number is not valid.',
    'api_error.parameter_invalid.exp_month': 'The expiry month must be 1 to 12.',
    'api_error.parameter_invalid.exp_year': 'The expiry year must have four digits.',
    'api_error.parameter_invalid.email': 'Enter a valid email address.',
    'api_error.parameter_invalid.payment_method': 'Choose one of your saved payment methods.',
    'api_error.parameter_unknown': '{field}: this field is not recognised.',
    'api_error.resource_missing': '{field}: “{value}” does not exist.',
    'api_error.resource_missing.none': 'What you are looking for does not exist.',
    'api_error.resource_already_exists': '{field}: that value is already registered.',
    'api_error.invalid_state': 'This cannot be done in its current state ({status}).',
    'api_error.commitment_not_met': 'It is committed until {date}: it cannot be canceled now, only at the end of the period.',
    'api_error.test_mode_only': 'Only available in test mode.',
    'api_error.payment_method_required': 'A payment method is missing: add a card or use the customer\'s default method.',
    'api_error.gateway_not_configured': 'The payment gateway is not configured for this account.',
    'api_error.payment_in_progress': 'A payment is already in progress; wait for it to finish.',
    'api_error.attempt_already_made': 'A payment attempt was already made; wait for its result.',
    'api_error.concurrent_update': 'Another change arrived at the same time. Please try again.',
    'api_error.amount_exceeds_balance': '{field}: the amount exceeds the balance.',
    'api_error.currency_conversion_unavailable': 'No exchange rate is available for that currency.',
    'api_error.collection_total_not_updatable': 'The collection\'s total can no longer change.',
    'api_error.no_open_collections': 'There are no open collections.',
    'api_error.card_declined': 'The card was declined. Try another card.',
    'api_error.card_declined.insufficient_funds': 'The card has insufficient funds. Try another card.',
    'api_error.expired_card': 'The card has expired. Try another card.',
    'api_error.processing_error': 'We could not process the payment. Please try again.',
    'api_error.invalid_token': 'The payment method is not valid at the gateway.',
    'api_error.payment_failed': 'The payment was not approved.',
    'api_error.payment_link_used_up': 'This payment link has reached its limit of uses.',
    'api_error.payment_link_inactive': 'This payment link is no longer active.',
    'api_error.coupon_invalid': 'The coupon is not valid.',
    'api_error.coupon_expired': 'The coupon has expired.',
    'api_error.coupon_used_up': 'The coupon has reached its limit of uses.',
  },
};

/** What a page needs to word an API error: its translator (with API_ERROR_MESSAGES merged), locale and field labels. */
export interface ApiErrorWording {
  t: Translate;
  locale: Locale;
  /** The field's label on this page for an API parameter (e.g. `customer` → "Cliente"); the param itself when it has none. */
  field: (param: string) => string;
}

/** The API error in the page's language (never the API's English message). */
export function apiErrorText(error: Pick<ApiError, 'code' | 'param' | 'message' | 'type'> & { extra?: Record<string, unknown> }, { t, locale, field }: ApiErrorWording): string {
  const param = error.param ?? '';
  const last = /\[([^\]]+)\]$/.exec(param)?.[1] ?? '';
  const value = /'([^']*)'/.exec(error.message)?.[1] ?? '';
  const status = /its status is ([a-z_]+)/.exec(error.message)?.[1] ?? '';
  const iso = /\d{4}-\d{2}-\d{2}T[\d:.]+Z/.exec(error.message)?.[0] ?? '';
  const params = {
    field: param ? field(param) : '',
    value: value.replace(/' as of '.*$/, ''),
    status: status ? statusWords(t, status) : '',
    date: iso ? formatDate(iso, locale) : '',
    code: error.code,
  };
  const decline = typeof error.extra?.decline_code === 'string' ? error.extra.decline_code : '';
  const keys = [
    param && `api_error.${error.code}.${param}`,
    last && `api_error.${error.code}.${last}`,
    decline && `api_error.${error.code}.${decline}`,
    error.code === 'resource_missing' && !param && 'api_error.resource_missing.none',
    `api_error.${error.code}`,
    error.type === 'payment_error' && 'api_error.payment_failed',
  ].filter((k): k is string => !!k);
  for (const key of keys) {
    const words = t(key, params);
    if (words !== key) return words;
  }
  return param ? t('api_error.generic_field', params) : t('api_error.generic', params);
}

/** A subscription's or collection's state in words (`status.<value>`, STATUS_MESSAGES), else as the API names it. */
function statusWords(t: Translate, status: string): string {
  const words = t(`status.${status}`);
  return words === `status.${status}` ? status : words;
}
