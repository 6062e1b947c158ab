/** A mistake in the command line itself (exit status 2), found after commander's own checks. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
