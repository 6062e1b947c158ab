import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { SLOTS, readJsonFile, writeJsonFileAtomic } from '@outpost/shared';
import type { Slot } from '@outpost/shared';
import type { SystemCommands } from '../../config-apply/command-runner.js';
import type { DiskUnlockAdapter, UnlockBinding } from './unlock-adapter.js';
import { UnlockPrepareError } from './unlock-adapter.js';
import { MAX_POLICY_BRANCHES, policyOrOf, policyPcrDigest } from './tpm2-policy.js';
import { predictedPaths, readPredictions } from './tpm2-predictions.js';
import { TOKEN_TYPE, branchesOf, luksMetadataSchema, tokenBranches, tokenSchema } from './tpm2-token.js';
import type { BootChain, UnlockToken } from './tpm2-token.js';

export const DEFAULT_PRIMARY_HANDLE = '0x81000100';
export const DEFAULT_TCTI = 'device:/dev/tpmrm0';

export interface Tpm2UnlockOptions {
  /** runs tpm2-tools and cryptsetup (execFileCommands on a device) */
  commands: SystemCommands;
  /** the LUKS2 data partition (or a file holding a LUKS2 container) */
  device: string;
  /** tpm2-tools' TCTI: device:/dev/tpmrm0 on a device, swtpm:path=… against swtpm */
  tcti?: string;
  /** the owner-hierarchy persistent handle of the primary key the sealed object is loaded under */
  primaryHandle?: string;
  /** PCRs whose value is read from the running TPM when sealing (constant across slots: 7, and 4 where fixed) */
  fixedPcrs?: readonly number[];
  /** the image's PCR 8 prediction table (tpm2-predictions.ts) */
  predictionsFile: string;
  /** a folder on a tmpfs (e.g. /run/outpost) for the key while it is re-sealed; never a persistent disk */
  runtimeDir: string;
  /** this boot's unlock result, written by `unlockAtBoot` (on a tmpfs: a reboot forgets it) */
  bootRecordFile: string;
  bootId: () => Promise<string>;
  now?: () => number;
}

/** What the boot unit does with the key: open the mapping, or only check it (tests, a header-only container). */
export type UnlockAction = { open: string } | 'test';

export interface BootUnlockResult {
  unlocked: boolean;
  /** why not, when not */
  reason?: string;
}

/** The `tpm2` adapter plus what only a real device does: enrolment, the boot-time unlock, extra key slots. */
export interface Tpm2Unlock extends DiskUnlockAdapter {
  /**
   * Adds a key slot with a fresh random secret (opened by `existingKeyFile`) and seals that secret to the boot
   * chains of `slots`; refuses when the device already has an Outpost TPM token.
   */
  enroll(existingKeyFile: string, slots: readonly Slot[], reason: string): Promise<UnlockBinding>;
  /** Unseals the key with this boot's PCRs and opens (or tests) the data partition; records the result. */
  unlockAtBoot(action: UnlockAction): Promise<BootUnlockResult>;
}

/** A command of tpm2-tools or cryptsetup failed; the message has its stderr. */
export class UnlockCommandError extends Error {
  override readonly name = 'UnlockCommandError';
}

const bootRecordSchema = z.object({ bootId: z.string(), unlocked: z.boolean(), reason: z.string().optional() });

/**
 * tpm2_createprimary's default attributes. Both keys are `noda`: neither has an auth value to guess (the sealed
 * key answers only its PCR policy), and without it every power cut counts as a dictionary-attack failure at the
 * next TPM2_Startup: measured on swtpm, two power cuts in a row put the TPM in lockout and the data stayed sealed.
 */
const PRIMARY_ATTRIBUTES = 'restricted|decrypt|fixedtpm|fixedparent|sensitivedataorigin|userwithauth';

/** PBKDF of key slots whose secret is random (the sealed key, the recovery key): nothing to stretch. */
const RANDOM_KEY_PBKDF = ['--pbkdf', 'pbkdf2', '--pbkdf-force-iterations', '1000'];

