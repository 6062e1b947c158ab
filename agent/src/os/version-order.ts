const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/;

interface ParsedVersion {
  core: [bigint, bigint, bigint];
  prerelease: string[];
}

function parse(version: string): ParsedVersion | undefined {
  const match = SEMVER.exec(version);
  if (match === null) return undefined;
  return {
    core: [BigInt(match[1]!), BigInt(match[2]!), BigInt(match[3]!)],
    prerelease: match[4] === undefined ? [] : match[4].split('.'),
  };
}

const sign = (a: bigint | string, b: bigint | string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Prerelease identifiers: numeric ones numerically and below alphanumeric ones, which compare in ASCII order. */
function compareIdentifiers(a: string, b: string): number {
  const numericA = /^\d+$/.test(a);
  const numericB = /^\d+$/.test(b);
  if (numericA && numericB) return sign(BigInt(a), BigInt(b));
  if (numericA !== numericB) return numericA ? -1 : 1;
  return sign(a, b);
}

/**
 * The order of two semantic versions by precedence (semver.org §11: build metadata ignored, a prerelease
 * below its release): negative, zero or positive; undefined when either is not a semantic version.
 */
export function compareVersions(a: string, b: string): number | undefined {
  const left = parse(a);
  const right = parse(b);
  if (left === undefined || right === undefined) return undefined;
  for (let i = 0; i < 3; i++) {
    const order = sign(left.core[i]!, right.core[i]!);
    if (order !== 0) return order;
  }
  const [pa, pb] = [left.prerelease.length, right.prerelease.length];
  if (pa === 0 || pb === 0) return pa === pb ? 0 : pa === 0 ? 1 : -1;
  const shared = Math.min(pa, pb);
  for (let i = 0; i < shared; i++) {
    const order = compareIdentifiers(left.prerelease[i]!, right.prerelease[i]!);
    if (order !== 0) return order;
  }
  return Math.sign(pa - pb);
}
