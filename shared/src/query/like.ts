export type LikePart = { kind: 'anyRun' } | { kind: 'oneChar' } | { kind: 'literal'; char: string };

/** `%` any run, `_` one character, `\` makes the next character literal (a trailing `\` is itself literal). */
export function likeParts(pattern: string): LikePart[] {
  const chars = Array.from(pattern);
  const parts: LikePart[] = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] ?? '';
    const next = chars[i + 1];
    if (c === '\\' && next !== undefined) {
      parts.push({ kind: 'literal', char: next });
      i++;
    } else if (c === '%') parts.push({ kind: 'anyRun' });
    else if (c === '_') parts.push({ kind: 'oneChar' });
    else parts.push({ kind: 'literal', char: c });
  }
  return parts;
}

/** Case-sensitive LIKE over code points (as the stores match it: see the control plane's storage/sql/like-patterns.ts). */
export function likeMatches(pattern: string, value: string): boolean {
  const parts = likeParts(pattern);
  const chars = Array.from(value);
  // matched[j]: the parts seen so far can match the first j characters.
  let matched = chars.map(() => false).concat(false);
  matched[0] = true;
  for (const part of parts) {
    const next = matched.map(() => false);
    for (let j = 0; j <= chars.length; j++) {
      if (part.kind === 'anyRun') next[j] = matched[j] === true || (j > 0 && next[j - 1] === true);
      else if (j > 0 && matched[j - 1] === true) next[j] = part.kind === 'oneChar' || part.char === chars[j - 1];
    }
    matched = next;
  }
  return matched[chars.length] === true;
}
