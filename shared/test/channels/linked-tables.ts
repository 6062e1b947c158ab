import { ChannelTable, decodeChannelFrame } from '../../src/index.js';
import type { Channel, FlowSettings } from '../../src/index.js';

/**
 * Two channel tables joined by an asynchronous in-memory link, as the agent's and the control plane's over a
 * WebSocket; `dataFrames` records the payload size of every DATA frame either way.
 */
export function linkedTables(flow?: FlowSettings): { a: ChannelTable; b: ChannelTable; dataFrames: number[] } {
  const dataFrames: number[] = [];
  const carry = (to: () => ChannelTable) => (bytes: Uint8Array) => {
    const decoded = decodeChannelFrame(bytes);
    if (decoded.ok && decoded.frame.kind === 'DATA') dataFrames.push(decoded.frame.payload.length);
    setImmediate(() => to().route(bytes));
    return true;
  };
  const a: ChannelTable = new ChannelTable(
    carry(() => b),
    flow,
  );
  const b: ChannelTable = new ChannelTable(
    carry(() => a),
    flow,
  );
  return { a, b, dataFrames };
}

/** Everything a channel delivers until its end. */
export async function collect(channel: Channel): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of channel) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}
