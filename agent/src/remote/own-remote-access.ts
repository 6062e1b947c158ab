import { readFile } from 'node:fs/promises';
import { remoteAccessSchema } from '@outpost/shared';
import type { RemoteAccess } from '@outpost/shared';

/**
 * The device's own `spec.remoteAccess`, from the spec the agent last stored (its desired-device file): the agent
 * holds remote sessions to its own copy of the rules, not only to what the control plane sends with an open.
 * Undefined before any spec was stored; a stored spec without the member means every default.
 */
export async function ownRemoteAccess(desiredDeviceFile: string): Promise<RemoteAccess | undefined> {
  let text: string;
  try {
    text = await readFile(desiredDeviceFile, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const stored = JSON.parse(text) as { spec?: { remoteAccess?: unknown } };
    const parsed = remoteAccessSchema.safeParse(stored.spec?.remoteAccess ?? {});
    // a member this agent cannot read refuses everything rather than allowing by default
    return parsed.success ? parsed.data : { disableTerminal: true, disablePortForward: true, forwardTargets: [] };
  } catch {
    return undefined;
  }
}
