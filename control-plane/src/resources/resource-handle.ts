import {
  alreadyExists,
  applyUpdateMask,
  changedPaths,
  deletePath,
  fieldTreeFromZod,
  generateId,
  getPath,
  invalidArgument,
  isWildcardParent,
  nameProblemAmong,
  notFound,
  parentProblemAmong,
  parseFieldMask,
  projectFields,
  setPath,
  aborted,
  META_OUTPUT_ONLY,
} from '@outpost/shared';
import type { FieldTree, NamePattern, NameProblem, ResourceDefinition } from '@outpost/shared';
import type { ChangeBus, ChangeListener } from './change-bus.js';
import type { Change, ChangeLog } from './change-log.js';
import { asDocument, clone, isAtOrUnder, looselyEqual, memberDocument, sameDocument } from './doc-utils.js';
import {
  specChanged,
  specChangedIn,
  stampedMetadata,
  stampMetadata,
  systemOwnedPaths,
  type PathTree,
} from './metadata-stamp.js';
import type { ResourceQuery } from './resource-query.js';
import type { ResourceRules, OperationContext } from './resource-rules.js';
import type { Doc, QueriedRow, ResourceTable, StoredRow, TableQuery } from './resource-table.js';
import { RowProjection } from './row-projection.js';
import { tableQueryOf } from './table-query.js';
import { ValueCounts } from './value-counts.js';
import type {
  BatchGetRequest,
  CreateRequest,
  DeleteRequest,
  GetRequest,
  MaskInput,
  ResponseMask,
  UpdateRequest,
} from './requests.js';
import { present, selectedPaths } from './views.js';

/** What a handle needs from its engine: one transaction at a time, and a way to record committed changes. */
export interface EngineServices {
  transaction<R>(fn: () => R): R;
  /** `time`: when the write happened (ISO 8601), when the caller stamped the document with it */
  /** `bytes`: the length of the stored JSON of `after`, when known */
  record(plural: string, name: string, before: Doc | null, after: Doc | null, time?: string, bytes?: number): number;
  log: ChangeLog;
  bus: ChangeBus;
  now(): Date;
}

const SYSTEM: OperationContext = { system: true };

/**
 * An edit of one document by the system. A method's type, so that its parameter is compared both ways like
 * every method's: a handle of one kind (ResourceHandle<Device>) is passed where any handle is taken
 * (ResourceHandle<Doc>, the generic routes and watches), which read documents but bring no edits of their own.
 */
export type DocumentEdit<T, R = T> = { edit(doc: T): R }['edit'];

/** All standard operations of one resource kind, driven by its definition. */
export class ResourceHandle<T extends Doc = Doc> {
  readonly fieldTree: FieldTree;
  /** paths only the system writes: the definition's plus metadata's own */
  readonly outputOnly: readonly string[];
  private readonly systemOwned: PathTree;

  constructor(
    readonly def: ResourceDefinition,
    readonly table: ResourceTable,
    readonly rules: ResourceRules,
    private readonly engine: EngineServices,
  ) {
    this.fieldTree = fieldTreeFromZod(def.schema);
    this.outputOnly = [...META_OUTPUT_ONLY, ...def.outputOnly];
    this.systemOwned = systemOwnedPaths(this.outputOnly);
  }

  get engineLog(): ChangeLog {
    return this.engine.log;
  }

  /** Follows committed changes of this kind; returns the unsubscribe function. */
  subscribe(listener: (change: Change<T>) => void): () => void {
    // the bus carries this kind's stored documents: what `typed` trusts, without a copy of each change
    return this.engine.bus.subscribe(this.def.plural, listener as ChangeListener);
  }

  // ---- names -------------------------------------------------------------------------------------------

  /** The pattern a full name belongs to, or INVALID_ARGUMENT naming the id that is wrong and its rule. */
  patternOfName(name: string): NamePattern {
    const pattern = this.def.patterns.find((p) => p.parse(name) !== null);
    if (!pattern) throw invalidArgument(this.nameProblem(name)?.message ?? `invalid ${this.def.singular} name`);
    return pattern;
  }

  /** The pattern a parent belongs to (wildcards only where allowed), or INVALID_ARGUMENT naming what is wrong. */
  patternOfParent(parent: string, allowWildcards: boolean): NamePattern {
    if (!allowWildcards && isWildcardParent(parent)) {
      throw invalidArgument(`parent "${parent}" may not contain a "-" wildcard here`);
    }
    const pattern = this.def.patterns.find((p) => (p.parentTemplate === '' ? parent === '' : p.parseParent(parent)));
    if (!pattern) throw invalidArgument(this.parentProblem(parent)?.message ?? `invalid parent "${parent}"`);
    return pattern;
  }

