/**
 * `npm run bench [name…]`: runs each benchmark module and prints one JSON object keyed by
 * bench name. Each capability adds one line to BENCHES; a module exports
 * `async function run(): Promise<Record<string, unknown>>`.
 */
type BenchModule = { run(): Promise<Record<string, unknown>> };

const BENCHES: Record<string, () => Promise<BenchModule>> = {
  agents: () => import('./agents'),
  board: () => import('./board'),
  coder: () => import('./coder'),
  containers: () => import('./containers'),
  'feature-runs': () => import('./feature-runs'),
  scale: () => import('./scale'),
  terminals: () => import('./terminals'),
  worktrees: () => import('./worktrees'),
};

const only = process.argv.slice(2);
const results: Record<string, unknown> = {};
for (const [name, load] of Object.entries(BENCHES)) {
  if (only.length > 0 && !only.includes(name)) continue;
  try {
    results[name] = await (await load()).run();
  } catch (e) {
    results[name] = { error: e instanceof Error ? e.message : String(e) };
    // A benchmark that could not run is a failure, not a figure.
    process.exitCode = 1;
  }
}
process.stdout.write(JSON.stringify(results, null, 2) + '\n');

export {};
