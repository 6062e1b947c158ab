/**
 * The limits page (spec 001) of an organization or a project: the plans of services/devices.outpost, the
 * entity's plan assignments, the requests waiting for it to approve (Accept, Decline with a reason), and its
 * pools (organizations) and limits (projects) with usage bars. Everything follows stateful watches: the pending
 * requests those of the requests filed under every project and organization for the approver (or of the project's
 * own). A key that may not watch those is shown `listApprover`'s answer instead, read again after each answer and
 * whenever a pool or limit changes.
 */

import { field } from '../api/device-view.js';
import { StatefulPage } from '../api/live-collections.js';
import { DashboardApiError } from '../api/errors.js';
import { collectionPath, idOf, queryString, resourcePath } from '../api/paths.js';
import { busy, h, show, table } from './dom.js';

const SERVICE = 'services/devices.outpost';
const ENTITY = /^(organizations|projects)\/[a-z][a-z0-9-]{0,28}[a-z0-9]$/;

/**
 * @param {Element} view
 * @param {import('./context.js').Context} ctx
 * @param {string} entity organizations/{o} or projects/{p} ('' until chosen)
 */
export function renderLimits(view, ctx, entity) {
  const messages = h('div');
  const input = h('input', {
    type: 'text',
    name: 'entity',
    value: entity,
    size: 34,
    placeholder: 'organizations/acme-corp',
  });
  const form = h(
    'form',
    { class: 'inline' },
    h('label', {}, 'Organization or project', input),
    h('button', { type: 'submit', class: 'primary' }, 'Show'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = input.value.trim();
    if (!ENTITY.test(chosen)) show(messages, 'error', `"${chosen}" is not organizations/{id} or projects/{id}`);
    else ctx.navigate({ screen: 'limits', organization: chosen });
  });
  const plans = h('section', { class: 'card' });
  const assignments = h('section', { class: 'card' });
  const requests = h('section', { class: 'card' });
  const usage = h('section', { class: 'card' });
  view.replaceChildren(h('section', { class: 'card' }, h('h1', {}, 'Limits'), form, messages));
  if (entity === '') return;
  if (!ENTITY.test(entity)) {
    show(messages, 'error', `"${entity}" is not organizations/{id} or projects/{id}`);
    return;
  }
  view.append(requests, usage, assignments, plans);
  const isOrganization = entity.startsWith('organizations/');

  live(ctx, plans, 'Plans of devices.outpost', SERVICE, 'plans', 'plan', (rows) =>
    table(
      ['Plan', 'Level', 'Tier', 'Allowances'],
      rows.map((p) => [
        idOf(p.name),
        text(p, 'planLevel'),
        text(p, 'businessTier'),
        allowances(field(p, 'resourceLimits')),
      ]),
    ),
  );
  live(ctx, assignments, `Plan assignments of ${entity}`, entity, 'planAssignments', 'planAssignment', (rows) =>
    table(
      ['Assignment', 'Plan', 'Regions', 'Extensions', 'Allowances'],
      rows.map((a) => [
        idOf(a.name),
        idOf(text(a, 'defaultRegionalPlan')),
        list(field(a, 'appliedRegions')),
        allowances(field(a, 'extensions')),
        allowances(field(a, 'allowances')),
      ]),
    ),
  );
  // only once the watches of the requests were refused: they show every change by themselves
  let readRequests = false;
  const refreshRequests = () => {
    if (readRequests) void drawRequests(ctx, requests, entity, isOrganization, refreshRequests);
  };
  followRequests(ctx, requests, entity, isOrganization, () => {
    readRequests = true;
    refreshRequests();
  });
  if (isOrganization) {
    live(ctx, usage, `Pools of ${entity}`, entity, 'limitPools', 'limitPool', (rows) => {
      refreshRequests();
      return table(
        ['Pool', 'Region', 'Reserved of size', ''],
        rows.map((p) => {
          const size = num(p, 'activeSize') ?? num(p, 'configuredSize') ?? 0;
          const reserved = num(p, 'reserved') ?? 0;
          return [
            idOf(p.name),
            text(p, 'region'),
            `${reserved} of ${size}`,
            bar(reserved, size, `${idOf(p.name)} reserved`),
          ];
        }),
      );
    });
  } else {
    live(ctx, usage, `Limits of ${entity}`, entity, 'limits', 'limit', (rows) => {
      refreshRequests();
      return table(
        ['Limit', 'Region', 'Usage of limit', ''],
        rows.map((l) => {
          const limit = num(l, 'activeLimit') ?? num(l, 'configuredLimit') ?? 0;
          const used = num(l, 'usage') ?? 0;
          return [idOf(l.name), text(l, 'region'), `${used} of ${limit}`, bar(used, limit, `${idOf(l.name)} usage`)];
        }),
      );
    });
  }
}

