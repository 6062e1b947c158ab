/**
 * The rollouts page: choose a parent, an OS version of the catalog and the waves, then see the preflight, run the
 * next wave (or every wave) and halt. It runs the very rollout module the command line runs
 * (`shared/src/rollout`, `outpost devices rollout`): the waves are `wave:<name>` labels, each wave's devices are
 * written spec.osVersion, one stateless watch follows them, and each wave's counts (not targeted, in flight,
 * done, failed, offline) and failed devices with their reasons come from its events, live. Every rollout under the
 * parent, wherever it was started, is followed too (rollout-overview.js).
 */
import { OutpostClient } from '../../../../../shared/dist/client/outpost-client.js';
import { rolloutApiOf } from '../../../../../shared/dist/rollout/rollout-api.js';
import { runRollout } from '../../../../../shared/dist/rollout/rollout-driver.js';
import { parseFailureBudget } from '../../../../../shared/dist/rollout/failure-budget.js';
import { parseRolloutDuration } from '../../../../../shared/dist/rollout/duration.js';
import { parseWaveNames } from '../../../../../shared/dist/rollout/wave-labels.js';
import { versionChoices } from '../api/device-view.js';
import { parseParent } from '../api/paths.js';
import { confirmDialog, h, show, table } from './dom.js';
import { followRollouts } from './rollout-overview.js';

/** @typedef {import('../../../../../shared/dist/rollout/rollout-driver.js').RolloutEvent} RolloutEvent */
/** @typedef {import('../../../../../shared/dist/rollout/rollout-driver.js').WaveCounts} WaveCounts */
/** @typedef {{ counts?: WaveCounts, state: string, failures: { name: string, why: string }[] }} WaveView */

const COUNT_COLUMNS = /** @type {const} */ ([
  ['total', 'Devices'],
  ['notTargeted', 'Not targeted'],
  ['inFlight', 'In flight'],
  ['done', 'Done'],
  ['failed', 'Failed'],
  ['offline', 'Offline'],
]);

/**
 * @param {Element} view
 * @param {import('./context.js').Context} ctx
 * @param {string} parent
 */
