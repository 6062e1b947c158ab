/** A 32-bit FNV-1a hash of the seed and a name: the same order for the same seed, on every machine. */
export function seededRank(seed: string, name: string): number {
  let hash = 0x811c9dc5;
  const text = `${seed}\u0000${name}`;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  // one more mixing round (murmur3's finalizer), so that names differing in their last character spread out
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b) >>> 0;
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35) >>> 0;
  return (hash ^ (hash >>> 16)) >>> 0;
}

/** The items in the order the seed gives their names (ties, which are rare, by name). */
export function seededOrder<T extends { name: string }>(items: readonly T[], seed: string): T[] {
  const ranked = items.map((item) => ({ item, rank: seededRank(seed, item.name) }));
  ranked.sort((a, b) => a.rank - b.rank || (a.item.name < b.item.name ? -1 : a.item.name > b.item.name ? 1 : 0));
  return ranked.map((r) => r.item);
}
