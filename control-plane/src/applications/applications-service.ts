import {
  ApiError,
  POD_CONTROL_COMMAND,
  failedPrecondition,
  invalidArgument,
  notFound,
  podDefinition,
  podStatusSchema,
  permissionOf,
  unavailable,
} from '@outpost/shared';
import type { DesiredPod, Device, Pod, PodAction, PodStatus, PodStatusMessage } from '@outpost/shared';
import type { SpecDependency } from '../gateway/agent-gateway.js';
import type { Authorize } from '../healthchecks/exec-permissions.js';
import { isDocument } from '../resources/doc-utils.js';
import { where } from '../resources/resource-query.js';
import type { CustomMethod } from '../resources/http/custom-method.js';
import type { ResourceEngine } from '../resources/resource-engine.js';
import type { ResourceHandle } from '../resources/resource-handle.js';
import { nodeOf, podRules } from './pod-rules.js';

/** How the service reaches a device (the gateway's `sendCommand`, bound late: the gateway is built after it). */
export type SendCommand = (deviceName: string, command: string, args: unknown, timeoutMs: number) => Promise<unknown>;

export interface ApplicationsService {
  pods: ResourceHandle<Pod>;
  customMethods: CustomMethod[];
  /** the pods a device runs, sent along with its spec */
  resolvePods(device: Device): DesiredPod[];
  /** re-pushes the specs of the devices a pod change concerns */
  specDependency: SpecDependency;
  /** writes what a device reported of its pods (only pods whose spec.node is that device) */
  recordPodStatus(deviceName: string, reports: PodStatusMessage['pods']): void;
  stop(): void;
}

const POD_COMMAND_TIMEOUT_MS = 60_000;
/** Devices gone offline whose pods one query looks up. */
const OFFLINE_DEVICES_PER_LOOKUP = 500;
const VERBS: Record<string, PodAction> = { start: 'START', stop: 'STOP', restart: 'RESTART' };

/**
 * The applications API (design.md "Workloads"): the Pod resource on the generic engine, its start, stop and
 * restart methods carried over the device's live link, the pods each device is sent with its spec, and the
 * status the devices report (UNKNOWN while a device is offline). Writing a pod's spec is code execution on its
 * device: `authorize` checks the caller's `devices.exec` (see pod-rules.ts).
 */
