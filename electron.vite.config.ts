import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

const root = dirname(fileURLToPath(import.meta.url));

// Main and preload are bundled for Electron; the same main-process sources also run
// unbundled under plain Node (tsx) for browser mode, the CLI and the tests.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      externalizeDeps: true,
      rollupOptions: {
        input: { index: resolve(root, 'src-main/electron/main.ts'), 'pty-host': resolve(root, 'src-main/terminals/pty-host/main.ts'), 'container-exec': resolve(root, 'src-main/containers/exec-bridge/main.ts'), 'claude-in-container': resolve(root, 'src-main/containers/claude-bridge/main.ts'), 'state-parse-worker': resolve(root, 'src-main/features/state-parse-worker.ts') },
      },
    },
  },
  preload: {
    // The preload runs sandboxed: everything it needs (zod, the contract) is bundled in.
    build: {
      outDir: 'out/preload',
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(root, 'src-preload/electron/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'src-renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      // electron-vite leaves the renderer unminified; the window parses the whole bundle before
      // its first request, and minified it is half the size and half the parse (docs/performance-board.md).
      minify: true,
      // The stylesheet is small and its custom properties are read back as written (themes, tests).
      cssMinify: false,
      rollupOptions: { input: { index: resolve(root, 'src-renderer/index.html') } },
    },
  },
});
