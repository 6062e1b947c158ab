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
 */
export interface ResourceRules {
  beforeCreate?(doc: Doc, ctx: OperationContext): Doc | void;
  beforeUpdate?(before: Doc, after: Doc, ctx: OperationContext): Doc | void;
  beforeDelete?(doc: Doc, ctx: OperationContext): void;
  afterCreate?(doc: Doc, ctx: OperationContext): void;
  afterUpdate?(before: Doc, after: Doc, ctx: OperationContext): void;
  afterDelete?(doc: Doc, ctx: OperationContext): void;
}
