/** Dotted paths over plain JSON objects. Segments are own keys; arrays and primitives are leaves. */

export type PlainObject = Record<string, unknown>;

export const isPlainObject = (value: unknown): value is PlainObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const splitPath = (path: string): string[] => path.split('.');

/** Sets an own property even for keys like '__proto__' that map keys may carry. */
export function setOwn(target: PlainObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

export const getOwn = (source: PlainObject, key: string): unknown =>
  Object.hasOwn(source, key) ? source[key] : undefined;

export function getPath(doc: unknown, path: string): unknown {
  let node: unknown = doc;
  for (const key of splitPath(path)) {
    if (!isPlainObject(node)) return undefined;
    node = getOwn(node, key);
  }
  return node;
}

/** Sets the value at `path`, creating (or replacing non-object) intermediate objects. */
export function setPath(doc: PlainObject, path: string, value: unknown): void {
  const keys = splitPath(path);
  const last = keys.pop();
  if (last === undefined) return;
  let node = doc;
  for (const key of keys) {
    let child = getOwn(node, key);
    if (!isPlainObject(child)) {
      child = {};
      setOwn(node, key, child);
    }
    node = child as PlainObject;
  }
  setOwn(node, last, value);
}

/** Removes the value at `path`; intermediate objects stay, even when left empty. */
export function deletePath(doc: PlainObject, path: string): void {
  const keys = splitPath(path);
  const last = keys.pop();
  if (last === undefined) return;
  const parent = keys.length === 0 ? doc : getPath(doc, keys.join('.'));
  if (isPlainObject(parent) && Object.hasOwn(parent, last)) delete parent[last];
}
