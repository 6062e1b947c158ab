/** Names (keys, variables, flags) whose values are secrets wherever they appear: words, and keys of any case */
const SECRET_WORD = /secret|token|passw|credential|private|auth|api[-_]?key|(^|[^a-z])key([^a-z]|$)/i;
/** camelCase names ending in Key: sshKey, signingKey (not monkey) */
const CAMEL_CASE_KEY = /[a-z0-9]Keys?([A-Z_]|$)/;

export const REDACTED = '[redacted]';

/** Shorter known values are not searched for in text (they would match by chance); their contexts still are. */
const MIN_KNOWN_SECRET_LENGTH = 6;

export const isSecretName = (name: string): boolean => SECRET_WORD.test(name) || CAMEL_CASE_KEY.test(name);

/**
 * A copy of a JSON value with every secret replaced: members whose key looks secret, the value of
 * `{name, value}` pairs (environment variables) whose name does, and passwords in URLs.
 */
export function redactSecrets(value: unknown): unknown {
  if (typeof value === 'string') return redactUrlPasswords(value);
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  const envName = typeof record['name'] === 'string' && 'value' in record ? record['name'] : undefined;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(record)) {
    if (isSecretName(key) && member !== null && typeof member !== 'object') out[key] = REDACTED;
    else if (key === 'value' && envName !== undefined && isSecretName(envName)) out[key] = REDACTED;
    else out[key] = redactSecrets(member);
  }
  return out;
}

/** The secret values in a JSON value, as `redactSecrets` finds them: to be searched for in every text. */
export function secretValuesIn(value: unknown, found: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') {
    for (const match of value.matchAll(URL_PASSWORD)) if (match[2]) found.add(decodeSafely(match[2]));
    return found;
  }
  if (Array.isArray(value)) {
    for (const item of value) secretValuesIn(item, found);
    return found;
  }
  if (typeof value !== 'object' || value === null) return found;
  const record = value as Record<string, unknown>;
  const envName = typeof record['name'] === 'string' && 'value' in record ? record['name'] : undefined;
  for (const [key, member] of Object.entries(record)) {
    const secret = isSecretName(key) || (key === 'value' && envName !== undefined && isSecretName(envName));
    if (secret && (typeof member === 'string' || typeof member === 'number')) found.add(String(member));
    else secretValuesIn(member, found);
  }
  return found;
}

/** `scheme://user:password@`: the password (group 2). */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s:@/'"]*):([^\s@/'"]*)@/gi;
const PRIVATE_KEY = /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY)-----[\s\S]*?(-----END \1-----|$)/g;
/** Outpost's own secrets: provisioning tokens, device credentials, API keys. */
const OUTPOST_SECRET = /\b(opt|odc|opk(?:_[a-z]+)?)_[A-Za-z0-9_-]{16,}/g;
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi;
/** `Authorization: Bearer …`: the scheme stays, BEARER redacts what follows it */
const AUTH_SCHEME = /^(Bearer|Basic)$/i;
/** `"name": "value"` (JSON, logs) */
const JSON_MEMBER = /"([^"\\]{1,200})"(\s*:\s*)"((?:[^"\\]|\\.)*)"/g;
/** `--name value`, `--name=value` (command lines) */
const FLAG = /(^|[ \t])(--?[A-Za-z][A-Za-z0-9_.-]*)(=|[ \t]+)("[^"]*"|'[^']*'|[^\s-]\S*)/gm;
/** `NAME=value`, `name: value` (environments, configuration files, log lines) */
const ASSIGNMENT = /(^|[\s,;{(])([A-Za-z_][A-Za-z0-9_.-]*)([ \t]*[=:][ \t]*)("[^"]*"|'[^']*'|[^\s,;"')}]+)/gm;

const redactUrlPasswords = (text: string): string =>
  text.replace(URL_PASSWORD, (_all, before: string) => `${before}:${REDACTED}@`);

/**
 * `text` with every secret replaced: each of `known` (the values the agent holds: credential, tokens,
 * passwords of its configuration and of the pods' environments), URL passwords, private keys, Outpost's
 * tokens, Authorization values, and the values of variables, members and flags whose names say secret, token,
 * password or key (a `ps` listing shows other processes' secrets the agent cannot know).
 */
export function redactText(text: string, known: Iterable<string> = []): string {
  let out = text;
  const literals = [...new Set(known)]
    .map((s) => s.trim())
    .filter((s) => s.length >= MIN_KNOWN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const secret of literals) {
    out = out.replaceAll(secret, REDACTED);
    // also as JSON and URLs escape it
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) out = out.replaceAll(escaped, REDACTED);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.replaceAll(encoded, REDACTED);
  }
  out = out.replace(PRIVATE_KEY, (_all, kind: string) => `-----BEGIN ${kind}-----\n${REDACTED}\n-----END ${kind}-----`);
  out = redactUrlPasswords(out);
  out = out.replace(OUTPOST_SECRET, (_all, prefix: string) => `${prefix}_${REDACTED}`);
  out = out.replace(BEARER, (_all, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(JSON_MEMBER, (all, name: string, colon: string) =>
    isSecretName(name) ? `"${name}"${colon}"${REDACTED}"` : all,
  );
  out = out.replace(FLAG, (all, lead: string, flag: string, separator: string, value: string) =>
    isSecretName(flag.replace(/^-+/, '')) && !value.includes(REDACTED) ? `${lead}${flag}${separator}${REDACTED}` : all,
  );
  out = out.replace(ASSIGNMENT, (all, lead: string, name: string, sign: string, value: string) =>
    isSecretName(name) && !value.includes(REDACTED) && !AUTH_SCHEME.test(value)
      ? `${lead}${name}${sign}${REDACTED}`
      : all,
  );
  return out;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
