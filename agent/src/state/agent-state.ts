import { readJsonFile, writeJsonFileAtomic } from '@outpost/shared';

/** What the agent remembers across restarts and reboots ({device_root}/data/agent-state.json). */
export interface AgentState {
  /** the OS version the device runs, as last committed (starts as the factory version) */
  osVersion?: string;
  /** the kernel boot id of the last start: a different one at start means the device rebooted */
  lastBootId?: string;
  lastStartTime?: string;
}

export interface AgentStateStore {
  read(): Promise<AgentState>;
  /** merges `patch` into the stored state, atomically */
  update(patch: Partial<AgentState>): Promise<AgentState>;
}

export function agentStateStore(path: string): AgentStateStore {
  const read = async (): Promise<AgentState> => toAgentState(await readJsonFile(path));
  // Updates run one after another so two concurrent patches cannot lose each other.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    read,
    update(patch) {
      const run = async (): Promise<AgentState> => {
        const next = { ...(await read()), ...patch };
        await writeJsonFileAtomic(path, next);
        return next;
      };
      const result = queue.then(run, run);
      queue = result.catch(() => undefined);
      return result;
    },
  };
}

function toAgentState(value: unknown): AgentState {
  if (typeof value !== 'object' || value === null) return {};
  const fields = value as Record<string, unknown>;
  const state: AgentState = {};
  for (const key of ['osVersion', 'lastBootId', 'lastStartTime'] as const) {
    const field = fields[key];
    if (typeof field === 'string') state[key] = field;
  }
  return state;
}
