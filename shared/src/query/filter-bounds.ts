/**
 * How large a filter may be. Longer or deeper filters are refused with INVALID_ARGUMENT before anything
 * recurses over them: the parser, the in-memory evaluator and SQLite (which refuses expressions deeper than
 * 1000) all nest once per level.
 */
export const MAX_FILTER_LENGTH = 10_000;

/** Parentheses and NOTs open a level each; conditions joined by AND or OR stay on one level however many. */
export const MAX_FILTER_DEPTH = 64;