  /** Why `name` is no name of this kind, as a whole message (null when it is one). */
  nameProblem(name: string): NameProblem | null {
    const problem = nameProblemAmong(this.def.patterns, name);
    return problem && { ...problem, message: `invalid ${this.def.singular} name "${name}": ${problem.message}` };
  }

  /** Why `parent` is no parent of this kind's collection, as a whole message (null when it is one). */
  parentProblem(parent: string): NameProblem | null {
    const problem = parentProblemAmong(this.def.patterns, parent);
    return problem && { ...problem, message: `invalid parent "${parent}" for ${this.def.plural}: ${problem.message}` };
  }

  parseMask(mask: MaskInput): string[] {
    return parseFieldMask(mask, this.fieldTree);
  }

  // ---- reads -------------------------------------------------------------------------------------------

  /** The stored document, or undefined. */
  find(name: string): T | undefined {
    const row = this.table.find(name);
    return row && this.typed(row.doc);
  }

  // The row reads below type their documents as T for the reason `typed` gives: this table holds only them.

  /** The stored row (its id and document), or undefined: to hold for a later mergeRows or patchRow. */
  findRow(name: string): StoredRow<T> | undefined {
    return this.table.find(name) as StoredRow<T> | undefined;
  }

  /** `findRow`, to be taken later: on PostgreSQL queued with the transaction's next round trip (see ResourceTable). */
  findRowLater(name: string): () => StoredRow<T> | undefined {
    return this.table.findLater(name) as () => StoredRow<T> | undefined;
  }

  /** The stored rows of many names (absent ones are left out). */
  findRows(names: Iterable<string>): Map<string, StoredRow<T>> {
    return this.table.findMany(names) as Map<string, StoredRow<T>>;
  }

  /** The stored rows an engine query selects (see resource-query.ts), in its order. */
  query(query: ResourceQuery = {}): QueriedRow<T>[] {
    return this.table.query(this.compile(query)) as QueriedRow<T>[];
  }

  /** `query`, to be taken later: on PostgreSQL queued with the transaction's next round trip (see ResourceTable). */
  queryLater(query: ResourceQuery = {}): () => QueriedRow<T>[] {
    return this.table.queryLater(this.compile(query)) as () => QueriedRow<T>[];
  }

  /** The documents an engine query selects, in its order. */
  list(query: ResourceQuery = {}): T[] {
    return this.query(query).map((row) => this.typed(row.doc));
  }

  /** The names an engine query selects, in name order, without reading the documents. */
  names(query: Omit<ResourceQuery, 'orderBy'> = {}): string[] {
    const names: string[] = [];
    this.table.eachStored(this.compile(query), (row) => names.push(String(row.keyValues[0])));
    return names;
  }

  /** How many documents an engine query selects. */
  count(query: Pick<ResourceQuery, 'where'> = {}): number {
    return this.table.count(this.compile(query).where);
  }

  /**
   * Moves with every write of this kind (and when a rollback undid some): a value computed from what is
   * stored is still current while this has not moved, and rows read earlier may be written over.
   */
  get version(): number {
    return this.table.version;
  }

  /** A value derived from every stored document, kept in memory and up to date with every write. */
  project<R>(derive: (doc: T, id: number) => R): RowProjection<R> {
    return new RowProjection(this.table, (doc, id) => derive(this.typed(doc), id));
  }

  /** The distinct values the stored documents hold (`valuesOf` each), kept up to date with every write. */
  countValues(valuesOf: (doc: T) => readonly string[]): ValueCounts {
    return new ValueCounts(this.table, (doc) => valuesOf(this.typed(doc)));
  }

  /** An engine query as this kind's table reads it: for the engine's own operations (list-operation.ts). */
  tableQuery(query: ResourceQuery): TableQuery {
    return this.compile(query);
  }

  private compile(query: ResourceQuery): TableQuery {
    return tableQueryOf((parent, wildcards) => this.patternOfParent(parent, wildcards), query);
  }

  get(req: GetRequest): Doc {
    this.patternOfName(req.name);
    const doc = this.find(req.name);
    if (!doc) throw notFound(`${this.def.singular} "${req.name}" not found`);
    return present(doc, selectedPaths(this.def, req.view, this.parseMask(req.fieldMask)));
  }

