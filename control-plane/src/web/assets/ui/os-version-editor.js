/** Edit detail → choose an OS version from the catalog → Save (PUT with updateMask=spec.osVersion). */
import { versionChoices } from '../api/device-view.js';
import { busy, h, show } from './dom.js';

/**
 * @param {Element} area
 * @param {import('./context.js').Context} ctx
 * @param {import('../api/device-view.js').DeviceSummary} summary
 * @param {{ saved: () => void, cancelled: () => void }} done
 */
export async function renderOsVersionEditor(area, ctx, summary, done) {
  const messages = h('div');
  area.replaceChildren(messages, h('p', { class: 'muted' }, 'Loading the OS version catalog…'));
  /** @type {ReturnType<typeof versionChoices>} */
  let choices;
  try {
    choices = versionChoices(await ctx.client.listOsVersions(summary.deviceType || undefined));
  } catch (err) {
    area.replaceChildren(messages, h('button', { type: 'button', onclick: done.cancelled }, 'Close'));
    show(messages, 'error', err);
    return;
  }
  const select = h(
    'select',
    { name: 'osVersion' },
    choices.map((c) =>
      h(
        'option',
        { value: c.version, selected: c.version === summary.wantedOsVersion },
        [
          c.version,
          c.version === summary.runningOsVersion ? 'running' : '',
          c.version === summary.retainedOsVersion && c.version !== summary.runningOsVersion
            ? 'retained (the rollback slot)'
            : '',
          c.channel,
          c.minimumPreviousVersion ? `needs ≥ ${c.minimumPreviousVersion}` : '',
        ]
          .filter(Boolean)
          .join(' · '),
      ),
    ),
  );
  const save = h('button', { type: 'submit', class: 'primary', disabled: choices.length === 0 }, 'Save');
  const form = h(
    'form',
    { class: 'inline' },
    h('label', {}, `OS version${summary.deviceType ? ` (published for ${summary.deviceType})` : ''}`, select),
    save,
    h('button', { type: 'button', onclick: done.cancelled }, 'Cancel'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(save, async () => {
      try {
        await ctx.client.setOsVersion(summary.name, select.value);
        done.saved();
      } catch (err) {
        show(messages, 'error', err);
      }
    });
  });
  area.replaceChildren(
    messages,
    choices.length === 0 ? h('p', { class: 'muted' }, 'The catalog holds no OS version for this device type.') : '',
    form,
  );
}
