import { planAssignmentRequestDefinition } from '@outpost/shared';
import type { CustomMethod } from '../../resources/http/custom-method.js';
import { asBoolean, asInteger, asString, only } from '../../resources/http/query-params.js';
import { listNarrowed } from '../../resources/list-operation.js';
import { where } from '../../resources/resource-query.js';
import { parseView } from '../../resources/views.js';
import type { LimitsContext } from '../context.js';

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
    openApi: {
      description:
        'The plan assignment requests an approver concludes, across every project and organization, answered ' +
        'as the list of planAssignmentRequests answers; the permission is checked on the approver.',
      answersAsList: true,
      queryParameters: [
        {
          name: 'approver',
          description: 'The approver (`services/<service>` or `organizations/<id>`); without it, every request.',
          schema: { type: 'string' },
        },
      ],
    },
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
      const { items, ...paging } = listNarrowed(
        handle,
        {
          filter: asString(q.filter, 'filter'),
          orderBy: asString(q.orderBy, 'orderBy'),
          pageToken: asString(q.pageToken, 'pageToken'),
          pageSize: asInteger(q.pageSize, 'pageSize'),
          fieldMask: asString(q.fieldMask, 'fieldMask'),
          view: parseView(q.view),
          includePagingInfo: asBoolean(q.includePagingInfo, 'includePagingInfo'),
        },
        {
          conditions: approver === '' ? [] : [where.equals('approver', approver)],
          key: ['planAssignmentRequests:listApprover', approver],
        },
      );
      return { planAssignmentRequests: items, ...paging };
    },
  };
}
