import type { Doc } from './resource-table.js';

/** Who asks, as far as resource rules care. */
export interface OperationContext {
  /** the authenticated caller (an API key principal), absent for system writes */
  principal?: unknown;
  /** true for writes by the control plane itself (agents' status, limits bookkeeping) */
  system?: boolean;
}

/**
 * A service's own rules for a resource, run inside the write transaction.
 * Return a replacement document to change what is stored; throw an ApiError to refuse (nothing is written).
 * `T`: the resource's document type (its definition's schema): rules see documents that passed the schema.
 */
export interface ResourceRules<T extends Doc = Doc> {
  beforeCreate?(doc: T, ctx: OperationContext): T | void;
  beforeUpdate?(before: T, after: T, ctx: OperationContext): T | void;
  beforeDelete?(doc: T, ctx: OperationContext): void;
  afterCreate?(doc: T, ctx: OperationContext): void;
  afterUpdate?(before: T, after: T, ctx: OperationContext): void;
  afterDelete?(doc: T, ctx: OperationContext): void;
}

/**
 * Rules that never replace the document, only check or follow writes (the metering of limits): they fit a
 * resource kind of any document type.
 */
export interface CheckingRules {
  beforeCreate?(doc: Doc, ctx: OperationContext): void;
  beforeUpdate?(before: Doc, after: Doc, ctx: OperationContext): void;
  beforeDelete?(doc: Doc, ctx: OperationContext): void;
  afterCreate?(doc: Doc, ctx: OperationContext): void;
  afterUpdate?(before: Doc, after: Doc, ctx: OperationContext): void;
  afterDelete?(doc: Doc, ctx: OperationContext): void;
}
