/** Keys whose values are secrets wherever they appear in configuration or state. */
const SECRET_KEY = /secret|token|password|passw|credential|private|api[-_]?key|^key$|auth/i;

export const REDACTED = '[redacted]';

/**
 * A copy of a JSON value with every secret replaced: members whose key looks secret, and the value of
 * `{name, value}` pairs (environment variables) whose name does.
 */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  const envName = typeof record['name'] === 'string' && 'value' in record ? record['name'] : undefined;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(record)) {
    if (SECRET_KEY.test(key) && member !== null && typeof member !== 'object') out[key] = REDACTED;
    else if (key === 'value' && envName !== undefined && SECRET_KEY.test(envName)) out[key] = REDACTED;
    else out[key] = redactSecrets(member);
  }
  return out;
}
