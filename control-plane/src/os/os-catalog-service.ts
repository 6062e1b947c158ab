import semver from 'semver';
import {
  deviceTypeDefinition,
  failedPrecondition,
  invalidArgument,
  osVersionDefinition,
  osVersionId,
} from '@outpost/shared';
import type { Device, DeviceStatus, DeviceType, OsImage, OsVersion } from '@outpost/shared';
import type { ResourceEngine } from '../resources/resource-engine.js';
import type { ResourceHandle } from '../resources/resource-handle.js';
import type { ResourceRules } from '../resources/resource-rules.js';
import { where } from '../resources/resource-query.js';
import type { ArtifactStore } from './artifact-store.js';
import { osReadyAfterWrite } from './os-ready.js';

export interface OsCatalog {
  deviceTypes: ResourceHandle<DeviceType>;
  osVersions: ResourceHandle<OsVersion>;
  /** rules the devices service runs on every device write */
  deviceRules: ResourceRules<Device>;
  /** the image a device should run: its spec.osVersion for its reported type, when published */
  resolveOsImage(device: Device): OsImage | undefined;
  /** whether a version published for the device's type has this artifact (what a device may download) */
  isPublishedFor(device: Device, sha256: string): boolean;
  /** the artifacts some version refers to (the others are garbage) */
  referencedArtifacts(): Set<string>;
}

/**
 * The OS catalog (design.md "OS versions"): device types, published versions with their signed artifacts, and
 * the rule that a device's spec.osVersion can only name a version published for its type whose
 * minimumPreviousVersion its running version meets.
 */
