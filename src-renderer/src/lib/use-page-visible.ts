import { useSyncExternalStore } from 'react';

function subscribe(onChange: () => void): () => void {
  document.addEventListener('visibilitychange', onChange);
  return () => document.removeEventListener('visibilitychange', onChange);
}

const ignore = () => () => undefined;
const visibleNow = () => document.visibilityState !== 'hidden';
const always = () => true;

/**
 * Whether the page can be seen (not a background tab, not a minimized window). Clocks and polls
 * that only redraw what is on screen stop while it cannot: nothing ticks for nobody.
 *
 * `watch: false` (a card whose clock is not running): no listener and always true, so a page
 * being hidden or left does not re-render every card on the board for nothing.
 */
export function usePageVisible(watch = true): boolean {
  return useSyncExternalStore(watch ? subscribe : ignore, watch ? visibleNow : always, always);
}
