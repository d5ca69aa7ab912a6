import { getMetadataStorage } from 'class-validator';

/** The storage's methods this replaces, loosely typed. */
interface Storage {
  getTargetValidationMetadatas: (...args: unknown[]) => unknown[];
  addValidationMetadata: (...args: unknown[]) => void;
  addValidationSchema: (...args: unknown[]) => void;
  __memoized?: true;
}

/**
 * class-validator looks up a DTO's rules on every validation by walking every class that has rules
 * (`prototype instanceof` each of several hundred DTOs, for inherited rules): about half a
 * millisecond per request body here. The rules only change when a class is declared, so the answer
 * is kept per (class, schema, options) and forgotten whenever a rule is added. Same results, once.
 */
export function memoizeValidationMetadata(): void {
  const storage = getMetadataStorage() as unknown as Storage;
  if (storage.__memoized) return;
  storage.__memoized = true;
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  let cache = new Map<unknown, Map<string, unknown[]>>();
  storage.getTargetValidationMetadatas = (target: unknown, schema: unknown, always: unknown, strictGroups: unknown, groups?: unknown) => {
    const key = `${String(schema)}|${String(always)}|${String(strictGroups)}|${Array.isArray(groups) ? groups.join('\u0000') : String(groups)}`;
    let byOptions = cache.get(target);
    if (!byOptions) cache.set(target, (byOptions = new Map()));
    let found = byOptions.get(key);
    if (!found) byOptions.set(key, (found = lookup(target, schema, always, strictGroups, groups)));
    // A copy: callers may not expect to share the array.
    return found.slice();
  };
  for (const method of ['addValidationMetadata', 'addValidationSchema'] as const) {
    const add = storage[method].bind(storage);
    storage[method] = (...args: unknown[]) => {
      cache = new Map();
      add(...args);
    };
  }
}
