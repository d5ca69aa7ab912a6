import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { can, mayAssign, PERMISSIONS, ROLES } from './roles.js';

describe('roles and permissions', () => {
  it('docs/roles.md shows the same table as the code, row by row', () => {
    const doc = readFileSync(new URL('../../../../docs/roles.md', import.meta.url), 'utf8');
    const rows = new Map<string, string[]>();
    for (const line of doc.split('\n')) {
      const cells = line.split('|').map((c) => c.trim());
      const permission = /^`([a-z_.]+)`$/.exec(cells[2] ?? '')?.[1];
      if (permission) rows.set(permission, cells.slice(3, 3 + ROLES.length));
    }
    expect([...rows.keys()].sort()).toEqual([...PERMISSIONS].sort());
    for (const permission of PERMISSIONS) {
      expect(rows.get(permission)).toEqual(ROLES.map((role) => (can(role, permission) ? '✓' : '')));
    }
  });

  it('only an owner gives the owner role; support and below manage nobody', () => {
    expect(mayAssign('owner', 'owner')).toBe(true);
    expect(mayAssign('admin', 'owner')).toBe(false);
    expect(mayAssign('admin', 'developer')).toBe(true);
    expect(mayAssign('support', 'viewer')).toBe(false);
    expect(can('viewer', 'data.export')).toBe(false);
    expect(can('analyst', 'data.export')).toBe(true);
    expect(can('support', 'keys.read')).toBe(false);
  });
});
