import type { OwnedDoc } from '#platform/read-models.js';

/** One payment attempt against a collection; it holds one charge per gateway-level try. */
export interface TransactionFields {
  collection: string;
  customer: string;
  subscription: string | null;
  status: 'in_progress' | 'pending' | 'succeeded' | 'failed';
  amount: string;
  currency: string;
  payment_method: string | null;
  gateway: string;
  payment_method_type: string;
  initiated_by: string;
  charges: string[];
  failure_code: string | null;
  failure_message: string | null;
}

export type TransactionDoc = OwnedDoc & TransactionFields & { object: 'transaction'; created_date: string };
