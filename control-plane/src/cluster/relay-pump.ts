import { ApiError } from '@outpost/shared';
import type { Channel, ChannelErrorDetail } from '@outpost/shared';

/**
 * Joins two channels into one: what each end receives is written to the other, and each end closes when its
 * other half did. A chunk is read only once the write of the one before it went out under the other channel's
 * credit, so each side's window holds back the other's sender (the same flow control end to end). When either
 * channel fails, both fail with that error. Resolves once both directions ended.
 */
export async function pipeChannels(a: Channel, b: Channel): Promise<void> {
  await Promise.all([pump(a, b), pump(b, a)]);
}

async function pump(from: Channel, to: Channel): Promise<void> {
  try {
    for await (const chunk of from) await to.write(chunk);
    await to.end();
  } catch (err) {
    const detail = detailOf(to.error ?? from.error ?? err);
    from.abort(detail);
    to.abort(detail);
  }
}

function detailOf(err: unknown): ChannelErrorDetail {
  if (err instanceof ApiError) return { status: err.status, message: err.message };
  return { status: 'INTERNAL', message: err instanceof Error ? err.message : String(err) };
}
