import { likeParts } from '@outpost/shared';

/** The SQLite GLOB pattern (case-sensitive) matching what a LIKE pattern matches (as likeMatches does). */
export function likeToGlob(pattern: string): string {
  return likeParts(pattern)
    .map((part) => {
      if (part.kind === 'anyRun') return '*';
      if (part.kind === 'oneChar') return '?';
      return part.char === '*' || part.char === '?' || part.char === '[' ? `[${part.char}]` : part.char;
    })
    .join('');
}

/** The PostgreSQL LIKE pattern (backslash escapes; case-sensitive under collation "C") matching what a LIKE pattern matches. */
export function likeToPostgres(pattern: string): string {
  return likeParts(pattern)
    .map((part) => {
      if (part.kind === 'anyRun') return '%';
      if (part.kind === 'oneChar') return '_';
      return part.char === '%' || part.char === '_' || part.char === '\\' ? `\\${part.char}` : part.char;
    })
    .join('');
}
