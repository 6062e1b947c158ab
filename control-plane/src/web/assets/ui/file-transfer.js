/**
 * Upload files (a destination directory in "Path on device", one or more files, names kept) and Download file
 * (the full path of one file in "Path on device"), each file with a live progress bar.
 */
import {
  downloadPathProblem,
  downloadRequest,
  formatBytes,
  percentDone,
  uploadDirectoryProblem,
  uploadRequest,
} from '../api/transfer-requests.js';
import { busy, h, show } from './dom.js';
import { downloadWithProgress, saveBlob, uploadWithProgress } from './xhr.js';

/**
 * @param {HTMLElement} card
 * @param {import('./context.js').Context} ctx
 * @param {string} device
 */
export function renderFileTransfer(card, ctx, device) {
  card.replaceChildren(h('h2', {}, 'Files'), uploadForm(ctx, device), downloadForm(ctx, device));
}

/**
 * @param {import('./context.js').Context} ctx
 * @param {string} device
 * @returns {HTMLElement}
 */
function uploadForm(ctx, device) {
  const messages = h('div');
  const rows = h('div');
  const path = h('input', { type: 'text', name: 'path', placeholder: '/outpost/data/', size: 36 });
  const files = h('input', { type: 'file', name: 'files', multiple: true });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Upload');
  const form = h(
    'form',
    { class: 'inline' },
    h('label', {}, 'Path on device (destination directory)', path),
    h('label', {}, 'Files', files),
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    // what an earlier upload showed is gone: the rows are those of this one, or none when it is refused
    messages.replaceChildren();
    rows.replaceChildren();
    const chosen = [...(files.files ?? [])];
    const problem =
      uploadDirectoryProblem(path.value) ?? (chosen.length === 0 ? 'choose one or more files' : undefined);
    if (problem !== undefined) {
      show(messages, 'error', problem);
      return;
    }
    void busy(submit, async () => {
      const progress = chosen.map((file) => transferRow(file.name, file.size));
      rows.replaceChildren(...progress.map((p) => p.row));
      let failed = 0;
      for (const [i, file] of chosen.entries()) {
        const row = progress[i];
        if (!row) continue;
        try {
          const request = uploadRequest(ctx.apiKey, device, path.value, file.name);
          await uploadWithProgress(request, file, row.update);
          row.finish(`uploaded to ${path.value.replace(/\/*$/, '/')}${file.name}`);
        } catch (err) {
          failed++;
          row.fail(err);
        }
      }
      if (failed === 0) show(messages, 'ok', `${chosen.length} file(s) uploaded.`);
      else show(messages, 'error', `${failed} of ${chosen.length} file(s) failed: see below.`);
    });
  });
  return h('div', {}, h('h3', {}, 'Upload files'), form, messages, rows);
}

/**
 * @param {import('./context.js').Context} ctx
 * @param {string} device
 * @returns {HTMLElement}
 */
function downloadForm(ctx, device) {
  const messages = h('div');
  const rows = h('div');
  const path = h('input', { type: 'text', name: 'path', placeholder: '/var/log/syslog', size: 36 });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Download');
  const form = h('form', { class: 'inline' }, h('label', {}, 'Path on device (full path of one file)', path), submit);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    messages.replaceChildren();
    rows.replaceChildren();
    const problem = downloadPathProblem(path.value);
    if (problem !== undefined) {
      show(messages, 'error', problem);
      return;
    }
    void busy(submit, async () => {
      const request = downloadRequest(ctx.apiKey, device, path.value);
      const row = transferRow(request.fileName, 0);
      rows.replaceChildren(row.row);
      try {
        const blob = await downloadWithProgress(request, row.update);
        // the remote name as typed: the server's Content-Disposition has `"` and `\` replaced, for one
        saveBlob(blob, request.fileName);
        row.finish(`saved as ${request.fileName} (${formatBytes(blob.size)})`);
      } catch (err) {
        row.fail(err);
      }
    });
  });
  return h('div', {}, h('h3', {}, 'Download file'), form, messages, rows);
}

/**
 * One file's line: name, size, a progress bar and what happened.
 * @param {string} name
 * @param {number} size 0 when unknown yet
 */
function transferRow(name, size) {
  const bar = h('progress', { max: 100 });
  const sizeCell = h('span', { class: 'muted' }, size > 0 ? formatBytes(size) : '');
  const state = h('span', { class: 'muted' }, 'waiting');
  const row = h('div', { class: 'transfer-row' }, h('span', {}, name), sizeCell, bar, state);
  return {
    row,
    /** @type {import('./xhr.js').Progress} */
    update: (loaded, total) => {
      const percent = percentDone(loaded, total);
      if (percent === undefined) bar.removeAttribute('value');
      else bar.value = percent;
      if (total > 0) sizeCell.textContent = formatBytes(total);
      state.textContent = `${formatBytes(loaded)}${percent === undefined ? '' : ` (${percent} %)`}`;
    },
    /** @param {string} text */
    finish: (text) => {
      bar.value = 100;
      state.textContent = text;
    },
    /** @param {unknown} err */
    fail: (err) => {
      bar.value = 0;
      show(state, 'error', err);
    },
  };
}
