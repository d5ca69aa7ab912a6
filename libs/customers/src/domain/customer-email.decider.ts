import { createHash, createHmac } from 'node:crypto';
import { Decider, DomainEvent } from '#shared/decider.js';
import { alreadyExists } from '#shared/errors.js';
import type { Owner } from '#shared/owner.js';
import { emailKey } from './customer.decider.js';

/**
 * How long a claim protects its email even when its customer does not (yet) show it: the time
 * between taking the claim and writing the customer (or changing its email). After that, a claim
 * whose customer does not exist (a crash between the two writes) or no longer has this email
 * (a crash before the old claim was released) is an orphan that another customer may take.
 */
export const CLAIM_GRACE_MS = 60_000;

/**
 * One stream per (account, mode, email): `customeremail-<HMAC-SHA-256(key, account|mode|lower(email))>`
 * under the service's random claim key (sealed like the other secrets: customer-email-claims.ts), so
 * the name cannot be confirmed by hashing a guessed e-mail. Its category is not a public resource, so
 * its events stay out of the event feed.
 */
export const customerEmailStream = (key: Buffer, owner: Owner, email: string) =>
  `customeremail-${createHmac('sha256', key).update(claimSubject(owner, email)).digest('hex')}`;

/**
 * The name claims had before the key: a plain SHA-256 of the same text. Still read (a claim taken
 * then still holds its e-mail, and is released under it), never written to anew.
 */
export const legacyCustomerEmailStream = (owner: Owner, email: string) =>
  `customeremail-${createHash('sha256').update(claimSubject(owner, email)).digest('hex')}`;

const claimSubject = (owner: Owner, email: string) => `${owner.accountId}|${owner.mode}|${emailKey(email)}`;

/** What the handler saw of the current holder's customer stream just before deciding. */
export interface HolderObservation {
  customerId: string;
  exists: boolean;
  /** The holder's current email, when it exists. */
  email: string | null;
}

export type CustomerEmailCommand =
  | { type: 'ClaimCustomerEmail'; customerId: string; email: string; holder: HolderObservation | null; now: Date }
  | { type: 'ReleaseCustomerEmail'; customerId: string; now: Date };

export type CustomerEmailClaimed = DomainEvent<'customer_email.claimed', { customer_id: string; claimed_at: string }>;
export type CustomerEmailReleased = DomainEvent<'customer_email.released', { customer_id: string }>;
export type CustomerEmailEvent = CustomerEmailClaimed | CustomerEmailReleased;

export interface CustomerEmailState {
  /** The customer holding the email, or null when it is free. */
  holder: string | null;
  claimedAt: string | null;
}

/** The claim that makes an email unique among the customers of one account and mode. */
export const customerEmailDecider: Decider<CustomerEmailCommand, CustomerEmailState, CustomerEmailEvent> = {
  initialState: { holder: null, claimedAt: null },

  decide(command, state) {
    switch (command.type) {
      case 'ClaimCustomerEmail': {
        const claimed: CustomerEmailClaimed = {
          type: 'customer_email.claimed',
          data: { customer_id: command.customerId, claimed_at: command.now.toISOString() },
        };
        if (state.holder === null) return [claimed];
        if (state.holder === command.customerId) return [];
        // Only an observation of this very holder counts; a holder that appeared since is a live claim.
        const seen = command.holder !== null && command.holder.customerId === state.holder ? command.holder : null;
        const young = command.now.getTime() - Date.parse(state.claimedAt!) < CLAIM_GRACE_MS;
        const orphan =
          seen !== null && !young && (!seen.exists || seen.email === null || emailKey(seen.email) !== emailKey(command.email));
        if (orphan) return [{ type: 'customer_email.released', data: { customer_id: state.holder } }, claimed];
        throw alreadyExists(`A customer with email ${command.email.trim()} already exists: ${state.holder}`, 'email');
      }
      case 'ReleaseCustomerEmail':
        if (state.holder !== command.customerId) return [];
        return [{ type: 'customer_email.released', data: { customer_id: command.customerId } }];
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'customer_email.claimed':
        return { holder: event.data.customer_id, claimedAt: event.data.claimed_at };
      case 'customer_email.released':
        return state.holder === event.data.customer_id ? { holder: null, claimedAt: null } : state;
      default:
        return state;
    }
  },
};
