export { OutpostClient } from './outpost-client.js';
export type {
  BatchGetResponse,
  ClientOptions,
  CreateOptions,
  DeleteOptions,
  FieldMaskParam,
  HttpMethod,
  ListOptions,
  ListResponse,
  NamedResource,
  ReadOptions,
  RequestOptions,
  UpdateOptions,
} from './outpost-client.js';
export { flattenQuery } from './query-string.js';
export type { QueryValue } from './query-string.js';
export { readNdjson } from './ndjson.js';
export { isLoopbackHost } from './loopback-host.js';
