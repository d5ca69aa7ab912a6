import type { OwnedDoc } from '#platform/read-models.js';

/** A gateway-level try to take the money of a transaction. */
export interface ChargeFields {
  collection: string;
  transaction: string;
  customer: string;
  subscription: string | null;
  /** `in_progress` (sent to the gateway), `pending` (awaits the customer), `succeeded`, `failed`. */
  status: 'in_progress' | 'pending' | 'succeeded' | 'failed';
  try: number;
  amount: string;
  currency: string;
  payment_method: string | null;
  gateway: string;
  payment_method_type: string;
  gateway_reference: string | null;
  failure_code: string | null;
  failure_message: string | null;
  decline_code: string | null;
  additional_data: Record<string, unknown> | null;
  paid_at: string | null;
  amount_refunded: string;
  refunded: boolean;
}

export type ChargeDoc = OwnedDoc & ChargeFields & { object: 'charge'; created_date: string };
