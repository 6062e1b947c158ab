import { invalidArgument, type ApiError } from '../errors/api-error.js';

/** `filter: <what> at position <N>`, N being the 1-based character (code point) column of `index` in `text`. */
export function filterError(text: string, index: number, what: string): ApiError {
  const position = Array.from(text.slice(0, index)).length + 1;
  return invalidArgument(`filter: ${what} at position ${position}`);
}
