import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

const NODE_BUILTINS = ['fs', 'path', 'os', 'child_process', 'net', 'http', 'https', 'crypto', 'stream', 'util', 'url', 'module', 'worker_threads', 'events', 'zlib', 'tty', 'dns', 'readline', 'process', 'buffer', 'timers'];
const nodeBuiltinPatterns = [{ group: ['node:*'], message: 'The renderer runs in a browser sandbox: no Node built-ins.' }];

export default tseslint.config(
  { ignores: ['out/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', '.electron-native/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-empty': ['error', { allowEmptyCatch: false }],
    },
  },
  // The renderer: browser code only. Never main-process code, never Node built-ins, never Electron.
  {
    files: ['src-renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'react-hooks/set-state-in-effect': 'off',
      'no-restricted-imports': [
        'error',
        {
          paths: [...NODE_BUILTINS.map((name) => ({ name, message: 'The renderer runs in a browser sandbox: no Node built-ins.' })), { name: 'electron', message: 'The renderer talks to main only through the contract client.' }],
          patterns: [...nodeBuiltinPatterns, { group: ['**/src-main/**', '**/src-main'], message: 'The renderer never imports main-process code; use the contract client.' }, { group: ['**/src-preload/electron/**'], message: 'Only the contract and client are shared with the renderer.' }],
        },
      ],
    },
  },
  // Pure modules: the contract and the client run in any runtime — no Node, no Electron, no main.
  {
    files: ['src-preload/contract/**/*.ts', 'src-preload/client/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...NODE_BUILTINS.map((name) => ({ name, message: 'The contract is pure: no Node built-ins.' })), { name: 'electron', message: 'The contract is pure: no Electron.' }],
          patterns: [...nodeBuiltinPatterns, { group: ['**/src-main/**'], message: 'The contract never depends on main.' }],
        },
      ],
    },
  },
  // Main-process code runs under plain Node too: only the Electron glue folder may import electron.
  {
    files: ['src-main/**/*.ts'],
    ignores: ['src-main/electron/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'electron', message: 'Only src-main/electron/ may import electron; everything else must run under plain Node.' }],
          patterns: [{ group: ['**/src-renderer/**'], message: 'Main never imports renderer code.' }],
        },
      ],
    },
  },
  // The Claude Code executor's pure core (params, results, parsers, mappers, policy): no Node APIs, unit-tested alone.
  {
    files: ['src-main/coder/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...NODE_BUILTINS.map((name) => ({ name, message: 'coder/core is pure: no Node built-ins (put I/O in src-main/coder/).' })), { name: 'electron', message: 'coder/core is pure.' }],
          patterns: [{ group: ['node:*'], message: 'coder/core is pure: no Node built-ins (put I/O in src-main/coder/).' }, { group: ['**/src-renderer/**'], message: 'Main never imports renderer code.' }],
        },
      ],
    },
  },
  // The containers' pure core (engine addresses, errors, create options, stats, build progress): no Node APIs, no dockerode.
  {
    files: ['src-main/containers/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [...NODE_BUILTINS.map((name) => ({ name, message: 'containers/core is pure: no Node built-ins (put I/O in src-main/containers/).' })), { name: 'electron', message: 'containers/core is pure.' }, { name: 'dockerode', message: 'containers/core is pure: engine calls live in src-main/containers/.' }],
          patterns: [{ group: ['node:*'], message: 'containers/core is pure: no Node built-ins (put I/O in src-main/containers/).' }, { group: ['**/src-renderer/**'], message: 'Main never imports renderer code.' }],
        },
      ],
    },
  },
);