  batchGet(req: BatchGetRequest): { found: Doc[]; missing: string[] } {
    if (req.names.length > 1000) throw invalidArgument('batchGet takes at most 1000 names');
    const paths = selectedPaths(this.def, req.view, this.parseMask(req.fieldMask));
    const found: Doc[] = [];
    const missing: string[] = [];
    for (const name of req.names) {
      this.patternOfName(name);
      const doc = this.find(name);
      if (doc) found.push(present(doc, paths));
      else missing.push(name);
    }
    return { found, missing };
  }

  // ---- user writes -------------------------------------------------------------------------------------

  create(req: CreateRequest, ctx: OperationContext = {}): Doc {
    const pattern = this.patternOfParent(req.parent, false);
    const body = this.withoutOutputOnly(asDocument(req.resource, `${this.def.singular} body`));
    const name = this.nameForCreate(pattern, req.parent, body['name']);
    const created = this.engine.transaction(() => this.insertValidated(name, pattern, { ...body, name }, ctx));
    return this.respond(created, req.responseMask, undefined);
  }

  /**
   * Creates every request as `create` would (validation, name rules, the kind's rules and hooks, one change each,
   * in order) in one transaction: all or nothing, the first refusal answers. Whether the names are free is read
   * in one look for all of them, not once per resource: on PostgreSQL a create then costs no round trip of its own.
   */
  createMany(reqs: readonly CreateRequest[], ctx: OperationContext = {}): Doc[] {
    const prepared = reqs.map((req) => {
      const pattern = this.patternOfParent(req.parent, false);
      const body = this.withoutOutputOnly(asDocument(req.resource, `${this.def.singular} body`));
      return { pattern, body, name: this.nameForCreate(pattern, req.parent, body['name']) };
    });
    const names = new Set<string>();
    for (const { name } of prepared) {
      if (names.has(name)) throw invalidArgument(`${this.def.singular} "${name}" is created twice in one batch`);
      names.add(name);
    }
    const created = this.engine.transaction(() => {
      const taken = this.table.findMany(names).keys().next();
      if (!taken.done) throw alreadyExists(`${this.def.singular} "${taken.value}" already exists`);
      return prepared.map(({ pattern, body, name }) => this.insertNew(name, pattern, { ...body, name }, ctx));
    });
    return created.map((doc, i) => this.respond(doc, reqs[i]!.responseMask, undefined));
  }

  update(req: UpdateRequest, ctx: OperationContext = {}): Doc {
    const body = asDocument(req.resource, `${this.def.singular} body`);
    const name = req.name ?? body['name'];
    if (typeof name !== 'string' || name === '') throw invalidArgument(`${this.def.singular} name is required`);
    if (body['name'] !== undefined && body['name'] !== name) {
      throw invalidArgument(`body name "${String(body['name'])}" does not match "${name}"`);
    }
    const pattern = this.patternOfName(name);
    const requested = req.updateMask === undefined ? [] : this.writableMask(req.updateMask);
    const mask = requested.length > 0 ? requested : undefined; // an empty mask means a full replace
    const casPaths = req.cas ? this.parseMask(req.cas.fieldMask) : [];

    let changed: string[] = [];
    const result = this.engine.transaction(() => {
      const stored = this.find(name);
      if (!stored) {
        if (!req.allowMissing) throw notFound(`${this.def.singular} "${name}" not found`);
        return this.insertValidated(name, pattern, { ...this.withoutOutputOnly(body), name }, ctx);
      }
      if (req.cas) this.checkCas(stored, req.cas.conditionalState, casPaths);
      const candidate = mask
        ? this.keepOutputOnly(stored, applyUpdateMask(stored, body, mask))
        : this.replaceWritable(stored, body);
      this.checkImmutable(stored, candidate);
      this.validate(candidate);
      const next = this.rules.beforeUpdate?.(stored, candidate, ctx) ?? candidate;
      const written = this.write(stored, next);
      if (written !== stored) this.rules.afterUpdate?.(stored, written, ctx);
      changed = changedPaths(stored, written);
      return written;
    });
    return this.respond(result, req.responseMask, changed);
  }

  delete(req: DeleteRequest, ctx: OperationContext = {}): void {
    this.patternOfName(req.name);
    this.engine.transaction(() => {
      const stored = this.find(req.name);
      if (!stored) {
        if (req.allowMissing) return;
        throw notFound(`${this.def.singular} "${req.name}" not found`);
      }
      this.rules.beforeDelete?.(stored, ctx);
      this.removeStored(stored);
      this.rules.afterDelete?.(stored, ctx);
    });
  }

