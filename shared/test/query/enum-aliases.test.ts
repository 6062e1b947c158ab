import { describe, expect, it } from 'vitest';
import { deviceDefinition } from '../../src/index.js';
import { evaluateFilter, parseFilter, type FilterSchema } from '../../src/query/index.js';

// spec 000 says Online/Offline where the API says CONNECTED/DISCONNECTED: filters take either word
const schema: FilterSchema = deviceDefinition.filterSchema;
const devices = [
  { name: 'projects/pp/regions/eu/devices/on', status: { connectionStatus: 'CONNECTED' } },
  { name: 'projects/pp/regions/eu/devices/off', status: { connectionStatus: 'DISCONNECTED' } },
  { name: 'projects/pp/regions/eu/devices/new', status: {} },
];
const selected = (filter: string): string[] =>
  devices.filter((d) => evaluateFilter(parseFilter(filter, schema), d)).map((d) => d.name.split('/').pop() ?? '');

describe('enum aliases in filters (status.connectionStatus Online/Offline)', () => {
  it.each([
    ['status.connectionStatus = "Online"', ['on']],
    ['status.connectionStatus = "Offline"', ['off']],
    ['status.connectionStatus != "Online"', ['off', 'new']],
    ['status.connectionStatus IN ("Online", "Offline")', ['on', 'off']],
    ['status.connectionStatus NOT IN ("Offline")', ['on', 'new']],
    ['status.connectionStatus = "CONNECTED"', ['on']],
    ['status.connectionStatus IN ("Online", "DISCONNECTED")', ['on', 'off']],
  ])('%s selects %j', (filter, names) => {
    expect(selected(filter)).toEqual(names);
  });

  it('parses an alias into the value it stands for', () => {
    expect(parseFilter('status.connectionStatus = "Online"', schema).ast).toEqual(
      parseFilter('status.connectionStatus = "CONNECTED"', schema).ast,
    );
  });

  it('names the aliases among the accepted words, and takes them only as written', () => {
    expect(() => parseFilter('status.connectionStatus = "online"', schema)).toThrow(
      'field "status.connectionStatus" expects one of "CONNECTION_STATUS_UNSPECIFIED", "CONNECTED", "DISCONNECTED", "Online", "Offline"',
    );
    expect(() => parseFilter('status.connectionStatus = "constructor"', schema)).toThrow(/expects one of/);
  });
});