/**
 * A card following a stateful watch of one collection.
 * @param {import('./context.js').Context} ctx
 * @param {HTMLElement} card
 * @param {string} title
 * @param {string} parent
 * @param {string} plural
 * @param {string} singular
 * @param {(rows: (Record<string, unknown> & { name: string })[]) => HTMLElement} render
 */
function live(ctx, card, title, parent, plural, singular, render) {
  const messages = h('div');
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  card.replaceChildren(h('h2', {}, title), messages, body);
  const page = new StatefulPage(singular);
  ctx.live.open(`${collectionPath(parent, plural)}:watch`, {
    reopenBody: () => ({ type: 'STATEFUL', pageSize: 1000 }),
    onOpen: () => page.reset(),
    onMessage: (message) => {
      page.apply(message);
      if (!page.loaded) return;
      body.replaceChildren(page.rows.length === 0 ? h('p', { class: 'muted' }, 'None.') : render(page.rows));
    },
    onState: (state, error) => {
      if (state === 'failed') show(messages, 'error', error);
    },
  });
}

const PENDING = 'status.conclusion = "PENDING"';

/**
 * The PENDING requests an organization approves (those filed under every project and organization naming it as
 * approver) or a project filed, live, with Accept and Decline for an organization.
 * @param {import('./context.js').Context} ctx
 * @param {HTMLElement} card
 * @param {string} entity
 * @param {boolean} isOrganization
 * @param {() => void} refused called once when the key may not watch them
 */
function followRequests(ctx, card, entity, isOrganization, refused) {
  const messages = h('div', { class: 'messages' });
  const title = h('h2', {}, requestsTitle(entity, isOrganization));
  const body = h('div', {}, h('p', { class: 'muted' }, 'Loading…'));
  card.replaceChildren(title, messages, body);
  const watched = isOrganization
    ? ['projects/-', 'organizations/-'].map((parent) => ({
        parent,
        filter: `approver = ${JSON.stringify(entity)} AND ${PENDING}`,
      }))
    : [{ parent: entity, filter: PENDING }];
  const pages = watched.map(() => new StatefulPage('planAssignmentRequest'));
  /** @type {{ stop(): void }[]} */
  const streams = [];
  let gaveUp = false;
  const draw = () => {
    if (gaveUp || pages.some((page) => !page.loaded)) return;
    const pending = pages.flatMap((page) => page.rows).sort((a, b) => a.name.localeCompare(b.name));
    body.replaceChildren(requestTable(ctx, messages, pending, isOrganization ? entity : undefined, () => {}));
  };
  watched.forEach(({ parent, filter }, i) => {
    const page = /** @type {StatefulPage} */ (pages[i]);
    streams.push(
      ctx.live.open(`${collectionPath(parent, 'planAssignmentRequests')}:watch`, {
        reopenBody: () => ({ type: 'STATEFUL', pageSize: 1000, filter }),
        onOpen: () => page.reset(),
        onMessage: (message) => {
          page.apply(message);
          draw();
        },
        onState: (state, error) => {
          if (state !== 'failed' || gaveUp) return;
          if (error instanceof DashboardApiError && error.status === 'PERMISSION_DENIED') {
            gaveUp = true;
            for (const stream of streams) stream.stop();
            refused();
          } else show(messages, 'error', error);
        },
      }),
    );
  });
}

/**
 * @param {string} entity
 * @param {boolean} isOrganization
 * @returns {string}
 */
function requestsTitle(entity, isOrganization) {
  return isOrganization ? `Requests waiting for ${entity}` : `Pending requests of ${entity}`;
}

/**
 * @param {import('./context.js').Context} ctx
 * @param {Element} messages
 * @param {(Record<string, unknown> & { name: string })[]} pending
 * @param {string | undefined} approver Accept and Decline for this approver; none without
 * @param {() => void} answered
 * @returns {HTMLElement}
 */
function requestTable(ctx, messages, pending, approver, answered) {
  return pending.length === 0
    ? h('p', { class: 'muted' }, 'No pending request.')
    : table(
        ['Request', 'Asks', 'Why it waits', ''],
        pending.map((r) => [
          r.name,
          describeRequest(field(r, 'request')),
          text(r, 'status.reason'),
          approver ? answerControls(ctx, messages, r.name, approver, answered) : '',
        ]),
      );
}

/**
 * The requests an organization approves (or a project filed) that are PENDING, with Accept and Decline, as
 * `listApprover` (or the project's list) answers them now.
 * @param {import('./context.js').Context} ctx
 * @param {HTMLElement} card
 * @param {string} entity
 * @param {boolean} isOrganization
 * @param {() => void} refresh
 */