  // ---- system writes (the control plane's own bookkeeping; no user restrictions) ----------------------

  /** Creates or replaces a document as the system; returns what is stored. */
  put(doc: T): T {
    const name = doc['name'];
    if (typeof name !== 'string') throw invalidArgument(`${this.def.singular} name is required`);
    const pattern = this.patternOfName(name);
    const stored = this.engine.transaction(() => {
      const row = this.table.find(name);
      if (!row) return this.insertValidated(name, pattern, doc, SYSTEM);
      return this.write(row.doc, this.keepSystemMeta(row.doc, doc), row);
    });
    return this.typed(stored);
  }

  /** Applies `mutate` to a stored document as the system; returns the stored result, or undefined when absent. */
  patch(name: string, mutate: DocumentEdit<T, T | void>): T | undefined {
    return this.engine.transaction(() => {
      const row = this.table.find(name);
      if (!row) return undefined;
      const draft = this.typed(clone(row.doc));
      const next = mutate(draft) ?? draft;
      return this.typed(this.write(row.doc, this.keepSystemMeta(row.doc, next), row));
    });
  }

  /**
   * Applies many pure edits as the system in one transaction (no savepoint per document): the status path of
   * thousands of agents. Each edit returns the new document (it must not change its argument).
   */
  patchAll(edits: Iterable<readonly [string, DocumentEdit<T>]>): void {
    const all = [...edits];
    this.engine.transaction(() => {
      // read together (one round trip on PostgreSQL), then each edit over what the one before it stored
      const rows = this.table.findMany(all.map(([name]) => name));
      for (const [name, edit] of all) {
        const row = rows.get(name);
        if (!row) continue;
        const stored = this.write(row.doc, this.keepSystemMeta(row.doc, edit(this.typed(row.doc))), row);
        rows.set(name, { id: row.id, doc: stored });
      }
    });
  }

  /**
   * Sets top-level members of rows the caller read from this handle's table (`table.query`, `table.findMany`)
   * earlier in the same transaction, as the system: the edit `doc => ({ ...doc, ...fields })`. The caller must
   * make sure the rows are still what is stored: none of them written since they were read (as long as
   * `table.version` has not moved, none was). Knowing which members a write may change, it compares, stamps
   * and indexes only those: the path of recomputes that rewrite tens of thousands of documents. Rows are
   * written in name order: the new entries of the (column, parent, name) indexes then mostly go next to each
   * other rather than all over each index, which makes large writes much cheaper.
   */
  mergeRows(entries: Iterable<readonly [StoredRow, Doc]>): void {
    const ordered = inNameOrder([...entries]);
    this.engine.transaction(() => {
      const now = this.engine.now().toISOString(); // one call: its writes happen at one time
      for (const [row, fields] of ordered) this.writeMerged(row, fields, now);
    });
  }

  /** Applies a pure edit as the system to a row read earlier in the transaction (see mergeRows); returns it. */
  patchRow(row: StoredRow, edit: DocumentEdit<T>): T {
    const stored = this.engine.transaction(() =>
      this.write(row.doc, this.keepSystemMeta(row.doc, edit(this.typed(row.doc))), row),
    );
    return this.typed(stored);
  }

  /** Whether a resource of this name is stored (without reading it). */
  exists(name: string): boolean {
    return this.table.exists(name);
  }

  /** Removes a document as the system; false when it was absent. */
  remove(name: string): boolean {
    return this.engine.transaction(() => {
      const row = this.table.find(name);
      if (!row) return false;
      this.table.remove(row.id, name);
      this.engine.record(this.def.plural, name, row.doc, null);
      return true;
    });
  }

  // ---- internals ---------------------------------------------------------------------------------------

  /**
   * A stored document as this kind's type: the one place the handle trusts its storage instead of parsing.
   * Every document of this kind was written through a handle of it: user writes pass `def.schema`, system
   * writes are typed as T. Parsing each read with the schema would cost every list and status write.
   */
  private typed(doc: Doc): T {
    return doc as T;
  }

