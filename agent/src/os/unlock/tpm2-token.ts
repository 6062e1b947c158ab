import { z } from 'zod';
import { SLOTS } from '@outpost/shared';
import type { Slot } from '@outpost/shared';

/** The LUKS2 token type of the sealed key (cryptsetup keeps tokens of unknown types as they are). */
export const TOKEN_TYPE = 'outpost-tpm2';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);
const base64 = z.string().regex(/^[A-Za-z0-9+/]+={0,2}$/);
const pcrValues = z.record(z.string().regex(/^\d{1,2}$/), hex64);

/**
 * The LUKS2 token that carries the sealed key slot secret. It lives in the LUKS2 header (not in a file on the
 * ESP): cryptsetup writes the header's two copies with a sequence id and checksums, so replacing the token is
 * atomic (a power cut leaves the old or the new policy), the sealed blob travels with the disk it unlocks, and A/B
 * upgrades never rewrite it. The blob is useless without this TPM, so the header needs no secrecy.
 */
export const tokenSchema = z.object({
  type: z.literal(TOKEN_TYPE),
  /** the key slot the sealed secret opens (LUKS2 token JSON names key slots as strings) */
  keyslots: z.tuple([z.string().regex(/^\d+$/)]),
  /** the persistent primary (storage) key the sealed object is loaded under, e.g. "0x81000100" */
  'outpost-primary': z.string().regex(/^0x81[0-9a-f]{6}$/),
  /** TPM2B_PUBLIC and TPM2B_PRIVATE of the sealed object (tpm2_create -u / -r) */
  'outpost-public': base64,
  'outpost-private': base64,
  /** the boot chains the policy accepts; the PolicyOR's branch order is this order (deduplicated) */
  'outpost-branches': z
    .array(z.object({ slot: z.enum(SLOTS), path: z.string().min(1), pcrs: pcrValues }))
    .min(1)
    .max(16),
  'outpost-changed-ms': z.number().int().nonnegative().optional(),
  'outpost-reason': z.string().optional(),
});
export type UnlockToken = z.infer<typeof tokenSchema>;

export interface BootChain {
  slot: Slot;
  /** the boot path of the slot: normal, trial, fallback */
  path: string;
  /** bound PCR → SHA-256 value (64 lowercase hex) */
  pcrs: Map<number, string>;
}

export const branchesOf = (token: UnlockToken): BootChain[] =>
  token['outpost-branches'].map((branch) => ({
    slot: branch.slot,
    path: branch.path,
    pcrs: new Map(Object.entries(branch.pcrs).map(([pcr, value]) => [Number(pcr), value])),
  }));

export const tokenBranches = (chains: readonly BootChain[]): UnlockToken['outpost-branches'] =>
  chains.map((chain) => ({
    slot: chain.slot,
    path: chain.path,
    pcrs: Object.fromEntries([...chain.pcrs].map(([pcr, value]) => [String(pcr), value])),
  }));

/** `cryptsetup luksDump --dump-json-metadata`: the parts read here. */
export const luksMetadataSchema = z.object({
  keyslots: z.record(z.string(), z.unknown()),
  tokens: z.record(z.string(), z.object({ type: z.string() }).passthrough()),
});
