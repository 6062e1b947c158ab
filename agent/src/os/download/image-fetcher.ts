import type { SlotTarget } from '../boot/slot-target.js';
import type { OperationImage } from '../os-progress.js';

/** One image to bring into a slot, with the executor's progress callbacks. */
export interface ImageFetch {
  version: string;
  image: OperationImage;
  target: SlotTarget;
  /** bytes of the image already durably in the slot (from the persisted progress) */
  resumeFrom: number;
  signal: AbortSignal;
  /** the bytes written so far (called often; the executor throttles what it reports) */
  onProgress(bytes: number): void;
  /** a prefix of this many bytes is durably in the slot */
  onCheckpoint(bytes: number): Promise<void>;
  /** a request failed and is retried after `delayMs` */
  onRetry(error: Error, delayMs: number, bytes: number): void;
  /** every byte is in the slot; the image is being verified */
  onVerifying(): void;
}

/**
 * Brings an image into its slot and vouches for it: resolves once it is there and verified, throws ArtifactError
 * for an image that cannot be installed (the executor records the failure), anything else to be retried. The
 * executor's default downloads it from the control plane and checks its sha256 and signature; the simulated
 * fleet (scripts/sim-fleet) passes one that only takes time.
 */
export type ImageFetcher = (fetch: ImageFetch) => Promise<void>;
