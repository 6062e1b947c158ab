import { ApiError, internalError, unavailable } from '../errors/api-error.js';
import { readNdjson } from './ndjson.js';
import { flattenQuery } from './query-string.js';
import type { QueryValue } from './query-string.js';

export interface ClientOptions {
  /** the control plane's address, e.g. 'http://127.0.0.1:8080' */
  server: string;
  apiKey?: string;
  fetch?: typeof fetch;
  userAgent?: string;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  query?: QueryValue;
  body?: unknown;
  signal?: AbortSignal;
}

/** A field mask as one comma-separated string or a list of paths. */
export type FieldMaskParam = string | readonly string[];

export interface ReadOptions {
  fieldMask?: FieldMaskParam;
  view?: string;
}

export interface ListOptions extends ReadOptions {
  filter?: string;
  orderBy?: string;
  pageSize?: number;
  pageToken?: string;
  includePagingInfo?: boolean;
}

export interface CreateOptions {
  responseMask?: { skipEntireResponseBody?: boolean; bodyMask?: FieldMaskParam };
}

export interface UpdateOptions {
  updateMask?: FieldMaskParam;
  allowMissing?: boolean;
  cas?: { conditionalState?: unknown; fieldMask?: FieldMaskParam };
  responseMask?: { skipEntireResponseBody?: boolean; updatedFieldsOnly?: boolean; bodyMask?: FieldMaskParam };
}

/** A list answer: the resources under the plural key (`page.devices`), plus paging fields. */
export type ListResponse<T> = { [plural: string]: T[] | undefined } & {
  nextPageToken?: string;
  prevPageToken?: string;
  currentOffset?: number;
  totalResultsCount?: number;
};

/** A batchGet answer: the found resources under the plural key, and the names not found. */
export type BatchGetResponse<T> = { [plural: string]: T[] | undefined } & { missing?: string[] };

/** Any resource: its name plus whatever else it holds (the union lets object literals carry more fields). */
export type NamedResource = { name: string } | { name: string; [field: string]: unknown };

export interface DeleteOptions {
  allowMissing?: boolean;
}

/** The typed REST client of the Outpost APIs (grpc-gateway mapping, design.md "REST mapping"). */
export class OutpostClient {
  private readonly server: string;
  private readonly apiKey: string | undefined;
  private readonly fetchImpl: typeof fetch;
  private readonly userAgent: string;

