import { filterToSql, parseFilter, parseOrderBy, planAssignmentRequestDefinition } from '@outpost/shared';
import type { SqlFragment } from '@outpost/shared';
import type { CollectionQuery } from '../../resources/collection-query.js';
import type { CustomMethod } from '../../resources/http/custom-method.js';
import { asBoolean, asInteger, asString, only } from '../../resources/http/query-params.js';
import { pageSizeOf, pagingInfo, readPage } from '../../resources/list-operation.js';
import { decodePageToken, queryFingerprint } from '../../resources/page-token.js';
import type { SortKey } from '../../resources/resource-table.js';
import { parseView, present, selectedPaths } from '../../resources/views.js';
import { column, type LimitsContext } from '../context.js';

export const LIST_APPROVER_PERMISSION = `services/${planAssignmentRequestDefinition.service}/permissions/approverPlanAssignmentRequests.list`;

/**
 * ListApproverPlanAssignmentRequests (GET /v1/planAssignmentRequests:listApprover): the requests an approver
 * concludes, across every project and organization, answered as ListPlanAssignmentRequests answers (filter,
 * order_by, paging, field mask, view). Without `approver` (service-level privileges) it lists every request.
 */
export function listApproverMethod(ctx: LimitsContext): CustomMethod {
  return {
    plural: 'planAssignmentRequests',
    verb: 'listApprover',
    scope: 'root',
    httpMethod: 'GET',
    permission: LIST_APPROVER_PERMISSION,
    // checked on the approver named in the request, so an organization-scoped key can list its own queue
    authorizeOn: ({ query }) =>
      typeof query['approver'] === 'string' && query['approver'] !== '' ? query['approver'] : '*',
    handle: (call) => {
      const handle = ctx.h.requests;
      const q = only(call.query, [
        'approver',
        'pageSize',
        'pageToken',
        'orderBy',
        'filter',
        'fieldMask',
        'view',
        'includePagingInfo',
      ]);
      const approver = asString(q.approver, 'approver') ?? '';
      const filter = parseFilter(asString(q.filter, 'filter') ?? '', handle.def.filterSchema);
      const order = parseOrderBy(asString(q.orderBy, 'orderBy'), handle.def.filterSchema);
      const where: SqlFragment[] = [];
      if (approver !== '') where.push({ sql: `${column(handle, 'approver')} = ?`, params: [approver] });
      const filterSql = filterToSql(filter, handle.table.sqlTarget);
      if (filterSql.sql !== '1') where.push(filterSql);
      const keys: SortKey[] = [];
      for (const term of order) {
        if (term.field.path === 'name') continue;
        const sql = handle.table.sqlTarget.scalar(term.field);
        keys.push({ sql: `(${sql} IS NOT NULL)`, desc: term.desc }, { sql, desc: term.desc });
      }
      keys.push({ sql: 'name', desc: order.find((t) => t.field.path === 'name')?.desc ?? false });
      const fingerprint = queryFingerprint([
        'planAssignmentRequests:listApprover',
        approver,
        filter.text,
        order.map((t) => [t.field.path, t.desc]),
      ]);
      const query: CollectionQuery = { parent: '', filter, where, keys, fingerprint, inParent: () => true };
      const pageToken = asString(q.pageToken, 'pageToken');
      const position = pageToken ? decodePageToken(pageToken, fingerprint) : undefined;
      const page = readPage(handle, query, position, pageSizeOf(asInteger(q.pageSize, 'pageSize')));
      const fieldMask = asString(q.fieldMask, 'fieldMask');
      const paths = selectedPaths(handle.def, parseView(q.view), handle.parseMask(fieldMask));
      return {
        planAssignmentRequests: page.rows.map((row) => present(row.doc, paths)),
        prevPageToken: page.prevPageToken,
        nextPageToken: page.nextPageToken,
        ...(asBoolean(q.includePagingInfo, 'includePagingInfo') ? pagingInfo(handle, query, page) : {}),
      };
    },
  };
}
