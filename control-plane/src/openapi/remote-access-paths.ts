import { DEVICE_PATTERN } from '@outpost/shared';
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
 * The WebSocket endpoints of remote access (remote-access-endpoint.ts): not resource methods, written out here.
 * OpenAPI describes only their opening request and its refusals.
 */
export function addRemoteAccessPaths(paths: Record<string, PathItem>): void {
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
