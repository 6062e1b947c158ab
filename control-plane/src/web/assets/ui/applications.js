/** The device's applications (pods whose spec.node is the device), each with a menu holding Restart. */
import { summarizePod } from '../api/device-view.js';
import { confirmDialog, h, menu, show, table } from './dom.js';

/**
 * @param {HTMLElement} card
 * @param {import('./context.js').Context} ctx
 * @param {string} device
 */
export async function renderApplications(card, ctx, device) {
  const messages = h('div');
  card.replaceChildren(h('h2', {}, 'Applications'), messages);
  try {
    const pods = (await ctx.client.listPods(device)).map(summarizePod);
    if (pods.length === 0) {
      card.append(h('p', { class: 'muted' }, 'No application runs on this device.'));
      return;
    }
    card.append(
      table(
        ['Application', 'Phase', 'Services', ''],
        pods.map((pod) => [
          pod.id,
          pod.phase,
          pod.services,
          menu('Actions', [{ label: 'Restart', run: () => void restart(ctx, messages, pod.name) }]),
        ]),
      ),
    );
  } catch (err) {
    show(messages, 'error', err);
  }
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