export function tpm2Unlock(options: Tpm2UnlockOptions): Tpm2Unlock {
  const tcti = options.tcti ?? DEFAULT_TCTI;
  const handle = options.primaryHandle ?? DEFAULT_PRIMARY_HANDLE;
  const fixedPcrs = [...(options.fixedPcrs ?? [7])].sort((a, b) => a - b);
  const boundPcrs = [...fixedPcrs, 8];
  const now = options.now ?? Date.now;

  const run = async (argv: string[]): Promise<string> => {
    const result = await options.commands.run(argv);
    if (result.exitCode !== 0) {
      const output = (result.stderr || result.stdout).trim().split('\n').slice(-3).join(' / ');
      throw new UnlockCommandError(`${argv[0]} ${argv[1] ?? ''} exited ${result.exitCode}: ${output}`);
    }
    return result.stdout;
  };
  const tpm2 = (tool: string, ...args: string[]) => run([`tpm2_${tool}`, '-T', tcti, ...args]);

  const flushTransients = async (): Promise<void> => {
    await options.commands.run(['tpm2_flushcontext', '-T', tcti, '--transient-object']);
  };

  /**
   * A private folder on the tmpfs for key material, removed whatever happens. The transient objects loaded for
   * the work are flushed after it: through /dev/tpmrm0 the resource manager would, but without one (swtpm's
   * socket, /dev/tpm0) they stay loaded and the TPM runs out of object slots after three.
   */
  const withScratch = async <T>(work: (dir: string) => Promise<T>): Promise<T> => {
    await mkdir(options.runtimeDir, { recursive: true, mode: 0o700 });
    const dir = await mkdtemp(join(options.runtimeDir, 'unlock-'));
    try {
      return await work(dir);
    } finally {
      await flushTransients();
      await rm(dir, { recursive: true, force: true });
    }
  };

  const readPcrs = async (pcrs: readonly number[]): Promise<Map<number, string>> => {
    const values = new Map<number, string>();
    if (pcrs.length === 0) return values;
    const out = await tpm2('pcrread', `sha256:${pcrs.join(',')}`);
    for (const match of out.matchAll(/^\s*(\d+)\s*:\s*0x([0-9A-Fa-f]{64})\s*$/gm)) {
      values.set(Number(match[1]), (match[2] ?? '').toLowerCase());
    }
    for (const pcr of pcrs) if (!values.has(pcr)) throw new UnlockCommandError(`tpm2_pcrread gave no PCR ${pcr}`);
    return values;
  };

  const readMetadata = async () => {
    const args = ['cryptsetup', 'luksDump', '--dump-json-metadata', options.device];
    const parsed = luksMetadataSchema.safeParse(JSON.parse(await run(args)) as unknown);
    if (!parsed.success) throw new UnlockCommandError(`${options.device}: unexpected LUKS2 metadata`);
    return parsed.data;
  };

  /** our token and its id, or undefined when the device has none */
  const readToken = async (): Promise<{ id: string; token: UnlockToken } | undefined> => {
    const metadata = await readMetadata();
    const entry = Object.entries(metadata.tokens).find(([, token]) => token.type === TOKEN_TYPE);
    if (entry === undefined) return undefined;
    const parsed = tokenSchema.safeParse(entry[1]);
    if (!parsed.success) {
      throw new UnlockCommandError(`LUKS2 token ${entry[0]} of ${options.device} is damaged: ${parsed.error.message}`);
    }
    return { id: entry[0], token: parsed.data };
  };

  /** the boot chains of `slots` as the image predicts them, with the fixed PCRs of this boot */
  const predictChains = async (slots: readonly Slot[]): Promise<BootChain[]> => {
    const table = await readPredictions(options.predictionsFile);
    const fixed = await readPcrs(fixedPcrs);
    const chains: BootChain[] = [];
    for (const slot of slots) {
      const paths = predictedPaths(table, slot);
      if (paths === undefined) {
        throw new UnlockPrepareError(
          `the boot chain of slot ${slot} cannot be predicted: ${options.predictionsFile} has no PCR 8 values for it`,
        );
      }
      for (const [path, pcr8] of paths) chains.push({ slot, path, pcrs: new Map([...fixed, [8, pcr8]]) });
    }
    return chains;
  };

  const ensurePrimary = async (dir: string): Promise<void> => {
    const present = await options.commands.run(['tpm2_readpublic', '-T', tcti, '-c', handle]);
    if (present.exitCode === 0) return;
    const context = join(dir, 'primary.ctx');
    await tpm2(
      'createprimary',
      '-C',
      'o',
      '-g',
      'sha256',
      '-G',
      'ecc',
      '-a',
      `${PRIMARY_ATTRIBUTES}|noda`,
      '-c',
      context,
    );
    await tpm2('evictcontrol', '-C', 'o', '-c', context, handle);
    await flushTransients();
  };

  /** the sealed object holding `secretFile` under the PolicyOR of `chains` */
  const sealSecret = async (dir: string, secretFile: string, chains: readonly BootChain[]) => {
    const { policy } = policyOrOf(chains);
    const policyFile = join(dir, 'policy.bin');
    await writeFile(policyFile, policy);
    const pub = join(dir, 'sealed.pub');
    const priv = join(dir, 'sealed.priv');
    // no userwithauth: only the policy (a matching boot chain) releases the secret
    await tpm2(
      'create',
      '-C',
      handle,
      '-L',
      policyFile,
      '-i',
      secretFile,
      '-u',
      pub,
      '-r',
      priv,
      '-a',
      'fixedtpm|fixedparent|noda',
    );
    return {
      'outpost-public': (await readFile(pub)).toString('base64'),
      'outpost-private': (await readFile(priv)).toString('base64'),
    };
  };

  /** the secret of `token`, unsealed with this boot's PCRs, written to `dir`/key */
  const unsealSecret = async (dir: string, token: UnlockToken): Promise<string> => {
    const pub = join(dir, 'sealed.pub');
    const priv = join(dir, 'sealed.priv');
    await writeFile(pub, Buffer.from(token['outpost-public'], 'base64'));
    await writeFile(priv, Buffer.from(token['outpost-private'], 'base64'));
    const chains = branchesOf(token);
    const { branchDigests } = policyOrOf(chains);
    const branchFiles = await Promise.all(
      branchDigests.map(async (digest, index) => {
        const file = join(dir, `branch-${index}.policy`);
        await writeFile(file, digest);
        return file;
      }),
    );
    const sealed = join(dir, 'sealed.ctx');
    const session = join(dir, 'session.ctx');
    const key = join(dir, 'key');
    const pcrs = [...(chains[0]?.pcrs.keys() ?? [])].sort((a, b) => a - b);
    await tpm2('load', '-C', token['outpost-primary'], '-u', pub, '-r', priv, '-c', sealed);
    await tpm2('startauthsession', '--policy-session', '-S', session);
    try {
      await tpm2('policypcr', '-S', session, '-l', `sha256:${pcrs.join(',')}`);
      await tpm2('policyor', '-S', session, `sha256:${branchFiles.join(',')}`);
      await tpm2('unseal', '-p', `session:${session}`, '-c', sealed, '-o', key);
    } finally {
      await options.commands.run(['tpm2_flushcontext', '-T', tcti, session]);
      await flushTransients();
    }
    return key;
  };

  const importToken = async (dir: string, token: UnlockToken, replaceId?: string): Promise<void> => {
    const file = join(dir, 'token.json');
    await writeFile(file, JSON.stringify(token));
    const target = replaceId === undefined ? [] : ['--token-id', replaceId, '--token-replace'];
    await run(['cryptsetup', 'token', 'import', '--json-file', file, ...target, options.device]);
  };

  const bindingOf = async (token: UnlockToken | undefined): Promise<UnlockBinding> => {
    if (token === undefined) return { slots: [] };
    const sealed = new Set(policyOrOf(branchesOf(token)).branchDigests.map((digest) => digest.toString('hex')));
    const table = await readPredictions(options.predictionsFile);
    const slots: Slot[] = [];
    for (const slot of SLOTS) {
      if (predictedPaths(table, slot) === undefined) continue;
      const chains = await predictChains([slot]);
      if (chains.every((chain) => sealed.has(policyPcrDigest(chain).toString('hex')))) slots.push(slot);
    }
    const binding: UnlockBinding = { slots };
    if (token['outpost-changed-ms'] !== undefined) binding.changedAtMs = token['outpost-changed-ms'];
    if (token['outpost-reason'] !== undefined) binding.reason = token['outpost-reason'];
    return binding;
  };

  const tokenFor = (
    keyslot: string,
    chains: readonly BootChain[],
    blob: Pick<UnlockToken, 'outpost-public' | 'outpost-private'>,
    reason: string,
  ): UnlockToken => ({
    type: TOKEN_TYPE,
    keyslots: [keyslot],
    'outpost-primary': handle,
    ...blob,
    'outpost-branches': tokenBranches(chains),
    'outpost-changed-ms': now(),
    'outpost-reason': reason,
  });

  const checkBranchCount = (chains: readonly BootChain[]): void => {
    const unique = new Set(chains.map((chain) => policyPcrDigest(chain).toString('hex')));
    if (unique.size > MAX_POLICY_BRANCHES) {
      throw new UnlockPrepareError(
        `${unique.size} distinct boot chains: a TPM2 PolicyOR accepts at most ${MAX_POLICY_BRANCHES}`,
      );
    }
  };

  const seal = async (slots: readonly Slot[], reason: string): Promise<UnlockBinding> => {
    const current = await readToken();
    if (current === undefined) {
      throw new UnlockPrepareError(`${options.device} has no TPM-sealed key: the data partition was never enrolled`);
    }
    const chains = await predictChains(slots);
    checkBranchCount(chains);
    return withScratch(async (dir) => {
      let key: string;
      try {
        key = await unsealSecret(dir, current.token);
      } catch (err) {
        throw new UnlockPrepareError(
          `the TPM does not release the key at this boot (the running boot chain is not one the policy accepts): ${
            err instanceof Error ? err.message : String(err)
          }`,
        );
      }
      const blob = await sealSecret(dir, key, chains);
      const token = tokenFor(current.token.keyslots[0], chains, blob, reason);
      await importToken(dir, token, current.id);
      return bindingOf(token);
    });
  };

  const writeBootRecord = async (unlocked: boolean, reason?: string): Promise<void> => {
    const record = { bootId: await options.bootId(), unlocked, ...(reason === undefined ? {} : { reason }) };
    await writeJsonFileAtomic(options.bootRecordFile, record);
  };

  return {
    kind: 'tpm2',
    boundPcrs,
    readBinding: async () => bindingOf((await readToken())?.token),
    seal,

    async unlockedThisBoot() {
      const record = bootRecordSchema.safeParse(await readJsonFile(options.bootRecordFile).catch(() => undefined));
      return record.success && record.data.bootId === (await options.bootId()) && record.data.unlocked;
    },

    async enroll(existingKeyFile, slots, reason) {
      if ((await readToken()) !== undefined) {
        throw new UnlockPrepareError(`${options.device} already has a TPM-sealed key`);
      }
      const chains = await predictChains(slots);
      checkBranchCount(chains);
      return withScratch(async (dir) => {
        await ensurePrimary(dir);
        const key = join(dir, 'key');
        await writeFile(key, randomBytes(32), { mode: 0o600 });
        const before = new Set(Object.keys((await readMetadata()).keyslots));
        await run([
          'cryptsetup',
          'luksAddKey',
          '--batch-mode',
          ...RANDOM_KEY_PBKDF,
          '--key-file',
          existingKeyFile,
          '--new-keyfile',
          key,
          options.device,
        ]);
        const keyslot = Object.keys((await readMetadata()).keyslots).find((id) => !before.has(id));
        if (keyslot === undefined) throw new UnlockCommandError('cryptsetup luksAddKey added no key slot');
        const blob = await sealSecret(dir, key, chains);
        const token = tokenFor(keyslot, chains, blob, reason);
        await importToken(dir, token);
        return bindingOf(token);
      });
    },

    async unlockAtBoot(action) {
      let result: BootUnlockResult;
      try {
        const current = await readToken();
        if (current === undefined) throw new Error(`${options.device} has no TPM-sealed key`);
        await withScratch(async (dir) => {
          const key = await unsealSecret(dir, current.token);
          const keyslot = ['--key-file', key, '--key-slot', current.token.keyslots[0]];
          const open = action === 'test' ? ['--test-passphrase'] : [];
          const name = action === 'test' ? [] : [action.open];
          await run(['cryptsetup', 'open', '--type', 'luks2', ...keyslot, ...open, options.device, ...name]);
        });
        result = { unlocked: true };
      } catch (err) {
        result = { unlocked: false, reason: err instanceof Error ? err.message : String(err) };
      }
      await writeBootRecord(result.unlocked, result.reason);
      return result;
    },

    async addRecoveryKey(newKeyFile) {
      const current = await readToken();
      if (current === undefined) throw new UnlockPrepareError(`${options.device} has no TPM-sealed key`);
      return withScratch(async (dir) => {
        const key = await unsealSecret(dir, current.token);
        const before = new Set(Object.keys((await readMetadata()).keyslots));
        await run([
          'cryptsetup',
          'luksAddKey',
          '--batch-mode',
          ...RANDOM_KEY_PBKDF,
          '--key-file',
          key,
          '--new-keyfile',
          newKeyFile,
          options.device,
        ]);
        const added = Object.keys((await readMetadata()).keyslots).find((id) => !before.has(id));
        if (added === undefined) throw new UnlockCommandError('cryptsetup luksAddKey added no key slot');
        return Number(added);
      });
    },
  };
}
