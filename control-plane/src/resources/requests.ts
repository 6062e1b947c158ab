import type { View } from '@outpost/shared';

/** Request shapes of spec 001 "Request and response shapes common to all resources" (lowerCamel). */
export type MaskInput = string | readonly string[] | undefined;

export interface GetRequest {
  name: string;
  fieldMask?: MaskInput;
  view?: View;
}

export interface BatchGetRequest {
  names: readonly string[];
  fieldMask?: MaskInput;
  view?: View;
}

export interface ListRequest {
  parent: string;
  pageSize?: number;
  pageToken?: string;
  orderBy?: string;
  filter?: string;
  fieldMask?: MaskInput;
  view?: View;
  includePagingInfo?: boolean;
}

export interface ResponseMask {
  skipEntireResponseBody?: boolean;
  updatedFieldsOnly?: boolean;
  bodyMask?: MaskInput;
}

export interface CreateRequest {
  parent: string;
  resource: unknown;
  responseMask?: ResponseMask;
}

export interface UpdateRequest {
  /** the name from the URL; the body's name must agree when present */
  name?: string;
  resource: unknown;
  updateMask?: MaskInput;
  cas?: { conditionalState?: unknown; fieldMask?: MaskInput };
  allowMissing?: boolean;
  responseMask?: ResponseMask;
}

export interface DeleteRequest {
  name: string;
  allowMissing?: boolean;
}

export interface ListResponse {
  items: Record<string, unknown>[];
  prevPageToken: string;
  nextPageToken: string;
  /** only with includePagingInfo */
  currentOffset?: number;
  totalResultsCount?: number;
}
