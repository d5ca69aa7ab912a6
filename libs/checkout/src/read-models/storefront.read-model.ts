import type { OwnedDoc } from '#platform/read-models.js';
import type { StorefrontFields } from '../domain/storefront.decider.js';

/** A storefront as the API shows it: its own fields with the session settings it passes on laid flat beside them. */
export type StorefrontDoc = OwnedDoc & Omit<StorefrontFields, 'settings'> & Record<string, unknown> & { object: 'storefront'; created_date: string; _settings: StorefrontFields['settings'] };
