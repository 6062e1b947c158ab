import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { useTempDirs } from '../helpers/temp-dir.js';

const tempDir = useTempDirs();

describe('createLogger', () => {
  it('writes the lines of a level raised live to the log file too (loggingConfig.agentLogLevel)', async () => {
    const file = join(await tempDir(), 'droplet.log');
    const logger = createLogger('info', file);
    logger.debug('hidden at info');
    logger.level = 'debug';
    logger.debug('shown at debug');
    await expect
      .poll(async () => readFile(file, 'utf8').catch(() => ''), { timeout: 20_000 })
      .toContain('shown at debug');
    expect(await readFile(file, 'utf8')).not.toContain('hidden at info');
  });
});