  private nameForCreate(pattern: NamePattern, parent: string, requested: unknown): string {
    if (requested === undefined || requested === '') return pattern.nameInParent(parent, generateId(this.def.idRule));
    if (typeof requested !== 'string') throw invalidArgument(`${this.def.singular} name must be a string`);
    const own = this.patternOfName(requested);
    if (own !== pattern || (pattern.parentOf(requested) ?? '') !== parent) {
      throw invalidArgument(`name "${requested}" is not in parent "${parent}"`);
    }
    return requested;
  }

  private insertValidated(name: string, pattern: NamePattern, doc: Doc, ctx: OperationContext): Doc {
    if (this.table.exists(name)) throw alreadyExists(`${this.def.singular} "${name}" already exists`);
    return this.insertNew(name, pattern, doc, ctx);
  }

  /** Inserts a document under a name the caller has found free in this transaction. */
  private insertNew(name: string, pattern: NamePattern, doc: Doc, ctx: OperationContext): Doc {
    this.validate(doc);
    const now = this.engine.now().toISOString();
    const stamped = stampMetadata(undefined, doc, now, this.engine.log.head() + 1, true);
    const final = this.derived(this.rules.beforeCreate?.(stamped, ctx) ?? stamped);
    const text = JSON.stringify(final);
    this.table.insert(name, pattern.parentOf(name) ?? '', final, text);
    this.engine.record(this.def.plural, name, null, final, now, text.length);
    this.rules.afterCreate?.(final, ctx);
    return final;
  }

  /**
   * Writes `next` over `stored` unless nothing changed; returns what is stored. `row`: the stored row when
   * the caller has just read it (else it is read here, since rules may have written meanwhile).
   */
  private write(stored: Doc, proposed: Doc, row?: StoredRow): Doc {
    const next = this.derived(proposed);
    if (sameDocument(stored, next)) return stored;
    const now = this.engine.now().toISOString();
    const spec = specChanged(stored, next, this.systemOwned);
    const stamped = stampMetadata(stored, next, now, this.engine.log.head() + 1, spec);
    const current = row ?? this.table.find(stored['name'] as string);
    if (current === undefined) throw notFound(`${this.def.singular} "${String(stored['name'])}" not found`);
    const text = JSON.stringify(stamped);
    this.table.update(current.id, stamped, text, current.doc);
    this.engine.record(this.def.plural, stamped['name'] as string, stored, stamped, now, text.length);
    return stamped;
  }

  private writeMerged(row: StoredRow, proposed: Doc, now: string): void {
    const stored = row.doc;
    for (const key of Object.keys(proposed)) {
      if (key === 'name' || key === 'metadata') throw new Error(`mergeRows cannot set "${key}"`);
    }
    const fields = this.derivedMembers(stored, proposed);
    const changed: string[] = [];
    for (const key of Object.keys(fields)) {
      if (!sameDocument(stored[key], fields[key])) changed.push(key);
    }
    if (changed.length === 0) return;
    const spec = specChangedIn(stored, () => ({ ...stored, ...fields }), changed, this.systemOwned);
    const metadata = stampedMetadata(stored, stored['metadata'], now, this.engine.log.head() + 1, spec);
    // members that kept their value stay the stored objects: the change log's diff then skips them unwalked
    const stamped: Doc = { ...stored, metadata };
    for (const key of changed) stamped[key] = fields[key];
    const text = JSON.stringify(stamped);
    this.table.update(row.id, stamped, text, stored, new Set([...changed, 'metadata']));
    this.engine.record(this.def.plural, stamped['name'] as string, stored, stamped, now, text.length);
  }

  /** The document with the definition's derived fields (itself when it has none). */
  private derived(doc: Doc): Doc {
    return this.def.derive ? this.def.derive(doc) : doc;
  }

  /** The top-level members a merge of `fields` into `stored` sets, derived fields included. */
  private derivedMembers(stored: Doc, fields: Doc): Doc {
    if (!this.def.derive) return fields;
    const merged = this.def.derive({ ...stored, ...fields });
    const members: Doc = { ...fields };
    for (const key of Object.keys(merged)) {
      if (key !== 'name' && key !== 'metadata' && merged[key] !== stored[key]) members[key] = merged[key];
    }
    return members;
  }

  /**
   * Stores the derived fields of documents written before the definition derived them (or derived them
   * otherwise), without stamping them as changes: a migration, run when the table is opened.
   */
  rederiveStored(): number {
    const derive = this.def.derive;
    if (!derive) return 0;
    let rewritten = 0;
    this.engine.transaction(() => {
      const rows: { id: number; doc: Doc }[] = [];
      this.table.each({ where: [], keys: [{ key: 'id', desc: false }] }, (row) => {
        const next = derive(row.doc);
        if (next !== row.doc && !sameDocument(next, row.doc)) rows.push({ id: row.id, doc: next });
      });
      for (const { id, doc } of rows) {
        const before = this.table.find(String(doc['name']))?.doc;
        this.table.update(id, doc, JSON.stringify(doc), before);
        rewritten++;
      }
    });
    return rewritten;
  }

