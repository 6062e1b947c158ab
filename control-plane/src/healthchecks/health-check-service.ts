import { healthCheckDefinition } from '@outpost/shared';
import type { AppliedHealthCheck, Device, HealthCheck } from '@outpost/shared';
import type { SpecDependency } from '../gateway/agent-gateway.js';
import type { ResourceEngine } from '../resources/resource-engine.js';
import type { ResourceHandle } from '../resources/resource-handle.js';
import { where } from '../resources/resource-query.js';
import { appliesTo, regionOf } from './applies-to.js';
import type { Authorize } from './exec-permissions.js';
import { healthCheckRules } from './health-check-rules.js';

export interface HealthCheckService {
  healthChecks: ResourceHandle<HealthCheck>;
  /** the checks a device runs, sent along with its spec (sorted by name) */
  resolveHealthChecks(device: Device): AppliedHealthCheck[];
  /** tells the gateway which devices a committed health-check change concerns, so it pushes their spec again */
  specDependency: SpecDependency;
}

/**
 * Health checks (`projects/{p}/regions/{r}/healthChecks/{id}`, spec 000 "Health check"): a plain resource of
 * the generic engine; the agent runs them. Which devices run a check is decided here (label selector or the
 * device's `spec.healthChecks`) and follows the data: changing a check, a device's labels or its list
 * re-pushes the affected devices' specs. A COMMAND check is code execution on those devices: `authorize` checks
 * the caller's `devices.exec` (see health-check-rules.ts).
 */
export function createHealthCheckService(engine: ResourceEngine, authorize: Authorize): HealthCheckService {
  const healthChecks = engine.register(healthCheckDefinition, healthCheckRules(authorize));

  const resolveHealthChecks = (device: Device): AppliedHealthCheck[] => {
    const checks = healthChecks.list({ where: [where.parent(regionOf(device.name))] });
    return checks.filter((check) => appliesTo(check, device)).map(appliedCheck);
  };

  const specDependency: SpecDependency = {
    subscribe: (listener) =>
      healthChecks.subscribe((change) => {
        const versions = [change.before, change.after].filter((d) => d !== null);
        listener((device) => versions.some((check) => appliesTo(check, device)));
      }),
  };

  return { healthChecks, resolveHealthChecks, specDependency };
}

/** What the agent needs of a check: its name, its id (the condition is `Healthy/<id>`) and the probe. */
function appliedCheck(check: HealthCheck): AppliedHealthCheck {
  const name = check.name;
  const { selector: _selector, ...probe } = check.spec;
  return { name, id: name.slice(name.lastIndexOf('/') + 1), spec: probe };
}
