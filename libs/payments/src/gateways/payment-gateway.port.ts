/**
 * The payment-gateway port. A connector talks to one gateway (the built-in simulator answers for
 * `gateway_a` … `gateway_j` and `offline`). Every call carries an idempotency key so that a retry
 * after a crash or a timeout can never charge twice: a connector must return the first outcome
 * for a key it has seen.
 */

/** Raw card data: only ever passed through to the connector, never stored or logged. */
export interface CardInput {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc?: string;
  holder_name?: string;
}

/** What the caller sends as `payment_information`. */
export interface PaymentInformation {
  gateway: string;
  type: string;
  card?: CardInput;
  /** wallet_a / wallet_b: the wallet account (phone or e-mail). */
  wallet?: { account: string };
  /** pse: the customer's bank code. */
  bank_code?: string;
  /** A token from the gateway's own tokenization (hosted fields), instead of raw data. */
  token?: string;
}

/** A tokenizable method as the gateway stored it. */
export interface Tokenized {
  token: string;
  card: { brand: string; last4: string; exp_month: number; exp_year: number } | null;
  wallet: { account_last4: string } | null;
  /** The same for the same card or wallet account, whoever tokenizes it: how a saved method is recognised. Null when unknown. */
  fingerprint: string | null;
}

export interface ChargeRequest {
  /** The charge id (`ch_…`): the idempotency key at the gateway. */
  idempotencyKey: string;
  /** 1 for the first gateway-level try of a transaction, 2 for its retry, … */
  tryNumber: number;
  accountId: string;
  mode: 'test' | 'live';
  gateway: string;
  method: string;
  /** The stored token for tokenizable methods; null for methods that need customer action. */
  token: string | null;
  /** Non-card details the method needs (pse bank code, offline label). */
  details: Record<string, string>;
  amount: string;
  currency: string;
  description: string;
}

export type ChargeOutcome =
  | { status: 'succeeded'; gateway_reference: string }
  | {
      status: 'failed';
      gateway_reference: string | null;
      failure_code: string;
      failure_message: string;
      decline_code: string | null;
      /** A technical failure worth a second try inside the same transaction. */
      retryable: boolean;
    }
  /** Needs customer action (redirect, cash voucher, transfer): settled later. */
  | { status: 'pending'; gateway_reference: string; additional_data: Record<string, unknown> };

export interface RefundRequest {
  idempotencyKey: string;
  gateway: string;
  gateway_reference: string | null;
  amount: string;
  currency: string;
}

export interface PaymentGateway {
  /** Turns raw card or wallet data into a reusable token; throws a DomainError on invalid data. */
  tokenize(mode: 'test' | 'live', info: PaymentInformation, param: string): Promise<Tokenized>;
  charge(request: ChargeRequest): Promise<ChargeOutcome>;
  refund(request: RefundRequest): Promise<{ status: 'succeeded'; gateway_reference: string }>;
}

export const PAYMENT_GATEWAY = Symbol('PaymentGateway');
