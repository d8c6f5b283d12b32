import { useEffect } from 'react';
import { useAppStore } from '../store';

type ThemeSetting = 'light' | 'dark' | 'system';

/**
 * The theme last applied in this browser (or window), so the page's first frames use it: the
 * settings arrive from the host only after the page's first render, and a dark-theme user saw
 * the light shell until then. The host's setting wins as soon as it is known. index.html's
 * inline script applies it before anything is painted (the same rule as `applyTheme`); until
 * the settings arrive, the hook below keeps to it.
 */
const THEME_KEY = 'flightdeck.theme';

function storedTheme(): ThemeSetting {
  try {
    const t = globalThis.localStorage?.getItem(THEME_KEY);
    return t === 'light' || t === 'dark' ? t : 'system';
  } catch {
    // Storage refused (a privacy mode): the system's.
    return 'system';
  }
}

function applyTheme(theme: ThemeSetting): void {
  const dark = theme === 'dark' || (theme === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

/** Applies light/dark/system to the document, following the OS when set to system. */
export function useTheme(): void {
  const setting = useAppStore((s) => s.settings?.theme ?? null);
  useEffect(() => {
    const theme = setting ?? storedTheme();
    if (setting !== null) {
      try {
        globalThis.localStorage?.setItem(THEME_KEY, setting);
      } catch {
        // Not kept: the next start shows the system's theme until the settings arrive.
      }
    }
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    const apply = () => applyTheme(theme);
    apply();
    media.addEventListener('change', apply);
    return () => media.removeEventListener('change', apply);
  }, [setting]);
}
