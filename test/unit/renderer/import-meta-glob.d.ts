// Vite's import.meta.glob, which vitest resolves when it transforms a test (the renderer's
// types leave Vite's client types out).
interface ImportMeta {
  glob<T = unknown>(pattern: string, options: { query?: string; import?: string; eager: true }): Record<string, T>;
}
