import { createHash } from 'node:crypto';

/**
 * The TPM 2.0 policy digests of the unlock binding, computed here rather than in trial sessions of the TPM
 * (TPM 2.0 Library, Part 3: TPM2_PolicyPCR and TPM2_PolicyOR; SHA-256 bank and policy hash). A test checks them
 * against tpm2-tools' trial sessions on swtpm.
 */

const TPM_CC_POLICY_OR = 0x0000_0171;
const TPM_CC_POLICY_PCR = 0x0000_017f;
const TPM_ALG_SHA256 = 0x000b;
const SHA256_SIZE = 32;
/** TPM2_PolicyOR takes 2 to 8 digests */
export const MAX_POLICY_BRANCHES = 8;

/** One boot chain the policy accepts: the SHA-256 value of each bound PCR, in ascending PCR order. */
export interface PcrBranch {
  /** PCR index → 64 lowercase hex digits */
  pcrs: ReadonlyMap<number, string>;
}

const sha256 = (...parts: Buffer[]): Buffer => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

const uint32 = (value: number): Buffer => {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
};

/** TPML_PCR_SELECTION with one SHA-256 selection of `pcrs` (3 bitmap bytes: PCRs 0-23). */
export function pcrSelection(pcrs: readonly number[]): Buffer {
  const bitmap = Buffer.alloc(3);
  for (const pcr of pcrs) {
    if (!Number.isInteger(pcr) || pcr < 0 || pcr > 23) throw new RangeError(`PCR ${pcr} is not 0-23`);
    bitmap[pcr >> 3] = (bitmap[pcr >> 3] ?? 0) | (1 << (pcr & 7));
  }
  const header = Buffer.alloc(3);
  header.writeUInt16BE(TPM_ALG_SHA256, 0);
  header.writeUInt8(bitmap.length, 2);
  return Buffer.concat([uint32(1), header, bitmap]);
}

/** The PCR indices of a branch in the order the TPM concatenates them (ascending). */
export const branchPcrs = (branch: PcrBranch): number[] => [...branch.pcrs.keys()].sort((a, b) => a - b);

/** policyDigest of a fresh session after TPM2_PolicyPCR(selection, digest of the branch's values). */
export function policyPcrDigest(branch: PcrBranch): Buffer {
  const pcrs = branchPcrs(branch);
  const values = pcrs.map((pcr) => {
    const hex = branch.pcrs.get(pcr) ?? '';
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new RangeError(`PCR ${pcr} value is not 64 lowercase hex digits`);
    return Buffer.from(hex, 'hex');
  });
  const pcrDigest = sha256(...values);
  return sha256(Buffer.alloc(SHA256_SIZE), uint32(TPM_CC_POLICY_PCR), pcrSelection(pcrs), pcrDigest);
}

/**
 * The digests TPM2_PolicyOR is given for `branches` (deduplicated; a single branch is listed twice, since the
 * command needs at least two), and the resulting policy digest to seal the object under.
 */
export function policyOrOf(branches: readonly PcrBranch[]): { branchDigests: Buffer[]; policy: Buffer } {
  const unique = new Map<string, Buffer>();
  for (const branch of branches) {
    const digest = policyPcrDigest(branch);
    unique.set(digest.toString('hex'), digest);
  }
  const digests = [...unique.values()];
  if (digests.length === 0) throw new RangeError('a policy needs at least one boot chain');
  if (digests.length > MAX_POLICY_BRANCHES) {
    throw new RangeError(`${digests.length} boot chains: TPM2_PolicyOR takes at most ${MAX_POLICY_BRANCHES}`);
  }
  const branchDigests = digests.length === 1 ? [digests[0]!, digests[0]!] : digests;
  const policy = sha256(Buffer.alloc(SHA256_SIZE), uint32(TPM_CC_POLICY_OR), ...branchDigests);
  return { branchDigests, policy };
}
