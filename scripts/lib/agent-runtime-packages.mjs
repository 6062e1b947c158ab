/**
 * The npm packages the installed agent needs at run time: the agent's dependencies (and theirs), walked through a
 * built checkout's node_modules. Used by install-agent.sh and package-deb.sh.
 *
 *   node agent-runtime-packages.mjs <checkout> list               prints their names
 *   node agent-runtime-packages.mjs <checkout> copy <node_modules>  copies them there
 *
 * A package found in a top-level node_modules is copied whole (with any nested node_modules, and a native addon's
 * build/); a workspace package (@outpost/shared) contributes its package.json and dist/.
 */
import fs from 'node:fs';
import path from 'node:path';

const [source, mode, out] = process.argv.slice(2);
if (source === undefined || (mode !== 'list' && !(mode === 'copy' && out !== undefined))) {
  console.error('usage: agent-runtime-packages.mjs <checkout> list | copy <node_modules>');
  process.exit(2);
}
const agentDir = path.join(source, 'agent');
const topLevel = new Set(
  [path.join(source, 'node_modules'), path.join(agentDir, 'node_modules')].map((d) =>
    fs.existsSync(d) ? fs.realpathSync(d) : d,
  ),
);

function resolveDir(name, from) {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}
const manifestOf = (dir) => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));

const placed = new Map(); // name -> real dir
const visited = new Set();
const queue = [{ from: agentDir, manifest: manifestOf(agentDir) }];
while (queue.length > 0) {
  const { from, manifest } = queue.shift();
  const deps = [
    ...Object.keys(manifest.dependencies ?? {}).map((name) => ({ name, optional: false })),
    ...Object.keys(manifest.optionalDependencies ?? {}).map((name) => ({ name, optional: true })),
  ];
  for (const { name, optional } of deps) {
    const found = resolveDir(name, from);
    if (found === undefined) {
      if (optional) continue;
      console.error(`${name} (needed by ${manifest.name}) is not installed in ${source}: run npm ci`);
      process.exit(1);
    }
    const real = fs.realpathSync(found);
    if (visited.has(real)) continue;
    visited.add(real);
    const linkParent = path.dirname(name.startsWith('@') ? path.dirname(found) : found);
    if (topLevel.has(fs.realpathSync(linkParent)) && !placed.has(name)) placed.set(name, real);
    queue.push({ from: real, manifest: manifestOf(real) });
  }
}

const names = [...placed.keys()].sort();
if (mode === 'list') {
  for (const name of names) console.log(name);
  process.exit(0);
}
for (const name of names) {
  const real = placed.get(name);
  const dest = path.join(out, name);
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  if (real.split(path.sep).includes('node_modules')) {
    fs.cpSync(real, dest, { recursive: true, dereference: true, filter: (src) => !src.endsWith(`${path.sep}.bin`) });
  } else {
    // a workspace package: what its build produced
    fs.mkdirSync(dest, { recursive: true });
    fs.copyFileSync(path.join(real, 'package.json'), path.join(dest, 'package.json'));
    fs.cpSync(path.join(real, 'dist'), path.join(dest, 'dist'), { recursive: true });
  }
}
console.log(`copied ${names.length} packages`);
