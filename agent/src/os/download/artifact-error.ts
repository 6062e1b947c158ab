/**
 * The image cannot be installed as published (wrong hash, bad or missing signature, wrong size, too big
 * for the slot, not enough space, refused by the server): OSReady=False/Failed with this message, no retry
 * of the same artifact. Anything else that goes wrong while downloading is retried.
 */
export class ArtifactError extends Error {
  override readonly name = 'ArtifactError';
}
