import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface UbootEnvTools {
  /** default fw_printenv (from PATH) */
  printenv?: string;
  /** default fw_setenv (from PATH) */
  setenv?: string;
}

/** Every variable of the U-Boot environment, as `fw_printenv` prints them. */
export async function readUbootEnv(tools: UbootEnvTools): Promise<Record<string, string>> {
  // loaded on first use (here and below): execa costs memory the idle agent does not need
  const { execa } = await import('execa');
  const { stdout } = await execa(tools.printenv ?? 'fw_printenv', []);
  return parseUbootEnv(stdout);
}

export function parseUbootEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const equals = line.indexOf('=');
    if (equals > 0) env[line.slice(0, equals)] = line.slice(equals + 1);
  }
  return env;
}

/**
 * Sets several variables in ONE environment write (`fw_setenv -s <script>`, a line `name value` each; a
 * name alone deletes the variable, which is how an empty value is stored).
 */
export async function writeUbootEnv(tools: UbootEnvTools, variables: Record<string, string>): Promise<void> {
  const script = Object.entries(variables)
    .map(([name, value]) => {
      if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new Error(`invalid U-Boot variable name "${name}"`);
      if (/[\n\r]/.test(value)) throw new Error(`the value of ${name} has a line break`);
      return value === '' ? `${name}\n` : `${name} ${value}\n`;
    })
    .join('');
  const scriptFile = join(tmpdir(), `droplet-fw_setenv-${randomBytes(6).toString('hex')}`);
  await writeFile(scriptFile, script, { mode: 0o600 });
  const { execa } = await import('execa');
  try {
    await execa(tools.setenv ?? 'fw_setenv', ['-s', scriptFile]);
  } finally {
    await rm(scriptFile, { force: true });
  }
}