export function renderRollouts(view, ctx, parent) {
  const messages = h('div');
  const parentInput = h('input', { type: 'text', name: 'parent', value: parent, size: 30 });
  const version = h('select', { name: 'version' }, h('option', { value: '' }, 'loading the catalog…'));
  const wavesInput = h('input', { type: 'text', name: 'waves', value: 'canary,early,main', size: 22 });
  const budgetInput = h('input', { type: 'text', name: 'maxFailures', placeholder: 'default', size: 8 });
  const soakInput = h('input', { type: 'text', name: 'soak', value: '0s', size: 6 });
  const preflightButton = h('button', { type: 'button' }, 'Preflight');
  const nextButton = h('button', { type: 'button', class: 'primary' }, 'Start next wave');
  const allButton = h('button', { type: 'button' }, 'Run every wave');
  const haltButton = h('button', { type: 'button', class: 'danger', disabled: true }, 'Halt');
  const status = h('p', { class: 'muted', role: 'status' }, 'Choose a version.');
  const wavesArea = h('div');
  const failuresArea = h('div');
  const log = h('ol', { class: 'event-log', tabindex: 0, 'aria-label': 'Rollout events, newest first' });
  const followed = h('section', { class: 'card' });
  view.replaceChildren(
    h(
      'section',
      { class: 'card' },
      h('h1', {}, 'Rollouts'),
      h(
        'form',
        { class: 'inline list-form', onsubmit: (event) => event.preventDefault() },
        h('label', {}, 'Parent', parentInput),
        h('label', {}, 'OS version', version),
        h('label', {}, 'Waves', wavesInput),
        h('label', {}, 'Max failures (N or P%)', budgetInput),
        h('label', {}, 'Soak', soakInput),
      ),
      h('div', { class: 'row' }, preflightButton, nextButton, allButton, haltButton),
      messages,
      status,
    ),
    h('section', { class: 'card' }, h('h2', {}, 'Waves'), wavesArea, failuresArea),
    h('section', { class: 'card' }, h('h2', {}, 'Events'), log),
    followed,
  );
  /** @type {(() => void) | undefined} */
  let stopFollowing;
  const follow = () => {
    stopFollowing?.();
    stopFollowing = undefined;
    const p = parseParent(parentInput.value);
    /** @type {string[] | undefined} */
    let waveNames;
    try {
      waveNames = parseWaveNames(wavesInput.value);
    } catch {
      waveNames = undefined;
    }
    if ('error' in p || !waveNames) {
      followed.replaceChildren(h('h2', {}, 'Rollouts'), h('p', { class: 'muted' }, FOLLOW_HINT));
      return;
    }
    stopFollowing = followRollouts(followed, ctx, p.parent, waveNames);
  };
  parentInput.addEventListener('change', follow);
  wavesInput.addEventListener('change', follow);
  follow();
  ctx.live.track({ state: 'live', stop: () => stopFollowing?.() });

  void ctx.client.listOsVersions().then(
    (all) =>
      version.replaceChildren(
        h('option', { value: '' }, 'choose…'),
        ...versionChoices(all).map((c) => h('option', { value: c.version }, c.version)),
      ),
    (err) => show(messages, 'error', err),
  );

  const client = new OutpostClient({
    server: location.origin,
    apiKey: ctx.apiKey,
    fetch: (url, init) => fetch(url, init),
  });
  const api = rolloutApiOf(client);
  /** @type {Map<string, WaveView>} */
  const waves = new Map();
  /** @type {AbortController | undefined} */
  let running;

  const drawWaves = () => {
    wavesArea.replaceChildren(
      waves.size === 0
        ? h('p', { class: 'muted' }, 'No rollout run yet on this page.')
        : table(
            ['Wave', ...COUNT_COLUMNS.map(([, label]) => label), 'State'],
            [...waves.entries()].map(([wave, w]) => [
              wave,
              ...COUNT_COLUMNS.map(([key]) => String(w.counts?.[key] ?? '')),
              w.state,
            ]),
          ),
    );
    const failures = [...waves.entries()].flatMap(([wave, w]) => w.failures.map((f) => [wave, f.name, f.why]));
    failuresArea.replaceChildren(
      failures.length === 0 ? '' : h('h3', {}, 'Failed devices'),
      failures.length === 0 ? '' : table(['Wave', 'Device', 'Why'], failures),
    );
  };
  /** @param {string} wave */
  const waveView = (wave) => {
    let w = waves.get(wave);
    if (!w) {
      w = { state: 'waiting', failures: [] };
      waves.set(wave, w);
    }
    return w;
  };
  /** @param {RolloutEvent} event */
  const onEvent = (event) => {
    if (event.event !== 'progress') {
      log.prepend(h('li', {}, `${new Date().toLocaleTimeString('en-GB')} ${describeEvent(event)}`));
      while (log.children.length > 30) log.lastElementChild?.remove();
    }
    if (event.event === 'preflight') {
      for (const p of event.waves) waveView(p.wave);
    } else if (event.event === 'waveSkipped') {
      Object.assign(waveView(event.wave), { counts: event.counts, state: event.why === 'done' ? 'through' : 'empty' });
    } else if (event.event === 'waveStarted') {
      Object.assign(waveView(event.wave), { counts: event.counts, state: 'running' });
    } else if (event.event === 'written') {
      waveView(event.wave).failures.push(...event.refused);
    } else if (event.event === 'progress') {
      waveView(event.wave).counts = event.counts;
    } else if (event.event === 'promoted') {
      Object.assign(waveView(event.wave), { counts: event.counts, state: 'promoted' });
    } else if (event.event === 'halted') {
      const w = waveView(event.wave);
      Object.assign(w, { counts: event.counts, state: `halted: ${event.reason}` });
      w.failures = [...event.failures];
    }
    drawWaves();
  };

  /** @returns {{ parent: string, version: string, waves: string[], budget?: import('../../../../../shared/dist/rollout/failure-budget.js').FailureBudget, soakMs: number } | undefined} */
  const options = () => {
    try {
      const p = parseParent(parentInput.value);
      if ('error' in p) throw new Error(p.error);
      if (version.value === '') throw new Error('choose an OS version');
      const budgetText = budgetInput.value.trim();
      return {
        parent: p.parent,
        version: version.value,
        waves: parseWaveNames(wavesInput.value),
        ...(budgetText ? { budget: parseFailureBudget(budgetText) } : {}),
        soakMs: parseRolloutDuration(soakInput.value.trim() || '0s'),
      };
    } catch (err) {
      show(messages, 'error', err);
      return undefined;
    }
  };

  /**
   * @param {'preflight' | 'next' | 'all'} mode
   */
  const run = async (mode) => {
    const chosen = options();
    if (!chosen) return;
    messages.replaceChildren();
    running = new AbortController();
    for (const b of [preflightButton, nextButton, allButton]) b.disabled = true;
    haltButton.disabled = mode === 'preflight';
    for (const w of waves.values()) w.failures = [];
    /** @param {string[]} waveList */
    const once = (waveList) =>
      runRollout(api, {
        ...chosen,
        waves: waveList,
        dryRun: mode === 'preflight',
        signal: running?.signal,
        onEvent,
        confirm: async (preflight) => {
          const toWrite = preflight.reduce((sum, p) => sum + p.toWrite, 0);
          if (toWrite === 0) return true;
          return confirmDialog(
            `Roll ${chosen.version} out?`,
            `${toWrite} device(s) of ${preflight.map((p) => p.wave).join(', ')} will be asked for ${chosen.version}.`,
            'Start',
          );
        },
      });
    try {
      // "next": the waves up to the first one not through yet (the module skips those the records show through)
      const slices = mode === 'next' ? chosen.waves.map((_, i) => chosen.waves.slice(0, i + 1)) : [chosen.waves];
      for (const waveList of slices) {
        const last = waveList.at(-1) ?? '';
        status.textContent = mode === 'preflight' ? 'Preflight…' : `Rolling ${chosen.version} out: ${last} wave…`;
        const outcome = await once(waveList);
        if (outcome.kind !== 'completed') {
          status.textContent = describeOutcome(outcome);
          return;
        }
        if (mode === 'next' && waves.get(last)?.state === 'promoted' && waveList.length < chosen.waves.length) {
          status.textContent = `The ${last} wave is through: start the next one when you are ready.`;
          return;
        }
      }
      status.textContent = `Completed: every wave runs ${chosen.version}.`;
    } catch (err) {
      show(messages, 'error', err);
      status.textContent = 'The rollout stopped on an error.';
    } finally {
      running = undefined;
      for (const b of [preflightButton, nextButton, allButton]) b.disabled = false;
      haltButton.disabled = true;
    }
  };
  preflightButton.addEventListener('click', () => void run('preflight'));
  nextButton.addEventListener('click', () => void run('next'));
  allButton.addEventListener('click', () => void run('all'));
  haltButton.addEventListener('click', () => running?.abort());
  version.addEventListener('change', () => {
    waves.clear();
    drawWaves();
  });
  drawWaves();
  // leaving the page stops following (what was written stays written, as after Ctrl-C on the command line)
  ctx.live.track({ state: 'live', stop: () => running?.abort() });
}