  constructor(opts: ClientOptions) {
    let url: URL;
    try {
      url = new URL(opts.server);
    } catch {
      throw new ApiError('INVALID_ARGUMENT', `invalid server address "${opts.server}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ApiError('INVALID_ARGUMENT', `invalid server address "${opts.server}": must be http or https`);
    }
    this.server = opts.server.replace(/\/+$/, '');
    this.apiKey = opts.apiKey;
    this.fetchImpl = opts.fetch ?? fetch;
    this.userAgent = opts.userAgent ?? 'outpost-client';
  }

  /** One JSON request; a non-2xx answer throws its ApiError, an empty body resolves to undefined. */
  async request<T>(method: HttpMethod, path: string, opts: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, opts, 'application/json');
    const text = await this.guard(response.text(), opts.signal, 'read the answer of');
    if (!response.ok) throw errorFromText(text, response.status);
    if (text.trim() === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw internalError(`${method} ${path} answered with malformed JSON: ${text.slice(0, 200)}`);
    }
  }

  /** A newline-delimited JSON stream, one value per line; an error answer before the stream throws its ApiError. */
  async *stream<T>(
    method: 'POST' | 'GET',
    path: string,
    opts: RequestOptions = {},
  ): AsyncGenerator<T, void, undefined> {
    const response = await this.send(method, path, opts, 'application/x-ndjson, application/json');
    if (!response.ok) {
      throw errorFromText(await this.guard(response.text(), opts.signal, 'read the answer of'), response.status);
    }
    if (response.body === null) return;
    const lines = readNdjson(response.body);
    try {
      for (;;) {
        const next = await this.guard(lines.next(), opts.signal, 'keep the stream from');
        if (next.done) return;
        yield next.value as T;
      }
    } finally {
      // Also runs when the consumer leaves its loop early: cancels the body, closing the connection.
      await lines.return(undefined);
    }
  }

  get<T>(name: string, q: ReadOptions = {}): Promise<T> {
    return this.request<T>('GET', `/v1/${encodePath(name)}`, { query: { ...q } });
  }

  /** GET /v1/<collection>:batchGet: the found resources under the plural key, and `missing` names. */
  batchGet<T = unknown>(
    collection: string,
    names: readonly string[],
    q: ReadOptions = {},
  ): Promise<BatchGetResponse<T>> {
    return this.request<BatchGetResponse<T>>('GET', `/v1/${collection}:batchGet`, { query: { ...q, names } });
  }

  /** One page: the resources under the plural key, `nextPageToken` and the paging info. */
  list<T = unknown>(parent: string, collection: string, q: ListOptions = {}): Promise<ListResponse<T>> {
    return this.request<ListResponse<T>>('GET', collectionPath(parent, collection), { query: { ...q } });
  }

  /** Every resource of the collection, page after page; `itemsKey` is the plural response key (default: the collection). */
  async *listAll<T>(
    parent: string,
    collection: string,
    q: ListOptions = {},
    itemsKey: string = collection,
  ): AsyncGenerator<T, void, undefined> {
    let pageToken = q.pageToken;
    for (;;) {
      const page = await this.list<T>(parent, collection, { ...q, pageToken });
      const items = page[itemsKey];
      if (Array.isArray(items)) yield* items;
      const next = page.nextPageToken;
      if (typeof next !== 'string' || next === '' || next === pageToken) return;
      pageToken = next;
    }
  }

  /** POST /v1/{parent}/{collection} with the resource as body. */
  create<T>(parent: string, collection: string, resource: unknown, q: CreateOptions = {}): Promise<T> {
    return this.request<T>('POST', collectionPath(parent, collection), { query: { ...q }, body: resource });
  }

  /** PUT /v1/{name} with the resource as body; mask, CAS and response mask go in the query. */
  update<T>(resource: NamedResource, q: UpdateOptions = {}): Promise<T> {
    return this.request<T>('PUT', `/v1/${encodePath(resource.name)}`, { query: { ...q }, body: resource });
  }

  async delete(name: string, q: DeleteOptions = {}): Promise<void> {
    await this.request<unknown>('DELETE', `/v1/${encodePath(name)}`, { query: { ...q } });
  }

  /** POST to a `…:watch` path with the watch request as body; yields each response message. */
  watch<T>(path: string, body: unknown, signal?: AbortSignal): AsyncGenerator<T, void, undefined> {
    return this.stream<T>('POST', path, { body, signal });
  }

  private async send(method: HttpMethod, path: string, opts: RequestOptions, accept: string): Promise<Response> {
    const query = opts.query ? flattenQuery(opts.query).toString() : '';
    const url = `${this.server}${path.startsWith('/') ? '' : '/'}${path}${query === '' ? '' : `?${query}`}`;
    const headers: Record<string, string> = { accept, 'user-agent': this.userAgent };
    if (this.apiKey !== undefined) headers['authorization'] = `Bearer ${this.apiKey}`;
    const init: RequestInit = { method, headers, signal: opts.signal };
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(opts.body);
    }
    return this.guard(this.fetchImpl(url, init), opts.signal, 'reach');
  }

  /** Network failures become UNAVAILABLE; aborts and ApiErrors pass through unchanged. */
  private async guard<R>(pending: Promise<R>, signal: AbortSignal | undefined, doing: string): Promise<R> {
    try {
      return await pending;
    } catch (err) {
      if (err instanceof ApiError || signal?.aborted) throw err;
      const wrapped = unavailable(`cannot ${doing} ${this.server}: ${causeOf(err)}`);
      wrapped.cause = err;
      throw wrapped;
    }
  }
}

/** Keeps '/' and ':' (custom methods), escapes anything else an id could carry. */
const encodePath = (name: string): string =>
  name
    .split('/')
    .map((segment) => encodeURIComponent(segment).replaceAll('%3A', ':'))
    .join('/');

const collectionPath = (parent: string, collection: string): string =>
  parent === '' ? `/v1/${collection}` : `/v1/${encodePath(parent)}/${collection}`;

function errorFromText(text: string, httpStatus: number): ApiError {
  try {
    return ApiError.fromBody(JSON.parse(text), httpStatus);
  } catch {
    const detail = text.trim().slice(0, 200);
    return ApiError.fromBody({ error: { message: `HTTP ${httpStatus}${detail ? `: ${detail}` : ''}` } }, httpStatus);
  }
}

/** undici hides the reason of "fetch failed" in `cause` (an AggregateError with no message when every address fails). */
function causeOf(err: unknown): string {
  let reason: unknown = err instanceof Error && err.cause !== undefined ? err.cause : err;
  if (reason instanceof AggregateError && reason.message === '') reason = reason.errors[0] ?? reason;
  if (reason instanceof Error) {
    const code = (reason as { code?: unknown }).code;
    return reason.message || (typeof code === 'string' ? code : reason.name);
  }
  return String(reason);
}
