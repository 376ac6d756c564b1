// class-validator finds the rules of the object it validates by walking the metadata of every class that
// has any (each DTO of the process), an `instanceof` per class, for each object and nested object it
// validates: about 5% of a balance read's CPU. The rules of a class do not change once its module has
// loaded, so the answer is kept per class and options, and forgotten whenever a rule is added (a module
// loaded later, a schema registered).
import { getMetadataStorage } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type Metadata = ReturnType<Storage['getTargetValidationMetadatas']>;

const KEPT = Symbol.for('mm.validationMetadataKept');

/** Keeps the storage's answers (once per storage: it is a process-wide global). */
export function keepValidationMetadata(storage: Storage = getMetadataStorage()): void {
  const marked = storage as Storage & { [KEPT]?: true };
  if (marked[KEPT]) return;
  marked[KEPT] = true;

  let kept = new Map<unknown, Map<string, Metadata>>();
  const grouped = new WeakMap<Metadata, ReturnType<Storage['groupByPropertyName']>>();
  const find = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);

  storage.addValidationMetadata = (metadata) => {
    kept = new Map();
    add(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0000') ?? ''}`;
    let forTarget = kept.get(target);
    if (!forTarget) kept.set(target, (forTarget = new Map()));
    let found = forTarget.get(key);
    if (!found) forTarget.set(key, (found = find(target, schema, always, strictGroups, groups)));
    return found;
  };
  // The validator groups the (now shared) list by property for each object: kept with the list.
  storage.groupByPropertyName = (metadata) => {
    let byProperty = grouped.get(metadata);
    if (!byProperty) grouped.set(metadata, (byProperty = group(metadata)));
    return byProperty;
  };
}
