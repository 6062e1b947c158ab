import { osVersionId } from '@outpost/shared';
import type { Device, OutpostClient } from '@outpost/shared';
import { TEST_ADMIN_KEY, startTestServer } from '../../../control-plane/test/helpers/test-server.js';
import type { TestServer } from '../../../control-plane/test/helpers/test-server.js';
import { run } from './command.js';
import type { CommandResult } from './command.js';
import type { OsBundle } from './image-set.js';
import { OUTPOST_CLI } from './paths.js';

interface OsVersion {
  signature?: string;
  artifact?: { sha256?: string };
}

/** A real control plane in this process on 127.0.0.1 (fresh SQLite file), driven through its REST API and CLI. */
export interface ControlPlane {
  url: string;
  port: number;
  /** REST client with the admin key */
  admin: OutpostClient;
  /** artifact GETs served so far (image downloads, each resumed range counting once) */
  artifactDownloads(): number;
  /** runs the built `outpost` CLI against this control plane; a failure throws with its stderr */
  cli(args: readonly string[]): Promise<CommandResult>;
  /** `outpost os publish` of a bundle's image, signed with `signingKey` */
  publish(bundle: OsBundle, deviceType: string, signingKey: string): Promise<void>;
  /** PUT spec.osVersion (update mask spec.osVersion) */
  setOsVersion(deviceName: string, version: string): Promise<Device>;
  getDevice(deviceName: string): Promise<Device>;
  dispose(): Promise<void>;
}

export async function startControlPlane(options: { heartbeatSeconds?: number } = {}): Promise<ControlPlane> {
  const server: TestServer = await startTestServer({}, { heartbeatSeconds: options.heartbeatSeconds ?? 5 });
  const port = Number(new URL(server.url).port);
  const cli = (args: readonly string[]): Promise<CommandResult> =>
    run(process.execPath, [OUTPOST_CLI, ...args], {
      env: { OUTPOST_SERVER: server.url, OUTPOST_API_KEY: TEST_ADMIN_KEY },
    });
  return {
    url: server.url,
    port,
    admin: server.admin,
    artifactDownloads: () => server.artifactDownloads(),
    cli,
    async publish(bundle, deviceType, signingKey) {
      const args = ['--device-type', deviceType, '--version', bundle.version, '--image', bundle.rootfsImage];
      await cli(['os', 'publish', ...args, '--key', signingKey]);
      // ed25519 is deterministic: the CLI's signature must be the bundle's own (images/ signed it with this key)
      const published = await server.admin.get<OsVersion>(`osVersions/${osVersionId(deviceType, bundle.version)}`);
      if (published.signature !== bundle.manifest.signature || published.artifact?.sha256 !== bundle.manifest.sha256) {
        throw new Error(
          `outpost os publish ${bundle.version}: the published version does not match the bundle's manifest`,
        );
      }
    },
    setOsVersion: (deviceName, version) =>
      server.admin.update<Device>({ name: deviceName, spec: { osVersion: version } }, { updateMask: 'spec.osVersion' }),
    getDevice: (deviceName) => server.admin.get<Device>(deviceName),
    dispose: () => server.dispose(),
  };
}
