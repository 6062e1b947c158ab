import cliProgress from 'cli-progress';
import type { RolloutEvent, WaveCounts, WavePreflight } from '@outpost/shared';
import type { CliContext } from './context.js';
import { formatTable } from './output.js';
import { printable } from './transfer-commands.js';

/** Devices listed by name under a refusal, a halt or a preflight note before the rest are only counted. */
const LISTED = 20;

export interface RolloutView {
  show(event: RolloutEvent): void;
  /** ends a progress bar still drawn (on any exit) */
  close(): void;
}

/**
 * How a rollout shows itself: with `-o json`, every event as one JSON line (NDJSON); otherwise lines for people
 * on stdout and, on a terminal, a progress bar per wave on stderr (without one, a progress line now and then).
 */
export function rolloutView(ctx: CliContext, stream: NodeJS.WriteStream = process.stderr): RolloutView {
  if (ctx.format !== 'table') {
    return { show: (event) => ctx.print(JSON.stringify(event)), close: () => undefined };
  }
  let bar: cliProgress.SingleBar | undefined;
  let lastLine = 0;
  const endBar = (): void => {
    bar?.stop();
    bar = undefined;
  };
  const progress = (wave: string, counts: WaveCounts): void => {
    if (stream.isTTY) {
      if (!bar) {
        bar = new cliProgress.SingleBar(
          {
            format: `${wave} [{bar}] {value}/{total} done | in flight {inFlight} | failed {failed} | offline {offline} | not targeted {notTargeted}`,
            stream,
            hideCursor: true,
          },
          cliProgress.Presets.shades_classic,
        );
        bar.start(counts.total, counts.done, counts);
      }
      bar.setTotal(counts.total);
      bar.update(counts.done, counts);
      return;
    }
    if (Date.now() - lastLine < 2000) return;
    lastLine = Date.now();
    ctx.print(`  ${wave}: ${countsText(counts)}`);
  };
  return {
    show: (event) => {
      switch (event.event) {
        case 'preflight':
          ctx.print(`Preflight of ${event.version}:`);
          ctx.print(preflightTable(event.waves).trimEnd());
          for (const line of preflightNotes(event.waves)) ctx.print(line);
          return;
        case 'waveSkipped':
          ctx.print(
            event.why === 'empty'
              ? `wave ${event.wave}: no devices, skipped`
              : `wave ${event.wave}: already done (${countsText(event.counts)}), skipped`,
          );
          return;
        case 'waveStarted':
          ctx.print(`wave ${event.wave}: ${event.counts.total} device(s)`);
          return;
        case 'written':
          ctx.print(`wave ${event.wave}: wrote spec.osVersion to ${event.written} device(s)`);
          for (const line of listed(event.refused.map((r) => `${r.name}: ${r.why}`))) ctx.print(`  refused ${line}`);
          return;
        case 'progress':
          progress(event.wave, event.counts);
          return;
        case 'promoted':
          endBar();
          ctx.print(`wave ${event.wave}: through (${countsText(event.counts)})`);
          return;
        case 'halted':
          endBar();
          ctx.print(`wave ${event.wave}: HALTED: ${event.reason} (${countsText(event.counts)})`);
          for (const line of listed(event.failures.map((f) => `${f.name}: ${f.why}`))) ctx.print(`  ${line}`);
          ctx.print('later waves were left untouched');
          return;
        case 'completed':
          ctx.print(`rollout of ${event.version} complete`);
          return;
        case 'watchReconnecting':
          ctx.note(`watch interrupted (${event.why}); reconnecting`);
          return;
      }
    },
    close: endBar,
  };
}

export function countsText(c: WaveCounts): string {
  return `${c.done}/${c.total} done, ${c.inFlight} in flight, ${c.failed} failed, ${c.offline} offline, ${c.notTargeted} not targeted`;
}

function preflightTable(waves: readonly WavePreflight[]): string {
  return formatTable(
    waves.map((w) => ({
      wave: w.wave,
      devices: w.total,
      targeted: w.alreadyTargeted,
      toWrite: w.toWrite,
      refused: w.refused.length,
      offline: w.offline.length,
      failing: w.failingHealth.length,
    })),
    [
      { header: 'WAVE', path: 'wave' },
      { header: 'DEVICES', path: 'devices' },
      { header: 'ALREADY TARGETED', path: 'targeted' },
      { header: 'TO WRITE', path: 'toWrite' },
      { header: 'REFUSED', path: 'refused' },
      { header: 'OFFLINE', path: 'offline' },
      { header: 'FAILING CHECKS', path: 'failing' },
    ],
  );
}

function preflightNotes(waves: readonly WavePreflight[]): string[] {
  const lines: string[] = [];
  for (const w of waves) {
    const notes: [string, string[]][] = [
      ['would be refused', w.refused.map((r) => `${r.name}: ${r.why}`)],
      ['offline (written, they converge when they return)', w.offline],
      ['failing a health check (a trial boot does not commit)', w.failingHealth.map((f) => `${f.name}: ${f.why}`)],
      ['of unknown type (their agent checks the version)', w.unknownType],
    ];
    for (const [what, items] of notes) {
      if (items.length === 0) continue;
      lines.push(`${w.wave}: ${items.length} ${what}:`);
      lines.push(...listed(items).map((item) => `  ${item}`));
    }
  }
  return lines;
}

/** The first items (device text made printable), then how many more. */
function listed(items: readonly string[]): string[] {
  const shown = items.slice(0, LISTED).map(printable);
  return items.length <= LISTED ? shown : [...shown, `... and ${items.length - LISTED} more`];
}
