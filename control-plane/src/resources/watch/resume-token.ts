import { invalidArgument } from '@outpost/shared';

/** A resume token is a position in the change log. */
export const encodeResumeToken = (seq: number): string => `r${seq.toString(36)}`;

export function decodeResumeToken(token: string): number {
  const match = /^r([0-9a-z]{1,12})$/.exec(token);
  if (!match) throw invalidArgument(`invalid resume token "${token}"`);
  return parseInt(match[1]!, 36);
}