export function createApplicationsService(
  engine: ResourceEngine,
  devices: ResourceHandle<Device>,
  authorize: Authorize,
  sendCommand: SendCommand,
  onBackgroundError: (err: unknown, what: string) => void,
): ApplicationsService {
  const pods = engine.register(podDefinition, podRules(devices, authorize));

  const podsOn = (deviceName: string): Pod[] => {
    const region = deviceName.split('/').slice(0, 4).join('/');
    return pods.list({ where: [where.parent(region), where.equals('spec.node', deviceName)] });
  };

  const resolvePods = (device: Device): DesiredPod[] =>
    podsOn(device.name).map((pod) => ({
      name: pod.name,
      // every stored pod has one: the engine stamps it on create
      generation: pod.metadata?.generation ?? 0,
      spec: pod.spec,
    }));

  const specDependency: SpecDependency = {
    subscribe: (listener) =>
      pods.subscribe((change) => {
        const before = change.before && nodeOf(change.before);
        const after = change.after && nodeOf(change.after);
        if (before === after && JSON.stringify(change.before?.spec) === JSON.stringify(change.after?.spec)) {
          return; // a status write: nothing the device needs
        }
        listener((device) => device.name === before || device.name === after);
      }),
  };

  const writeStatus = (name: string, status: PodStatus): Pod | undefined =>
    pods.patch(name, (doc) => ({ ...doc, status }));

  const recordPodStatus = (deviceName: string, reports: PodStatusMessage['pods']): void => {
    engine.transaction(() => {
      for (const report of reports) {
        const pod = pods.find(report.name);
        if (pod !== undefined && nodeOf(pod) === deviceName) writeStatus(report.name, report.status);
      }
    });
  };

  // a device that goes offline cannot vouch for its pods any more
  let stopped = false;
  // the devices gone offline since the last look: a whole replica's fleet can go at once (its lease swept), and
  // every replica sees it, so their pods are looked up together, not with a query (and a transaction) each
  let wentOffline = new Set<string>();
  const markPodsUnknown = (): void => {
    const names = [...wentOffline];
    wentOffline = new Set();
    if (stopped) return;
    for (let i = 0; i < names.length; i += OFFLINE_DEVICES_PER_LOOKUP) {
      const batch = names.slice(i, i + OFFLINE_DEVICES_PER_LOOKUP);
      try {
        const known = pods
          .list({ where: [where.in('spec.node', batch)] })
          .filter((pod) => pod.status?.phase !== 'UNKNOWN');
        if (known.length === 0) continue;
        engine.transaction(() => {
          for (const pod of known) {
            pods.patch(pod.name, (doc) => ({ ...doc, status: { ...doc.status, phase: 'UNKNOWN' } }));
          }
        });
      } catch (err) {
        const which = batch.length === 1 ? batch[0] : `${batch.length} devices`;
        onBackgroundError(err, `marking the pods of ${which} UNKNOWN`);
      }
    }
  };
  // Any write that leaves the device DISCONNECTED counts, not only a CONNECTED → DISCONNECTED change: status
  // writes are batched, so a short connection's CONNECTED and DISCONNECTED can reach the store as one change.
  const unsubscribeDevices = devices.subscribe((change) => {
    // the replica that stored the change marks the pods (it runs this too); another one reads no document here
    if (change.foreign) return;
    const is = change.after?.status?.connectionStatus;
    if (is !== 'DISCONNECTED') return;
    // after the commit that published this change, not inside it
    if (wentOffline.size === 0) setImmediate(markPodsUnknown);
    wentOffline.add(change.name);
  });

  const control = (verb: string): CustomMethod => ({
    plural: 'pods',
    verb,
    scope: 'resource',
    httpMethod: 'POST',
    permission: permissionOf(podDefinition, verb),
    handle: async ({ target, body }) => {
      const pod = pods.find(target);
      if (pod === undefined) throw notFound(`pod "${target}" not found`);
      const service = serviceOf(body);
      const services = pod.spec.services.map((s) => s.name);
      if (service !== undefined && !services.includes(service)) {
        throw notFound(`pod "${target}" has no service "${service}" (it has ${services.join(', ')})`);
      }
      const node = nodeOf(pod);
      if (node === undefined) throw failedPrecondition(`pod "${target}" runs on no device: set spec.node`);
      let status: unknown;
      try {
        status = await sendCommand(
          node,
          POD_CONTROL_COMMAND,
          { pod: target, action: VERBS[verb], ...(service === undefined ? {} : { service }) },
          POD_COMMAND_TIMEOUT_MS,
        );
      } catch (err) {
        if (err instanceof ApiError && err.status === 'UNAVAILABLE') {
          throw unavailable(`cannot ${verb} ${service ? `service "${service}" of ` : ''}${target}: ${err.message}`);
        }
        throw err;
      }
      const reported = podStatusSchema.safeParse(status);
      return (reported.success ? writeStatus(target, reported.data) : undefined) ?? pods.get({ name: target });
    },
  });

  return {
    pods,
    customMethods: [control('start'), control('stop'), control('restart')],
    resolvePods,
    specDependency,
    recordPodStatus,
    stop: () => {
      stopped = true;
      unsubscribeDevices();
    },
  };
}

function serviceOf(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (!isDocument(body)) throw invalidArgument('the body must be an object: {"service"?}');
  const { service, ...rest } = body;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw invalidArgument(`unknown field "${unknown[0]}": the body is {"service"?}`);
  if (service === undefined || service === '') return undefined;
  if (typeof service !== 'string') throw invalidArgument('service must be a string');
  return service;
}
