/**
 * Byte transfers with progress: XMLHttpRequest reports upload progress (fetch does not), and download progress
 * from the Content-Length the server sets. A failed answer becomes the server's DashboardApiError.
 */
import { DashboardApiError, parseApiError } from '../api/errors.js';

/** @typedef {(loaded: number, total: number) => void} Progress */

/**
 * Sends `body` and resolves to the answer's JSON text.
 * @param {import('../api/transfer-requests.js').ByteRequest} request
 * @param {Blob} body
 * @param {Progress} onProgress
 * @returns {Promise<string>}
 */
export function uploadWithProgress(request, body, onProgress) {
  const xhr = open(request);
  xhr.upload.addEventListener('progress', (e) => onProgress(e.loaded, e.lengthComputable ? e.total : body.size));
  return new Promise((resolve, reject) => {
    xhr.addEventListener('load', () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve(xhr.responseText);
      else reject(parseApiError(xhr.status, xhr.responseText));
    });
    failOnNetworkError(xhr, request, reject);
    xhr.send(body);
  });
}

/**
 * Downloads the answer as a Blob.
 * @param {import('../api/transfer-requests.js').ByteRequest} request
 * @param {Progress} onProgress
 * @returns {Promise<Blob>}
 */
export function downloadWithProgress(request, onProgress) {
  const xhr = open(request);
  xhr.responseType = 'blob';
  xhr.addEventListener('progress', (e) => onProgress(e.loaded, e.lengthComputable ? e.total : 0));
  return new Promise((resolve, reject) => {
    xhr.addEventListener('load', () => {
      /** @type {Blob} */
      const blob = xhr.response;
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(blob);
        return;
      }
      blob.text().then(
        (text) => reject(parseApiError(xhr.status, text)),
        () => reject(parseApiError(xhr.status, '')),
      );
    });
    failOnNetworkError(xhr, request, reject);
    xhr.send();
  });
}

/**
 * @param {import('../api/transfer-requests.js').ByteRequest} request
 * @returns {XMLHttpRequest}
 */
function open(request) {
  const xhr = new XMLHttpRequest();
  xhr.open(request.method, request.url);
  for (const [name, value] of Object.entries(request.headers)) xhr.setRequestHeader(name, value);
  return xhr;
}

/**
 * @param {XMLHttpRequest} xhr
 * @param {import('../api/transfer-requests.js').ByteRequest} request
 * @param {(err: DashboardApiError) => void} reject
 */
function failOnNetworkError(xhr, request, reject) {
  const doing = `${request.method} ${request.url.split('?')[0]}`;
  xhr.addEventListener('error', () =>
    reject(new DashboardApiError('UNAVAILABLE', 0, `cannot ${doing}: the connection failed`)),
  );
  xhr.addEventListener('abort', () => reject(new DashboardApiError('ABORTED', 0, `${doing} was aborted`)));
}

/**
 * Hands a downloaded Blob to the browser as a file named `fileName`.
 * @param {Blob} blob
 * @param {string} fileName
 */
export function saveBlob(blob, fileName) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
