import type { Doc } from '#projection-runtime/projection.js';
import type { GatewayId } from '#payments/domain/gateways.js';
import { type AccountGatewaySets, copyRetryPolicy, connectorFor, DEFAULT_RETRY_POLICY, defaultGateways, type RetryPolicy } from '../domain/account.decider.js';
import type { Mode } from '../domain/api-key.js';

/** A configured gateway as recorded: its id and the connector that carries it. */
export interface ConfiguredGatewayEntry {
  id: string;
  connector: string;
}

export interface AccountDoc extends Doc {
  object: 'account';
  name: string;
  created_date: string;
  /** Per mode, in catalogue order. Documents projected before gateways existed lack it: read as the defaults. */
  gateways?: Record<Mode, ConfiguredGatewayEntry[]>;
  /**
   * The dunning policy the account set (both modes). null until it sets one, and absent in documents
   * projected before policies existed: both read as `DEFAULT_RETRY_POLICY` (see `retryPolicyOfDoc`).
   */
  retry_policy?: RetryPolicy | null;
}

/** The account's retry policy as the read model has it: the default when it never set one. */
export const retryPolicyOfDoc = (doc: AccountDoc): RetryPolicy => copyRetryPolicy(doc.retry_policy ?? DEFAULT_RETRY_POLICY);

/** Gateway ids with the connector each got when configured by default (events before `connector` was recorded). */
export function gatewayEntriesOf(sets: AccountGatewaySets): Record<Mode, ConfiguredGatewayEntry[]> {
  const entries = (ids: string[]) => ids.map((id) => ({ id, connector: connectorFor(id as GatewayId) }));
  return { test: entries(sets.test), live: entries(sets.live) };
}

/** The gateways of a new account (and of a document projected before gateways existed). */
export const defaultGatewayEntries = () => gatewayEntriesOf(defaultGateways());
