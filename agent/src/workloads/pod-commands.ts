import { POD_CONTROL_COMMAND, invalidArgument, podControlArgsSchema } from '@outpost/shared';
import type { AgentLink } from '../link/agent-link.js';
import type { WorkloadManager } from './workload-manager.js';

/** `pods.control`: start, stop or restart a pod or one service; answers the pod's status afterwards. */
export function registerPodCommands(link: AgentLink, manager: WorkloadManager): () => void {
  return link.setCommandHandler(POD_CONTROL_COMMAND, async (args) => {
    const parsed = podControlArgsSchema.safeParse(args);
    if (!parsed.success) throw invalidArgument(`invalid ${POD_CONTROL_COMMAND} arguments: ${parsed.error.message}`);
    return manager.control(parsed.data);
  });
}
