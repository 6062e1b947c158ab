/**
 * The device's applications (pods whose spec.node is the device), live (a stateful watch of its pods), each with
 * a menu holding Restart.
 */
import { quote } from '../api/client.js';
import { summarizePod } from '../api/device-view.js';
import { StatefulPage } from '../api/live-collections.js';
import { collectionPath, regionOf } from '../api/paths.js';
import { confirmDialog, h, menu, show, table } from './dom.js';

/**
 * @param {HTMLElement} card
 * @param {import('./context.js').Context} ctx
 * @param {string} device
 */
export function renderApplications(card, ctx, device) {
  const messages = h('div');
  const list = h('div', {}, h('p', { class: 'muted' }, 'Loading the applications…'));
  card.replaceChildren(h('h2', {}, 'Applications'), messages, list);
  const page = new StatefulPage('pod');
  const draw = () => {
    const pods = page.rows.map(summarizePod);
    list.replaceChildren(
      pods.length === 0
        ? h('p', { class: 'muted' }, 'No application runs on this device.')
        : table(
            ['Application', 'Phase', 'Services', ''],
            pods.map((pod) => [
              pod.id,
              pod.phase,
              pod.services,
              menu('Actions', [{ label: 'Restart', run: () => void restart(ctx, messages, pod.name) }]),
            ]),
          ),
    );
  };
  ctx.live.open(`${collectionPath(regionOf(device), 'pods')}:watch`, {
    reopenBody: () => ({ type: 'STATEFUL', filter: `spec.node = ${quote(device)}`, pageSize: 1000 }),
    onOpen: () => page.reset(),
    onMessage: (message) => {
      page.apply(message);
      if (page.loaded) draw();
    },
    onState: (state, error) => {
      if (state === 'failed') show(messages, 'error', error);
    },
  });
}

/**
 * @param {import('./context.js').Context} ctx
 * @param {Element} messages
 * @param {string} pod
 */
async function restart(ctx, messages, pod) {
  if (
    !(await confirmDialog(
      `Restart ${pod}?`,
      'Every service of the application is stopped and started again.',
      'Restart',
    ))
  )
    return;
  try {
    await ctx.client.restartPod(pod);
    show(messages, 'ok', `Restarted ${pod}.`);
  } catch (err) {
    show(messages, 'error', err);
  }
}
