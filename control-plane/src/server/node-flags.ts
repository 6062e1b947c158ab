/**
 * The V8 flags the control plane runs with wherever this repository starts it: `npm start`, the `outpost-server`
 * bin, `npm run cluster`, the systemd units in the README, the benchmarks. They must be given on node's command line
 * (or in NODE_OPTIONS): V8 sizes the young generation once, when the process starts.
 *
 * A status report's parsed message, its document and its row live until their batch commits, a few hundred
 * milliseconds under load. With V8's default 16 MiB semi-spaces a scavenge runs every few dozen milliseconds then, so
 * they survive two of them, get promoted, and the old generation fills with garbage that only full mark-compacts of
 * the whole heap (every device's link state) reclaim. With 64 MiB semi-spaces they die young.
 */
export const CONTROL_PLANE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
