import { randomInt } from 'node:crypto';
import { internalError } from '../errors/api-error.js';
import { isValidId, segmentsOf } from './id-rules.js';
import type { IdRule } from './id-rules.js';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';
const LENGTH = 12;

const pick = (alphabet: string): string => alphabet.charAt(randomInt(alphabet.length));
const randomSegment = (rest: string): string =>
  pick(LETTERS) + Array.from({ length: LENGTH - 1 }, () => pick(rest)).join('');

/**
 * A random id valid under `rule`: each segment a letter then 11 base36 characters, falling back
 * to letters only for segments whose rule forbids digits (the resource kind of a limit id).
 */
export function generateId(rule: IdRule): string {
  const segments = segmentsOf(rule);
  for (let lettersOnlyMask = 0; lettersOnlyMask < 2 ** segments; lettersOnlyMask++) {
    const id = Array.from({ length: segments }, (_, i) =>
      randomSegment((lettersOnlyMask >> i) & 1 ? LETTERS : BASE36),
    ).join('/');
    if (isValidId(rule, id)) return id;
  }
  throw internalError(`cannot generate an id for pattern ${rule.pattern.source}`);
}