async function drawRequests(ctx, card, entity, isOrganization, refresh) {
  const messages = card.querySelector('.messages') ?? h('div', { class: 'messages' });
  const title = h('h2', {}, requestsTitle(entity, isOrganization));
  /** @type {(Record<string, unknown> & { name: string })[]} */
  let pending;
  try {
    const filter = PENDING;
    if (isOrganization) {
      const answer = await ctx.client.request(
        'GET',
        `/v1/planAssignmentRequests:listApprover${queryString({ approver: entity, filter, pageSize: 1000 })}`,
      );
      const list = answer['planAssignmentRequests'];
      pending = Array.isArray(list) ? list : [];
    } else pending = (await ctx.client.list(entity, 'planAssignmentRequests', { filter, pageSize: 1000 })).items;
  } catch (err) {
    card.replaceChildren(title, messages);
    show(messages, 'error', err);
    return;
  }
  card.replaceChildren(
    title,
    messages,
    requestTable(ctx, messages, pending, isOrganization ? entity : undefined, refresh),
  );
}

/**
 * @param {import('./context.js').Context} ctx
 * @param {Element} messages
 * @param {string} request
 * @param {string} approver
 * @param {() => void} refresh
 * @returns {HTMLElement}
 */
function answerControls(ctx, messages, request, approver, refresh) {
  const accept = h('button', { type: 'button', class: 'primary' }, 'Accept');
  const reason = h('input', {
    type: 'text',
    name: 'reason',
    placeholder: 'reason',
    size: 14,
    'aria-label': `Reason to decline ${idOf(request)}`,
  });
  const decline = h('button', { type: 'button', class: 'danger' }, 'Decline');
  /** @param {'accept' | 'decline'} verb */
  const answer = (verb) => async () => {
    try {
      await ctx.client.request('POST', resourcePath(request, verb), {
        approver,
        ...(verb === 'decline' ? { reason: reason.value.trim() || 'declined in the dashboard' } : {}),
      });
      show(messages, 'ok', `${verb === 'accept' ? 'Accepted' : 'Declined'} ${request}.`);
      refresh();
    } catch (err) {
      show(messages, 'error', err);
    }
  };
  accept.addEventListener('click', () => void busy(accept, answer('accept')));
  decline.addEventListener('click', () => void busy(decline, answer('decline')));
  return h('div', { class: 'row' }, accept, reason, decline);
}

/**
 * @param {unknown} request the request's `request` field (assign, extend or unassign)
 * @returns {string}
 */
function describeRequest(request) {
  const assign = field(request, 'assign');
  const extend = field(request, 'extend');
  if (assign) return `assign ${text(assign, 'plan')}${describeAllowances(field(assign, 'extensions'), ' with ')}`;
  if (extend) return `extend ${text(extend, 'assignment')}${describeAllowances(field(extend, 'additions'), ' by ')}`;
  const unassign = field(request, 'unassign');
  if (unassign) return `unassign ${text(unassign, 'assignment')}`;
  return '';
}

/**
 * @param {unknown} list
 * @param {string} prefix
 * @returns {string}
 */
function describeAllowances(list, prefix) {
  const text = allowances(list);
  return text ? `${prefix}${text}` : '';
}

/**
 * "devices 500 (eu), …" of a list of {resource, value, region?}.
 * @param {unknown} list
 * @returns {string}
 */
function allowances(list) {
  if (!Array.isArray(list)) return '';
  return list
    .map((a) => `${idOf(text(a, 'resource'))} ${text(a, 'value')}${text(a, 'region') ? ` (${text(a, 'region')})` : ''}`)
    .join(', ');
}

/**
 * @param {unknown} value
 * @returns {string}
 */
function list(value) {
  return Array.isArray(value) ? value.map(String).join(', ') : '';
}

/**
 * @param {number} value
 * @param {number} max
 * @param {string} label
 * @returns {HTMLElement}
 */
function bar(value, max, label) {
  return h('meter', {
    min: 0,
    max: Math.max(max, 1),
    value,
    high: Math.max(max, 1) * 0.9,
    'aria-label': label,
    title: `${value} of ${max}`,
  });
}

/**
 * @param {unknown} value
 * @param {string} path
 * @returns {string}
 */
function text(value, path) {
  const found = field(value, path);
  return typeof found === 'string' || typeof found === 'number' ? String(found) : '';
}

/**
 * @param {unknown} value
 * @param {string} path
 * @returns {number | undefined} int64 fields arrive as numbers or strings
 */
function num(value, path) {
  const found = field(value, path);
  const n = typeof found === 'string' ? Number(found) : found;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
}