const FOLLOW_HINT = 'Give a parent (projects/{project}/regions/{region or -}) and waves to follow its rollouts.';

/**
 * @param {import('../../../../../shared/dist/rollout/rollout-driver.js').RolloutOutcome} outcome not completed
 * @returns {string}
 */
function describeOutcome(outcome) {
  if (outcome.kind === 'dryRun') return 'Preflight done: nothing written.';
  if (outcome.kind === 'declined') return 'Not started: nothing written.';
  if (outcome.kind === 'interrupted') return 'Halted: what was written stays written; run it again to go on.';
  if (outcome.kind === 'halted') return `The rollout halted in the ${outcome.wave} wave: ${outcome.reason}`;
  return 'Completed.';
}

/**
 * @param {RolloutEvent} event
 * @returns {string}
 */
function describeEvent(event) {
  switch (event.event) {
    case 'preflight':
      return `preflight of ${event.version}: ${event.waves.map((w) => `${w.wave} ${w.toWrite} to write of ${w.total}`).join(', ')}`;
    case 'waveSkipped':
      return `${event.wave}: skipped (${event.why})`;
    case 'waveStarted':
      return `${event.wave}: started`;
    case 'written':
      return `${event.wave}: ${event.written} written, ${event.refused.length} refused`;
    case 'progress':
      return `${event.wave}: progress`;
    case 'promoted':
      return `${event.wave}: promoted (${event.counts.done} done)`;
    case 'halted':
      return `${event.wave}: halted: ${event.reason}`;
    case 'completed':
      return `completed: ${event.version}`;
    case 'watchReconnecting':
      return `watch reconnecting: ${event.why}`;
  }
}
