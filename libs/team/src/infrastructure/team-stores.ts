import { Inject, Injectable } from '@nestjs/common';
import type { CollectionSpec, ReadStore } from '#read-store/read-store.port.js';
import { READ_STORE } from '#platform/tokens.js';
import { StateCollections } from '#platform/state-collections.js';
import type { SealedSecret } from '#shared/sealing.js';

/**
 * What the team keeps outside the event log: credentials (argon2id password hashes, sealed TOTP
 * secrets, hashed recovery codes), hashed link tokens, dashboard sessions and sign-in throttles.
 * They live in the read store's own collections, which are not projections: a rebuild never drops
 * them, a backup copies them. Events name credentials by id only.
 */
export const TEAM_COLLECTIONS: CollectionSpec[] = [
  { name: 'member_credentials', indexes: [] },
  { name: 'member_tokens', indexes: [] },
  { name: 'dashboard_sessions', indexes: [{ fields: ['member', 'created_at'] }] },
  { name: 'sign_in_throttle', indexes: [] },
];

export interface PasswordCredential {
  id: string;
  account_id: string;
  member: string;
  kind: 'password';
  hash: string;
  created_at: string;
}

export interface TotpCredential {
  id: string;
  account_id: string;
  member: string;
  kind: 'totp';
  sealed: SealedSecret;
  /** SHA-256 of each recovery code, by index (set when enrolment is confirmed). */
  recovery: string[];
  /** The last time step a code was accepted at: a code is used once. */
  last_step: number | null;
  created_at: string;
}

export type Credential = PasswordCredential | TotpCredential;

/** A link's token: only the SHA-256 of its secret is kept. */
export interface LinkTokenDoc {
  id: string;
  account_id: string;
  member: string;
  kind: 'invitation' | 'password_reset';
  hash: string;
  expires_at: string;
}

export interface SessionDoc {
  /** SHA-256 of the session id (the cookie holds the id, signed). */
  id: string;
  account_id: string;
  member: string;
  epoch: number;
  mode: 'test' | 'live';
  created_at: string;
  last_seen_at: string;
  /** Absolute end of the session. */
  expires_at: string;
  address: string | null;
  user_agent: string | null;
  /** Signed in with the password, the second factor still to enrol (the account requires it). */
  must_enrol: boolean;
}

export interface ThrottleDoc {
  id: string;
  failures: number;
  locked_until: string | null;
  last_failure_at: string | null;
}

@Injectable()
export class TeamStores {
  constructor(@Inject(READ_STORE) readonly store: ReadStore, collections: StateCollections) {
    collections.register(...TEAM_COLLECTIONS);
  }

  private put(collection: string, id: string, doc: object | null) {
    return this.store.commit([{ collection, id, doc: doc as Record<string, unknown> | null }]);
  }

  credential<T extends Credential>(id: string | null | undefined): Promise<T | null> {
    return id ? this.store.get<T>('member_credentials', id) : Promise.resolve(null);
  }
  saveCredential(doc: Credential) {
    return this.put('member_credentials', doc.id, doc);
  }

  token(id: string): Promise<LinkTokenDoc | null> {
    return this.store.get<LinkTokenDoc>('member_tokens', id);
  }
  saveToken(doc: LinkTokenDoc) {
    return this.put('member_tokens', doc.id, doc);
  }
  deleteToken(id: string) {
    return this.put('member_tokens', id, null);
  }

  session(hash: string): Promise<SessionDoc | null> {
    return this.store.get<SessionDoc>('dashboard_sessions', hash);
  }
  saveSession(doc: SessionDoc) {
    return this.put('dashboard_sessions', doc.id, doc);
  }
  deleteSession(hash: string) {
    return this.put('dashboard_sessions', hash, null);
  }
  async sessionsOf(member: string): Promise<SessionDoc[]> {
    return this.store.find<SessionDoc>('dashboard_sessions', { where: { member }, orderBy: { field: 'created_at', direction: 'desc' }, limit: 200 });
  }

  throttle(id: string): Promise<ThrottleDoc | null> {
    return this.store.get<ThrottleDoc>('sign_in_throttle', id);
  }
  saveThrottle(doc: ThrottleDoc) {
    return this.put('sign_in_throttle', doc.id, doc);
  }
}