  private removeStored(stored: Doc): void {
    const row = this.table.find(stored['name'] as string);
    if (!row) return;
    this.table.remove(row.id, stored['name'] as string);
    this.engine.record(this.def.plural, stored['name'] as string, stored, null);
  }

  private validate(doc: Doc): void {
    const result = this.def.schema.safeParse(doc);
    if (!result.success) {
      const problems = result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
      throw invalidArgument(`invalid ${this.def.singular}: ${problems}`);
    }
  }

  private writableMask(mask: MaskInput): string[] {
    const paths = this.parseMask(mask);
    for (const path of paths) {
      if (path === 'name') throw invalidArgument('field "name" cannot be updated');
      const owned = this.outputOnly.find((o) => isAtOrUnder(path, o));
      if (owned) throw invalidArgument(`field "${path}" is output only and cannot be written`);
    }
    return paths;
  }

  private withoutOutputOnly(body: Doc): Doc {
    const copy = clone(body);
    for (const path of this.outputOnly) deletePath(copy, path);
    return copy;
  }

  /** Output-only paths always keep their stored values. */
  private keepOutputOnly(stored: Doc, candidate: Doc): Doc {
    const next = clone(candidate);
    for (const path of this.outputOnly) {
      const value = getPath(stored, path);
      if (value === undefined) deletePath(next, path);
      else setPath(next, path, clone(value));
    }
    next['name'] = stored['name'];
    return next;
  }

  /** An update without a mask replaces every writable field (spec 000 Endpoints rule 2). */
  private replaceWritable(stored: Doc, body: Doc): Doc {
    return this.keepOutputOnly(stored, this.withoutOutputOnly(body));
  }

  private keepSystemMeta(stored: Doc, next: Doc): Doc {
    // the usual system edit copies the document and leaves its metadata (the same object) alone
    if (next['metadata'] === stored['metadata'] && next['name'] === stored['name']) return next;
    const meta = { ...memberDocument(next, 'metadata') };
    const previous = memberDocument(stored, 'metadata');
    for (const key of ['createTime', 'updateTime', 'uuid', 'generation', 'resourceVersion']) {
      if (previous[key] === undefined) delete meta[key];
      else meta[key] = previous[key];
    }
    return { ...next, name: stored['name'], metadata: meta };
  }

  private checkImmutable(stored: Doc, candidate: Doc): void {
    for (const path of this.def.immutable ?? []) {
      if (!sameDocument(getPath(stored, path), getPath(candidate, path))) {
        throw invalidArgument(`field "${path}" cannot be changed after creation`);
      }
    }
  }

  private checkCas(stored: Doc, conditionalState: unknown, paths: string[]): void {
    if (paths.length === 0) throw invalidArgument('cas.fieldMask must name at least one field');
    const expected = asDocument(conditionalState ?? {}, 'cas.conditionalState');
    for (const path of paths) {
      if (!looselyEqual(getPath(stored, path), getPath(expected, path))) {
        throw aborted(`compare-and-swap failed: "${path}" has changed`);
      }
    }
  }

  private respond(doc: Doc, mask: ResponseMask | undefined, changed: string[] | undefined): Doc {
    if (!mask) return doc;
    if (mask.skipEntireResponseBody) return {};
    if (mask.updatedFieldsOnly && changed) return projectFields(doc, ['name', ...changed]);
    const bodyMask = this.parseMask(mask.bodyMask);
    return bodyMask.length > 0 ? projectFields(doc, bodyMask) : doc;
  }
}

/** Rows to merge sorted by name (callers mostly pass them in that order already: then they are only checked). */
function inNameOrder(entries: (readonly [StoredRow, Doc])[]): (readonly [StoredRow, Doc])[] {
  const names = entries.map(([row]) => String(row.doc['name']));
  if (names.every((name, i) => i === 0 || names[i - 1]! <= name)) return entries;
  const order = names.map((_, i) => i).sort((a, b) => (names[a]! < names[b]! ? -1 : names[a]! > names[b]! ? 1 : 0));
  return order.map((i) => entries[i]!);
}
