import { describe, expect, test } from '@jest/globals';
import { given } from '#shared/testing/given.js';
import { collectionDecider } from './collection.decider.js';
import { create, card, start, history } from './testing/collection-fixtures.js';

describe('collection: tenancy', () => {
  test('a collection that does not exist, or of another account or mode, is not found', () => {
    const e = given(collectionDecider).when(start()).thenRejects('resource_missing', 'id');
    expect(e.message).toBe("No such collection: 'col_1'");
    expect(e.status).toBe(404);
    given(collectionDecider, history(create())).when(start('tx_1', 'ch_1', card, 1, { accountId: 'acct_2', mode: 'test' })).thenRejects('resource_missing', 'id');
    given(collectionDecider, history(create())).when(start('tx_1', 'ch_1', card, 1, { accountId: 'acct_1', mode: 'live' })).thenRejects('resource_missing', 'id');
  });
});
