import { useEffect } from 'react';
import { useAppStore } from '../store';

/** Applies light/dark/system to the document, following the OS when set to system. */
export function useTheme(): void {
  const theme = useAppStore((s) => s.settings?.theme ?? 'system');
  useEffect(() => {
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    const apply = () => {
      const dark = theme === 'dark' || (theme === 'system' && media.matches);
      document.documentElement.dataset.theme = dark ? 'dark' : 'light';
    };
    apply();
    media.addEventListener('change', apply);
    return () => media.removeEventListener('change', apply);
  }, [theme]);
}