export function createOsCatalog(engine: ResourceEngine, artifacts: ArtifactStore): OsCatalog {
  const deviceTypes = engine.register(deviceTypeDefinition);
  const osVersionRules: ResourceRules<OsVersion> = {
    beforeCreate: (doc) => {
      checkArtifact(artifacts, doc);
      if (!deviceTypes.find(doc.deviceType))
        throw failedPrecondition(`device type "${doc.deviceType}" does not exist: create it first`);
      const id = osVersionId(doc.deviceType.split('/')[1]!, doc.version);
      if (doc.name !== `osVersions/${id}`) {
        throw invalidArgument(`an OS version of ${doc.deviceType} ${doc.version} is named osVersions/${id}`);
      }
      return { ...doc, artifact: { ...doc.artifact, url: `/v1/artifacts/${doc.artifact.sha256}` } };
    },
  };
  const osVersions = engine.register(osVersionDefinition, osVersionRules);

  const findVersion = (deviceType: string, version: string): OsVersion | undefined =>
    osVersions.find(`osVersions/${osVersionId(deviceType, version)}`);

  const isReferenced = (sha256: string): boolean =>
    osVersions.count({ where: [where.equals('artifact.sha256', sha256)] }) > 0;
  const isPublishedFor = (device: Device, sha256: string): boolean => {
    const type = deviceTypeOf(device);
    if (!type || !/^[0-9a-f]{64}$/.test(sha256)) return false;
    const published = [where.equals('deviceType', `deviceTypes/${type}`), where.equals('artifact.sha256', sha256)];
    return osVersions.count({ where: published }) > 0;
  };
  const referencedArtifacts = (): Set<string> => new Set(osVersions.list().map((doc) => doc.artifact.sha256));

  // the artifact of a deleted version goes with it unless another version has it; checked again when removed,
  // after the commit, so that a version created meanwhile keeps it. One being downloaded (on any replica) stays
  // for `outpost os gc`.
  osVersions.subscribe((change) => {
    if (change.after || !change.before) return;
    const sha256 = change.before.artifact.sha256;
    setImmediate(() => {
      void artifacts.claim(sha256).then((release) => {
        if (release === undefined) return;
        try {
          if (!isReferenced(sha256)) artifacts.removeSync(sha256);
        } catch {
          // the server stopped meanwhile (its database closed) or the file cannot be removed: `outpost os gc` will
        } finally {
          release();
        }
      });
    });
  });

  const resolveOsImage = (device: Device): OsImage | undefined => {
    const version = device.spec?.osVersion;
    const type = deviceTypeOf(device);
    if (version === undefined || !type) return undefined;
    const published = findVersion(type, version);
    if (!published) return undefined;
    const { artifact, signature, minimumPreviousVersion: minimum } = published;
    return {
      version,
      deviceType: type,
      sha256: artifact.sha256,
      size: artifact.size,
      url: artifact.url ?? `/v1/artifacts/${artifact.sha256}`,
      signature,
      ...(minimum !== undefined ? { minimumPreviousVersion: minimum } : {}),
    };
  };

  const checkDesiredVersion = (before: Device | undefined, after: Device): Device | void => {
    const desired = after.spec?.osVersion;
    if (desired === before?.spec?.osVersion) return;
    const now = engine.now().toISOString();
    const status = after.status ?? {};
    const info = status.deviceInfo ?? {};
    const running = info.osVersion;
    // none, or back to what runs: always allowed, nothing to install
    if (desired === undefined || desired === running) return osReadyAfterWrite(after, now);
    if (info.managedFeatures?.os === false) {
      throw failedPrecondition(
        'OS management is disabled on this device (agent on its own Linux): it cannot change OS version',
      );
    }
    const type = deviceTypeOf(after);
    // a device whose type is not known (created without provisioning facts, not yet connected) is checked by its
    // agent instead: it waits in Pending while the version is not published for its type, and refuses an image
    // for another type or whose minimumPreviousVersion it does not meet
    if (!type) return osReadyAfterWrite(after, now);
    const published = findVersion(type, desired);
    if (!published) {
      // a version the device still holds in its other slot needs no artifact: it switches back to it
      if (retainedVersions(status).includes(desired)) return osReadyAfterWrite(after, now);
      throw failedPrecondition(`version ${desired} is not published for device type ${type}`);
    }
    const minimum = published.minimumPreviousVersion;
    if (minimum !== undefined && running !== undefined && semver.valid(running) && semver.lt(running, minimum)) {
      throw failedPrecondition(
        `version ${desired} needs the device to run at least ${minimum}; it runs ${running}: upgrade through ${minimum} first`,
      );
    }
    return osReadyAfterWrite(after, now);
  };

  const deviceRules: ResourceRules<Device> = {
    beforeCreate: (doc) => checkDesiredVersion(undefined, doc),
    beforeUpdate: (before, after) => checkDesiredVersion(before, after),
  };

  return { deviceTypes, osVersions, deviceRules, resolveOsImage, isPublishedFor, referencedArtifacts };
}

/** An OS version's artifact must be stored, with the size it claims. */
function checkArtifact(artifacts: ArtifactStore, { artifact }: OsVersion): void {
  const stored = artifacts.statSync(artifact.sha256);
  if (!stored) throw failedPrecondition(`artifact ${artifact.sha256} was not uploaded: PUT /v1/artifacts first`);
  if (stored.size !== artifact.size) {
    throw invalidArgument(`artifact.size ${artifact.size} does not match the stored ${stored.size} bytes`);
  }
}

/** Versions the device reports in its A/B slots (status.osUpdate.slots). */
function retainedVersions(status: DeviceStatus): string[] {
  return Object.values(status.osUpdate?.slots ?? {})
    .map((slot) => slot.version)
    .filter((v): v is string => typeof v === 'string');
}

/** 'deviceTypes/x' from status.deviceInfo.deviceType ('x' or 'deviceTypes/x'). */
function deviceTypeOf(device: Device): string | undefined {
  const type = device.status?.deviceInfo?.deviceType;
  if (type === undefined || type === '') return undefined;
  return type.startsWith('deviceTypes/') ? type.slice('deviceTypes/'.length) : type;
}
