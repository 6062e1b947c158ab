import { ApiError } from '@outpost/shared';
import { describe, expect, it } from 'vitest';
import { createLimitsService } from '../../src/limits/index.js';
import type { MeteredResource } from '../../src/limits/index.js';
import { ResourceEngine } from '../../src/resources/resource-engine.js';
import type { ResourceHandle } from '../../src/resources/resource-handle.js';
import { where } from '../../src/resources/resource-query.js';
import { tempDatabases } from '../helpers/temp-databases.js';
import { widgetDefinition } from '../helpers/widgets.js';

/**
 * Limits meters any resource that registers itself (limits names none): here the tests' widgets, metered by a
 * service of their own, with two per project and region.
 */
const freshDatabase = tempDatabases('outpost-metering-');
const SERVICE = 'services/widgets.outpost';
const RESOURCE = `${SERVICE}/resources/widgets`;

function widgetMeter(widgets: () => ResourceHandle): MeteredResource {
  return {
    service: SERVICE,
    serviceDisplayName: 'Widgets',
    resource: RESOURCE,
    noun: 'widgets',
    placeOf: (name) => {
      const [, project, , region] = name.split('/');
      return project && region ? { project: `projects/${project}`, region } : undefined;
    },
    countIn: (place) => widgets().count({ where: [where.parent(`${place.project}/regions/${place.region}`)] }),
    defaultLimits: { service: 1_000, organization: 100, project: 2 },
  };
}

function setUp() {
  const engine = new ResourceEngine(freshDatabase().db);
  const limits = createLimitsService(engine);
  const rules = limits.meter(widgetMeter(() => widgets));
  const widgets: ResourceHandle = engine.register(widgetDefinition, rules);
  limits.bootstrap();
  const create = (project: string, region: string, id: string) =>
    widgets.create({
      parent: `${project}/regions/${region}`,
      resource: { name: `${project}/regions/${region}/widgets/${id}` },
    });
  const usage = (project: string, region: string) =>
    limits.handles.limits.find(`${project}/limits/${region}/widgets.outpost/widgets`)?.['usage'];
  return { limits, widgets, create, usage };
}

describe('a metered resource registered with limits', () => {
  it('gets its service and default plans at bootstrap, and takes from and gives back to its Limit', () => {
    const { limits, widgets, create, usage } = setUp();
    expect(limits.handles.services.find(SERVICE)?.['displayName']).toBe('Widgets');
    expect(limits.handles.plans.find(`${SERVICE}/plans/project-small`)).toBeDefined();
    limits.handles.projects.create({ parent: '', resource: { name: 'projects/p1', regions: ['eu'] } });
    create('projects/p1', 'eu', 'wa');
    create('projects/p1', 'eu', 'wb');
    expect(usage('projects/p1', 'eu')).toBe(2);
    expect(() => create('projects/p1', 'eu', 'wc')).toThrow(ApiError);
    expect(() => create('projects/p1', 'us', 'wc')).toThrow(/not in region us/);
    widgets.delete({ name: 'projects/p1/regions/eu/widgets/wa' });
    expect(usage('projects/p1', 'eu')).toBe(1);
  });

  it('counts what was there before the Limit existed (usage starts from the truth)', () => {
    const { limits, create, usage } = setUp();
    create('projects/p2', 'eu', 'wa'); // the project does not exist yet: not metered
    limits.handles.projects.create({ parent: '', resource: { name: 'projects/p2', regions: ['eu'] } });
    expect(usage('projects/p2', 'eu')).toBe(1);
  });

  it('refuses a resource metered twice', () => {
    const { limits, widgets } = setUp();
    expect(() => limits.meter(widgetMeter(() => widgets))).toThrow(/metered twice/);
  });
});
