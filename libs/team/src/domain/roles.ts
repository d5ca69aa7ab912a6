/**
 * Who may do what in the dashboard. Checked on the server for every dashboard request (hiding a
 * button is not a check); docs/roles.md shows the same table to people, and
 * libs/team/src/domain/roles.spec.ts keeps the two the same.
 */
export const ROLES = ['owner', 'admin', 'developer', 'support', 'analyst', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
export const isRole = (value: unknown): value is Role => typeof value === 'string' && (ROLES as readonly string[]).includes(value);

export const PERMISSIONS = [
  /** Lists, detail pages, history and `as_of` of every resource, in test and in live mode. */
  'dashboard.read',
  /** The home page's revenue report (MRR and its movements, churn, net revenue, renewals). */
  'reports.read',
  /** CSV exports of lists and of the security log. */
  'data.export',
  /** Create products and prices. */
  'catalog.write',
  /** Create customers. */
  'customers.write',
  /** Erase a customer's personal data for good (docs/personal-data.md): owners and admins only. */
  'customers.erase',
  /** Create subscriptions; cancel, pause, resume them. */
  'subscriptions.write',
  /** Create collections; send them, record a payment out of band, void them. */
  'collections.write',
  /** Refund a paid collection. */
  'collections.refund',
  /** Create and advance test clocks (test mode). */
  'test_clocks.write',
  /** See the API keys page (masked keys, creation, last use). */
  'keys.read',
  /** Create, roll and revoke API keys; see a new secret once. */
  'keys.manage',
  /** See the team page (members, roles, invitations). */
  'team.read',
  /** Invite, revoke invitations, change roles, disable, enable and remove members (never an owner, unless an owner). */
  'team.manage',
  /** The security log: sign-ins, failures, lockouts, invitations, role changes, key rolls. */
  'security_log.read',
  /** Account-wide settings: require two-factor sign-in of every member. */
  'account.settings',
  /** Give the owner role, change or remove an owner, transfer ownership. */
  'ownership.transfer',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const ALL: readonly Permission[] = PERMISSIONS;
const READ: Permission[] = ['dashboard.read'];
const WRITE_RESOURCES: Permission[] = ['catalog.write', 'customers.write', 'subscriptions.write', 'collections.write', 'collections.refund', 'test_clocks.write'];

/** The permissions of each role. */
export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  owner: ALL,
  admin: ALL.filter((p) => p !== 'ownership.transfer'),
  developer: [...READ, 'data.export', ...WRITE_RESOURCES, 'keys.read', 'keys.manage', 'team.read'],
  support: [...READ, 'customers.write', 'subscriptions.write', 'collections.write', 'collections.refund', 'team.read'],
  analyst: [...READ, 'reports.read', 'data.export', 'team.read'],
  viewer: [...READ, 'reports.read'],
};

export function can(role: Role | null | undefined, permission: Permission): boolean {
  return !!role && (ROLE_PERMISSIONS[role] ?? []).includes(permission);
}

/** Roles an actor may give (or take away): only an owner touches the owner role. */
export function mayAssign(actor: Role, role: Role): boolean {
  if (!can(actor, 'team.manage')) return false;
  return role !== 'owner' || can(actor, 'ownership.transfer');
}
