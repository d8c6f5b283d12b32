/**
 * Child process for the "app exit" test: starts a Coder run against the given server, prints
 * the CLI's pid once it runs, and exits abruptly (as an app that quits mid-run would) as soon
 * as the parent writes a line to its stdin.
 */
import { runCoder } from '../../../src-main/coder/coder';
import { CLAUDE_BIN } from '../../fixtures/model-server/claude-cli';

const [baseUrl, cd, home] = process.argv.slice(2) as [string, string, string];
void runCoder(
  { PROMPT: 'stall please', cd, timeout: 60 },
  {
    claudePath: CLAUDE_BIN,
    backend: { baseUrl, apiKey: 'sk-exit-test-123456', model: 'm' },
    envOverrides: { HOME: home, CLAUDE_CODE_MAX_RETRIES: '0' },
    onSpawn: (pid) => {
      process.stdout.write(`${pid}\n`);
      // Quit without any cleanup call: only the exit handler stands between us and an orphan.
      process.stdin.once('data', () => process.exit(0));
    },
  },
);
