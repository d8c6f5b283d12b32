import type { ITheme } from '@xterm/xterm';

/** Terminal palettes matching the app's light and dark themes (styles.css). */
const DARK: ITheme = {
  background: '#0b0d10',
  foreground: '#e6e9ef',
  cursor: '#6d8cff',
  cursorAccent: '#0b0d10',
  selectionBackground: '#2c3a66',
  black: '#1f232c',
  red: '#ff6b5e',
  green: '#46c47e',
  yellow: '#f0a640',
  blue: '#6d8cff',
  magenta: '#c58cff',
  cyan: '#4cc9d9',
  white: '#c9ced8',
  brightBlack: '#5f6b7a',
  brightRed: '#ff8a80',
  brightGreen: '#6fdc9d',
  brightYellow: '#ffc266',
  brightBlue: '#8fa6ff',
  brightMagenta: '#d9aeff',
  brightCyan: '#7fe0ec',
  brightWhite: '#ffffff',
};

const LIGHT: ITheme = {
  background: '#ffffff',
  foreground: '#1b1f27',
  cursor: '#4a63e7',
  cursorAccent: '#ffffff',
  selectionBackground: '#c9d3ff',
  black: '#1b1f27',
  red: '#c9372c',
  green: '#1f8a4c',
  yellow: '#9a5b00',
  blue: '#4a63e7',
  magenta: '#9b3fc8',
  cyan: '#0f7f8c',
  white: '#8a94a3',
  brightBlack: '#5f6b7a',
  brightRed: '#e0463a',
  brightGreen: '#27a35c',
  brightYellow: '#b26a00',
  brightBlue: '#3b53d4',
  brightMagenta: '#b052e0',
  brightCyan: '#138f9e',
  brightWhite: '#3a414d',
};

export function currentTerminalTheme(): ITheme {
  return document.documentElement.dataset.theme === 'dark' ? DARK : LIGHT;
}

/** The app's monospace stack (styles.css --mono), read once so xterm measures the same font. */
export function terminalFontFamily(): string {
  const mono = getComputedStyle(document.documentElement).getPropertyValue('--mono').trim();
  return mono || 'ui-monospace, Menlo, Consolas, "Liberation Mono", monospace';
}

/** Calls `onChange` whenever the app switches between light and dark. */
export function watchTheme(onChange: () => void): () => void {
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
  return () => observer.disconnect();
}
