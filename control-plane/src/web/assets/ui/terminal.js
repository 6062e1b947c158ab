/**
 * The terminal tab of a device page: xterm.js on the `:terminal` WebSocket (the user's login shell in a
 * pseudo-terminal on the device). This module and xterm.js are a chunk of their own, loaded when a terminal is
 * opened. Records are binary messages: a type byte, then the payload (1 input, 2 resize {"cols","rows"}, 4 output,
 * 5 error output, 6 exit {"exitCode","signal"?}).
 *
 * xterm.js adds <style> elements of its own and takes no nonce for them (xtermjs/xterm.js#4445); the page's policy
 * admits only those carrying the nonce the server put in `<meta name="csp-nonce">` for this page load, so while a
 * terminal is open the style elements made get it (set before they are inserted, as the policy requires).
 */
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { encodeName } from '../api/paths.js';

const RECORD = { INPUT: 1, RESIZE: 2, OUTPUT: 4, ERROR_OUTPUT: 5, EXIT: 6 };

/** the terminals open now: the nonce stamp is in place while there is one */
let openTerminals = 0;
/** @type {(() => void) | undefined} */
let unstamp;

/**
 * Opens a terminal on the device in `area`.
 * @param {HTMLElement} area
 * @param {string} device
 * @param {string} apiKey
 * @param {(why: string) => void} ended told once, when the session ends (exit status or close reason)
 * @returns {() => void} closes the session
 */
export function openTerminal(area, device, apiKey, ended) {
  if (openTerminals++ === 0) unstamp = stampStyleNonce();
  const screen = document.createElement('div');
  screen.className = 'terminal-screen';
  area.replaceChildren(screen);
  const term = new Terminal({ cursorBlink: true, convertEol: false, fontSize: 14, rows: 24 });
  const fit = new FitAddon();
  term.loadAddon(fit);
  term.open(screen);
  fit.fit();
  const url = new URL(`/v1/${encodeName(device)}:terminal`, location.href);
  url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
  url.searchParams.set('cols', String(term.cols));
  url.searchParams.set('rows', String(term.rows));
  url.searchParams.set('term', 'xterm-256color');
  const socket = new WebSocket(url, ['outpost.v1', `bearer.${apiKey}`]);
  socket.binaryType = 'arraybuffer';
  const encoder = new TextEncoder();
  /**
   * @param {number} type
   * @param {Uint8Array} payload
   */
  const send = (type, payload) => {
    if (socket.readyState !== WebSocket.OPEN) return;
    const record = new Uint8Array(payload.length + 1);
    record[0] = type;
    record.set(payload, 1);
    socket.send(record);
  };
  let said = false;
  /** @param {string} why */
  const end = (why) => {
    if (said) return;
    said = true;
    term.write(`\r\n\x1b[2m[${why}]\x1b[0m\r\n`);
    ended(why);
  };
  socket.addEventListener('open', () => term.focus());
  socket.addEventListener('message', (event) => {
    if (!(event.data instanceof ArrayBuffer)) return;
    const bytes = new Uint8Array(event.data);
    const payload = bytes.subarray(1);
    if (bytes[0] === RECORD.OUTPUT || bytes[0] === RECORD.ERROR_OUTPUT) term.write(payload);
    else if (bytes[0] === RECORD.EXIT) {
      /** @type {{ exitCode?: number, signal?: string }} */
      const exit = JSON.parse(new TextDecoder().decode(payload));
      end(exit.signal ? `ended by ${exit.signal}` : `exit status ${exit.exitCode ?? '?'}`);
    }
  });
  socket.addEventListener('close', (event) => end(event.reason || `closed (${event.code})`));
  const input = term.onData((data) => send(RECORD.INPUT, encoder.encode(data)));
  const resized = term.onResize(({ cols, rows }) =>
    send(RECORD.RESIZE, encoder.encode(JSON.stringify({ cols, rows }))),
  );
  const refit = () => fit.fit();
  window.addEventListener('resize', refit);
  let closed = false;
  return () => {
    if (closed) return;
    closed = true;
    window.removeEventListener('resize', refit);
    input.dispose();
    resized.dispose();
    socket.close(1000);
    term.dispose();
    if (--openTerminals === 0) unstamp?.();
  };
}

/**
 * Gives every <style> element made from now on the page's style nonce (set before it is inserted).
 * @returns {() => void} stops
 */
function stampStyleNonce() {
  const nonce = document.querySelector('meta[name="csp-nonce"]')?.getAttribute('content') ?? '';
  if (nonce === '') return () => {};
  const original = document.createElement;
  const create = original.bind(document);
  /** @type {(tag: string, options?: ElementCreationOptions) => HTMLElement} */
  const stamped = (tag, options) => {
    const element = create(tag, options);
    if (tag.toLowerCase() === 'style') element.setAttribute('nonce', nonce);
    return element;
  };
  document.createElement = /** @type {typeof document.createElement} */ (stamped);
  return () => {
    document.createElement = original;
  };
}
