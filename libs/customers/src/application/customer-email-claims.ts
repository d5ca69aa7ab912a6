import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandContext } from '#platform/command-context.js';
import { SecretVault } from '#platform/sealing.module.js';
import type { Owner } from '#shared/owner.js';
import { customerDecider, customerStream } from '../domain/customer.decider.js';
import { type HolderObservation, customerEmailDecider, customerEmailStream, legacyCustomerEmailStream } from '../domain/customer-email.decider.js';

/** The `sealed_secrets` id of the key the claim streams are named with (random, made on first use, never rotated: the names depend on it). */
export const CLAIM_KEY_ID = 'customer_email_claim_key';

/** What the claimant's customer stream says right now: does it exist, and with which email. */
async function observeHolder(executor: AggregateExecutor, customerId: string): Promise<HolderObservation> {
  const { state } = await executor.load(customerDecider, customerStream(customerId));
  return { customerId, exists: state.exists, email: state.fields?.email ?? null };
}

/**
 * The e-mail uniqueness claims (docs/personal-data.md): one stream per (account, mode, e-mail), named
 * by an HMAC under the service's claim key — kept in the vault, sealed under the master key like the
 * other secrets, so `secrets rewrap` re-wraps it and never changes it (the names stay). Claims taken
 * under the former plain SHA-256 name still count: a claim checks that name first and is refused
 * while it holds the e-mail for another customer (an orphan there is passed over, as the decider
 * says), a release gives up both, and a look-up reads the new name and then the former one. New
 * claims are only ever written under the new name.
 */
@Injectable()
export class CustomerEmailClaims {
  private key: Promise<Buffer> | null = null;

  constructor(
    private readonly executor: AggregateExecutor,
    private readonly vault: SecretVault,
  ) {}

  private claimKey(): Promise<Buffer> {
    this.key ??= this.vault
      .openOrCreate(CLAIM_KEY_ID, 'customer e-mail claim names (HMAC-SHA-256)', () => randomBytes(32).toString('base64'))
      .then((k) => Buffer.from(k, 'base64'))
      .catch((error: unknown) => {
        this.key = null;
        throw error;
      });
    return this.key;
  }

  /** The claim's stream name, and the one it had before the key. */
  async streams(owner: Owner, email: string): Promise<{ current: string; legacy: string }> {
    return { current: customerEmailStream(await this.claimKey(), owner, email), legacy: legacyCustomerEmailStream(owner, email) };
  }

  /**
   * Takes the email for `customerId` in the caller's account and mode (409 `resource_already_exists`
   * when another customer holds it, under either name). The claim stream is appended with its
   * expected revision, so of any number of racing requests, in one process or several, exactly one
   * wins; the former name is only read (nothing claims under it any more, so it can only free up).
   */
  async claim(ctx: CommandContext, email: string, customerId: string): Promise<void> {
    const { current, legacy } = await this.streams(ctx, email);
    const old = await this.executor.load(customerEmailDecider, legacy);
    if (old.state.holder !== null && old.state.holder !== customerId) {
      const holder = await observeHolder(this.executor, old.state.holder);
      // Throws the 409 while the former claim is live; an orphan there decides events that are not written (the new name takes over).
      customerEmailDecider.decide({ type: 'ClaimCustomerEmail', customerId, email, holder, now: this.executor.now(ctx) }, old.state);
    }
    const { state } = await this.executor.load(customerEmailDecider, current);
    const holder = state.holder !== null && state.holder !== customerId ? await observeHolder(this.executor, state.holder) : null;
    await this.executor.execute(customerEmailDecider, current, (now) => ({ type: 'ClaimCustomerEmail' as const, customerId, email, holder, now }), ctx);
  }

  /** Gives the email up, if `customerId` holds it (under either name). */
  async release(ctx: CommandContext, email: string, customerId: string): Promise<void> {
    const { current, legacy } = await this.streams(ctx, email);
    for (const stream of [current, legacy]) {
      await this.executor.execute(customerEmailDecider, stream, (now) => ({ type: 'ReleaseCustomerEmail' as const, customerId, now }), ctx);
    }
  }

  /** The customer holding the email, under the new name or else the former one; null when none. */
  async holder(owner: Owner, email: string): Promise<string | null> {
    const { current, legacy } = await this.streams(owner, email);
    const now = (await this.executor.load(customerEmailDecider, current)).state.holder;
    return now ?? (await this.executor.load(customerEmailDecider, legacy)).state.holder;
  }
}
