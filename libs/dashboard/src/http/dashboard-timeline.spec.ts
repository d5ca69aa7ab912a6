import { describe, expect, test } from '@jest/globals';
import { actorWords, stateAfterFrom } from './dashboard-timeline.js';
import { pages } from './dashboard-page.js';

const entry = (id: string) => ({ data: { object: { id } } });

describe('the timeline\'s "state after this event" links', () => {
  test('start at the subscription\'s own first event: a checkout session completed before it gets none', () => {
    expect(stateAfterFrom([entry('cs_1'), entry('sub_1'), entry('col_1'), entry('cs_1')], 'sub_1')).toBe(1);
    expect(stateAfterFrom([entry('sub_1'), entry('cs_1')], 'sub_1')).toBe(0);
    expect(stateAfterFrom([entry('cs_1')], 'sub_1')).toBe(-1);
  });
});

describe('who did it, in the page\'s words', () => {
  const members = new Map([
    ['mem_ana', { email: 'ana@x.com', role: 'support' }],
    ['mem_gone', null],
  ]);
  test('a member by e-mail and role in words; one no longer in the team by id; the portal and the CLI; nobody named for the API', () => {
    const es = pages.helpers('es-CO').t;
    const en = pages.helpers('en').t;
    expect(actorWords(es, { type: 'dashboard', member: 'mem_ana' }, members)).toBe('por ana@x.com (Soporte)');
    expect(actorWords(en, { type: 'dashboard', member: 'mem_ana' }, members)).toBe('by ana@x.com (Support)');
    expect(actorWords(es, { type: 'dashboard', member: 'mem_gone' }, members)).toBe('por un miembro que ya no está en el equipo (mem_gone)');
    expect(actorWords(es, { type: 'portal' }, members)).toBe('por el cliente, en el portal');
    expect(actorWords(en, { type: 'cli' }, members)).toBe('from the command line');
    expect(actorWords(es, null, members)).toBeNull();
  });
});
