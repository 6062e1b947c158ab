import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecordingServer } from './harness.js';

// `outpost devices reboot|shutdown` asks on a real pseudo-terminal (util-linux `script`), run from the sources
// (tsx resolves @outpost/shared to its sources through tsconfig.check.json).
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const CLI_MAIN = `${REPO}control-plane/src/cli/main.ts`;
const TSX = pathToFileURL(`${REPO}node_modules/tsx/dist/loader.mjs`).href;
const DEVICE = 'projects/pp/regions/eu/devices/gw-1';

const shellQuote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;

let server: Awaited<ReturnType<typeof startRecordingServer>>;
beforeAll(async () => {
  server = await startRecordingServer((_req, res) => res.json({}));
});
afterAll(() => server.close());

/** Runs `outpost <args>` on a terminal, typing `answer` once it asks; answers what the terminal showed. */
async function onTerminal(args: readonly string[], answer: string): Promise<{ code: number | null; shown: string }> {
  const command = [process.execPath, '--import', TSX, CLI_MAIN, ...args].map(shellQuote).join(' ');
  const child = spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
    cwd: REPO,
    env: {
      PATH: process.env['PATH'] ?? '',
      TSX_TSCONFIG_PATH: `${REPO}tsconfig.check.json`,
      OUTPOST_SERVER: server.url,
      OUTPOST_API_KEY: 'k',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let shown = '';
  let answered = false;
  child.stdout.on('data', (d: Buffer) => {
    shown += d.toString();
    if (!answered && /Type yes to [^\n]*: /.test(shown)) {
      answered = true;
      child.stdin.write(`${answer}\n`);
    }
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, shown: shown.replaceAll('\r\n', '\n') };
}

describe('the confirmation of a power action', () => {
  it.each([
    ['reboot', 'warning: this will reboot', 'Type yes to reboot it: '],
    ['shutdown', 'warning: this will shut down', 'Type yes to shut it down: '],
  ])('%s asks in plain words, and only "yes" sends it', async (verb, warning, question) => {
    const before = server.requests.length;
    const declined = await onTerminal(['devices', verb, DEVICE], 'no');
    expect(declined.shown).toContain(`${warning} ${DEVICE}: `);
    expect(declined.shown).toContain(question);
    expect(declined.shown).toContain(`aborted: ${DEVICE} was not sent anything`);
    expect(declined.code).toBe(1);
    // a reboot's prompt reads the device (its maintenance window and update locks); nothing is posted
    expect(server.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);

    const accepted = await onTerminal(['devices', verb, DEVICE], 'yes');
    expect(accepted.shown).toContain(`${verb} of ${DEVICE} requested`);
    expect(accepted.code).toBe(0);
    expect(server.requests.at(-1)).toMatchObject({ method: 'POST', path: `/v1/${DEVICE}:${verb}` });
  });
});
