/**
 * Preload (`node --import <this file> ...`) that writes the process's own resource usage when it exits, as one
 * JSON object {cpuSeconds, maxRssBytes}, to the file named by OUTPOST_BENCH_USAGE_FILE. A benchmark learns a short-
 * lived child's CPU time and peak memory this way: /proc/<pid> is gone once the child has been waited for.
 * Plain JavaScript, so the measured process loads no TypeScript loader.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.OUTPOST_BENCH_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const cpuSeconds = (usage.userCPUTime + usage.systemCPUTime) / 1e6;
    writeFileSync(file, JSON.stringify({ cpuSeconds, maxRssBytes: usage.maxRSS * 1024 }));
  });
}
