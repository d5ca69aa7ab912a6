import { checkoutPages } from './pages.js';
import { type FlashRefusal, refusalText } from './flash.js';

/** Every refusal the hosted checkout's deciders and services can answer a page with (HostedCheckout's codes and the pay path's). */
const REFUSALS: Array<[code: string, param: string | null]> = [
  ['email_code_invalid', 'code'],
  ['email_code_expired', 'code'],
  ['email_code_attempts_exceeded', 'code'],
  ['email_code_limit', 'email'],
  ['email_not_verified', 'email'],
  ['customer_already_identified', null],
  ['customer_required', 'email'],
  ['coupon_invalid', 'code'],
  ['coupon_expired', 'code'],
  ['coupon_used_up', 'code'],
  ['consent_required', 'consent'],
  ['custom_field_required', 'custom_fields[dedicatoria]'],
  ['shipping_address_required', 'shipping_address'],
  ['shipping_country_not_allowed', 'shipping_address[country]'],
  ['parameter_missing', 'shipping_address[city]'],
  ['parameter_invalid', 'ntp_amount'],
  ['parameter_invalid', 'email'],
  ['amount_required', 'ntp_amount'],
  ['checkout_session_expired', null],
  ['checkout_session_complete', null],
  ['payment_in_progress', null],
  ['payment_method_not_allowed', 'payment_information'],
  ['payment_link_used_up', null],
  ['payment_link_inactive', null],
  ['invalid_state', null],
  ['gateway_not_configured', 'payment_information[gateway]'],
  ['concurrent_update', null],
];

const refusal = (code: string, param: string | null): FlashRefusal => ({ code, param, type: 'invalid_request_error', decline_code: null, message: `Cannot pay collection col_1: its status is voided (${code})`, attempts_left: null });

describe('the checkout pages word every refusal in their own language', () => {
  test.each(REFUSALS)('%s (%s): its own words in es-CO and in en, never the API\'s English nor the generic "(code)"', (code, param) => {
    const es = refusalText(checkoutPages.helpers('es-CO').t, 'es-CO', refusal(code, param));
    const en = refusalText(checkoutPages.helpers('en').t, 'en', refusal(code, param));
    for (const words of [es, en]) {
      expect(words).not.toMatch(/Cannot pay|its status is|^code\.|^api_error\./);
      expect(words).not.toContain(`(${code})`);
    }
    expect(es).not.toBe(en);
  });
});
