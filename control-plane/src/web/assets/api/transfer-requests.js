/**
 * The byte endpoints as the dashboard calls them (spec 000 "Dashboard operations"): an upload sends each chosen
 * file's raw bytes to `POST /v1/{device}:upload?path=<directory>&name=<file name>`, so the file keeps its name in
 * that directory; a download reads `GET /v1/{device}:download?path=<file>` and is saved under the remote name.
 */
import { authHeaders } from './client.js';
import { queryString, resourcePath } from './paths.js';

/** @typedef {{ method: 'POST' | 'GET', url: string, headers: Record<string, string> }} ByteRequest */

/**
 * Why a "Path on device" cannot be an upload directory, or undefined when it can.
 * @param {string} directory
 * @returns {string | undefined}
 */
export function uploadDirectoryProblem(directory) {
  if (directory.trim() === '') return 'Path on device is empty: give the destination directory, e.g. /outpost/data/';
  if (!directory.startsWith('/')) return `Path on device "${directory}" must be absolute (start with /)`;
  return undefined;
}

/**
 * Why a name cannot be kept as a file name on the device, or undefined when it can.
 * @param {string} name
 * @returns {string | undefined}
 */
export function fileNameProblem(name) {
  if (name === '' || name === '.' || name === '..' || name.includes('/')) return `"${name}" is not a plain file name`;
  return undefined;
}

/**
 * The request uploading one file into `directory` under its own name.
 * @param {string} apiKey
 * @param {string} device
 * @param {string} directory absolute path of a directory on the device
 * @param {string} fileName the local file's name, kept on the device
 * @returns {ByteRequest}
 */
export function uploadRequest(apiKey, device, directory, fileName) {
  const problem = uploadDirectoryProblem(directory) ?? fileNameProblem(fileName);
  if (problem !== undefined) throw new Error(problem);
  return {
    method: 'POST',
    url: resourcePath(device, 'upload') + queryString({ path: directory, name: fileName }),
    headers: { ...authHeaders(apiKey), 'content-type': 'application/octet-stream' },
  };
}

/**
 * Why a "Path on device" cannot be downloaded as one file, or undefined when it can.
 * @param {string} path
 * @returns {string | undefined}
 */
export function downloadPathProblem(path) {
  if (path.trim() === '') return 'Path on device is empty: give the full path of one file, e.g. /var/log/syslog';
  if (!path.startsWith('/')) return `Path on device "${path}" must be absolute (start with /)`;
  if (path.endsWith('/')) return `Path on device "${path}" is a directory: give the full path of one file`;
  return undefined;
}

/**
 * The request downloading one file, and the name it is saved under (its remote name).
 * @param {string} apiKey
 * @param {string} device
 * @param {string} path full path of the file on the device
 * @returns {ByteRequest & { fileName: string }}
 */
export function downloadRequest(apiKey, device, path) {
  const problem = downloadPathProblem(path);
  if (problem !== undefined) throw new Error(problem);
  return {
    method: 'GET',
    url: resourcePath(device, 'download') + queryString({ path }),
    headers: { ...authHeaders(apiKey), accept: 'application/octet-stream' },
    fileName: remoteName(path),
  };
}

/**
 * The file name of a remote path (its last segment).
 * @param {string} path
 * @returns {string}
 */
export function remoteName(path) {
  return path.replace(/\/+$/, '').split('/').at(-1) || 'download';
}

/**
 * @param {number} bytes
 * @returns {string} e.g. "1.5 MiB"
 */
export function formatBytes(bytes) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/**
 * Whole percent done, or undefined while the total is unknown.
 * @param {number} loaded
 * @param {number} total 0 when unknown
 * @returns {number | undefined}
 */
export function percentDone(loaded, total) {
  if (!(total > 0)) return undefined;
  return Math.min(100, Math.floor((loaded / total) * 100));
}
