import type { Logger } from '../logging/logger.js';
import { containerEngineAvailable, containerRuntime } from './container-runtime.js';
import type { ContainerEngine } from './container-runtime.js';
import { processRuntime } from './process-runtime.js';
import type { RuntimeSet, WorkloadRuntime } from './runtime.js';

const RECHECK_MS = 60_000;

/**
 * The runtimes of this device: processes, and the first of docker and podman that answers. A missing container
 * runtime is looked for again at most once a minute (a daemon may start after the agent).
 */
export function deviceRuntimes(logger: Logger, engines: readonly ContainerEngine[] = ['docker', 'podman']): RuntimeSet {
  let found: WorkloadRuntime | undefined;
  let lastCheck = -Infinity;
  let checking: Promise<WorkloadRuntime | undefined> | undefined;
  const detect = async (): Promise<WorkloadRuntime | undefined> => {
    for (const engine of engines) {
      if (await containerEngineAvailable(engine)) {
        logger.info({ engine }, 'container runtime found');
        return containerRuntime(engine);
      }
    }
    logger.warn({ engines }, 'no container runtime answers: services with an image cannot run');
    return undefined;
  };
  return {
    process: processRuntime(),
    async container() {
      if (found !== undefined) return found;
      if (checking === undefined && Date.now() - lastCheck >= RECHECK_MS) {
        lastCheck = Date.now();
        checking = detect().finally(() => (checking = undefined));
      }
      found = (await checking) ?? found;
      return found;
    },
  };
}
