/**
 * `labels CONTAINS "s"` holds when some entry has key s, or key k and value v with `k:v` = s. Keys may contain
 * ':' themselves, so every split is a candidate; a store ORs these (key only / key and value) together.
 */
export function labelContainsCandidates(s: string): { key: string; value?: string }[] {
  const candidates: { key: string; value?: string }[] = [{ key: s }];
  for (let i = s.indexOf(':'); i >= 0; i = s.indexOf(':', i + 1)) {
    candidates.push({ key: s.slice(0, i), value: s.slice(i + 1) });
  }
  return candidates;
}

export function labelsContain(labels: unknown, s: string): boolean {
  if (!isPlainObject(labels)) return false;
  return labelContainsCandidates(s).some(
    ({ key, value }) => Object.hasOwn(labels, key) && (value === undefined || labels[key] === value),
  );
}

export function listContains(list: unknown, s: string): boolean {
  return Array.isArray(list) && list.includes(s);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
