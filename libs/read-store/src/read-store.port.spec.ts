import { assertStorable, MAX_DOCUMENT_DEPTH, UnstorableDocumentError } from './read-store.port.js';

/** An object nested `levels` deep: { a: { a: … { leaf: 1 } } }. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

describe('assertStorable', () => {
  it('a subtree shared by two documents of one commit is refused where it sits too deep, though it was fine in the first', () => {
    const shared = nested(MAX_DOCUMENT_DEPTH - 2);
    const shallow = { id: 'a', shared };
    const deep = { id: 'b', x: { y: { z: shared } } };
    expect(() => assertStorable([{ collection: 'c', id: 'a', doc: shallow }])).not.toThrow();
    let error: unknown;
    try {
      assertStorable([
        { collection: 'c', id: 'a', doc: shallow },
        { collection: 'c', id: 'b', doc: deep },
      ]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnstorableDocumentError);
    expect(error).toMatchObject({ id: 'b', reason: expect.stringContaining('nested more than') });
    expect((error as UnstorableDocumentError).path).toMatch(/^x\.y\.z(\.a)+$/);
  });

  it('a shared subtree with a bad field name is refused in every document that holds it, named by its path', () => {
    const shared = { ok: { 'bad.name': 1 } };
    expect(() => assertStorable([{ collection: 'c', id: 'a', doc: { id: 'a', data: { object: shared } } }])).toThrow(/data\.object\.ok\.bad\.name is a field name containing "\."/);
  });

  it('documents that reuse objects and names pass, repeatedly', () => {
    const meta = { plan: 'gold' };
    const doc = { id: 'a', meta_data: meta, items: [{ meta_data: meta, n: 1 }], at: new Date(0) };
    for (let i = 0; i < 3; i++) expect(() => assertStorable([{ collection: 'c', id: 'a', doc }, { collection: 'd', id: 'a', doc: { ...doc } }])).not.toThrow();
  });
});
