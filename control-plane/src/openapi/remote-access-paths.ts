import { AGENT_CONNECT_PATH, DEVICE_PATTERN } from '@outpost/shared';
import { CONNECT_PERMISSION } from '../remote/remote-access-endpoint.js';
import { errorResponses } from './common-components.js';
import { addOperation } from './openapi-types.js';
import type { Operation, Parameter, PathItem } from './openapi-types.js';
import { operationStem, resourcePath } from './kind-operations.js';

const query = (name: string, type: 'string' | 'integer', description: string, required = false): Parameter => ({
  name,
  in: 'query',
  required,
  description,
  schema: { type },
});

/**
 * The WebSocket endpoints: the agents' link (agent-gateway.ts) and remote access (remote-access-endpoint.ts), not
 * resource methods, written out here. OpenAPI describes only their opening request and its refusals.
 */
export function addRemoteAccessPaths(paths: Record<string, PathItem>): void {
  addOperation(paths, AGENT_CONNECT_PATH, 'get', {
    operationId: 'agent.connect',
    summary: "A device's link",
    description:
      "The agent's one outbound WebSocket (send `Connection: Upgrade`, `Upgrade: websocket`), authenticated by " +
      'the device, not by an API key: `Authorization: Bearer <device credential>`, `odk1.<device>` (the device ' +
      'then signs a challenge sent on the link with its key) or a challenge from `:challenge` signed by it. JSON ' +
      'messages carry the protocol (README "Agent protocol"); a newer link of the device replaces this one.',
    tags: ['agent'],
    security: [],
    responses: { '101': { description: 'Switching to the WebSocket protocol.' }, ...errorResponses() },
  });
  const device = resourcePath(DEVICE_PATTERN);
  const stem = operationStem(DEVICE_PATTERN);
  addOperation(
    paths,
    `${device}:terminal`,
    'get',
    upgrade(`${stem}.terminal`, 'A terminal on the device', [
      {
        ...query(
          'command',
          'string',
          'The command and its arguments (repeat the parameter); a login shell without it.',
        ),
        schema: { type: 'array', items: { type: 'string' } },
        style: 'form',
        explode: true,
      },
      query('cols', 'integer', 'Terminal width; with rows, the session gets a pseudo-terminal.'),
      query('rows', 'integer', 'Terminal height.'),
      query('term', 'string', 'TERM of the pseudo-terminal.'),
    ]),
  );
  addOperation(
    paths,
    `${device}:portForward`,
    'get',
    upgrade(`${stem}.portForward`, 'A TCP connection from the device', [
      query('host', 'string', 'The host the device connects to.', true),
      query('port', 'integer', 'Its TCP port.', true),
    ]),
  );
}

function upgrade(operationId: string, summary: string, parameters: Parameter[]): Operation {
  return {
    operationId,
    summary,
    description:
      'A WebSocket (send `Connection: Upgrade`, `Upgrade: websocket`); browsers may send the API key as the ' +
      'subprotocol `bearer.<API key>`. Binary messages carry the session (README "Remote operations"). ' +
      'Every session leaves a RemoteSession audit record.',
    tags: ['devices'],
    'x-outpost-permission': CONNECT_PERMISSION,
    parameters,
    responses: { '101': { description: 'Switching to the WebSocket protocol.' }, ...errorResponses() },
  };
}
