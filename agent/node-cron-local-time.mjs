/**
 * node-cron reads the wall clock of a task's time zone with Intl.DateTimeFormat, also for a task without one (the
 * system's zone: the agent's housekeeping and inventory schedules). The first Intl.DateTimeFormat of a process
 * makes ICU load its locale data: ~5 MiB of node's binary that then stays resident, a fifth of what the idle agent
 * adds to a bare node (scripts/bench/agent-idle.ts). For the system's zone a Date's local-time getters give the
 * same wall clock and UTC offset at a fraction of that, so the agent's bundle (bundle.mjs) reads them there; a task
 * with a time zone (a maintenance window's) still goes through Intl.
 */

/** node-cron's ESM module that holds the time-zone reading (node_modules/node-cron/dist/_shared.js). */
export const NODE_CRON_SHARED = /[\\/]node-cron[\\/]dist[\\/]_shared\.js$/;

const PARTS_HEAD = 'function buildDateParts(date, timezone) {';
const GMT_HEAD = 'function getTimezoneGMT(date, timezone) {';

const LOCAL_TIME = `
const __localWeekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
function __localDateParts(date) {
    const result = {
        day: date.getDate(),
        month: date.getMonth() + 1,
        year: date.getFullYear(),
        hour: date.getHours(),
        minute: date.getMinutes(),
        second: date.getSeconds(),
        millisecond: date.getMilliseconds(),
        weekday: __localWeekdays[date.getDay()]
    };
    let gmt;
    Object.defineProperty(result, 'gmt', {
        enumerable: true,
        configurable: true,
        get() {
            return gmt ??= __localTimezoneGMT(date);
        }
    });
    return result;
}
function __localTimezoneGMT(date) {
    const offset = -date.getTimezoneOffset();
    if (offset === 0)
        return 'Z';
    const pad = (n) => String(n).padStart(2, '0');
    return \`GMT\${offset < 0 ? '-' : '+'}\${pad(Math.floor(Math.abs(offset) / 60))}:\${pad(Math.abs(offset) % 60)}\`;
}
`;

/**
 * node-cron's _shared.js with buildDateParts and getTimezoneGMT reading a Date's local time when no time zone is
 * given. Throws when node-cron's source no longer has them (a new version): the bundle must not silently lose this.
 */
export function withLocalTimeForSystemZone(source) {
  for (const head of [PARTS_HEAD, GMT_HEAD]) {
    if (source.split(head).length !== 2) {
      throw new Error(`node-cron-local-time: node-cron's _shared.js has no single '${head}'; update the patch`);
    }
  }
  return (
    source
      .replace(PARTS_HEAD, `${PARTS_HEAD}\n    if (!timezone)\n        return __localDateParts(date);`)
      .replace(GMT_HEAD, `${GMT_HEAD}\n    if (!timezone)\n        return __localTimezoneGMT(date);`) + LOCAL_TIME
  );
}

/** The esbuild plugin applying withLocalTimeForSystemZone. */
export const nodeCronLocalTime = {
  name: 'node-cron-local-time',
  setup(bundle) {
    bundle.onLoad({ filter: NODE_CRON_SHARED }, async ({ path }) => {
      const { readFile } = await import('node:fs/promises');
      return { contents: withLocalTimeForSystemZone(await readFile(path, 'utf8')), loader: 'js' };
    });
  },
};
