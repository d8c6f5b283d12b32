/**
 * "Open this session's Changes", asked for by a shortcut or the palette and answered by the
 * session header's Changes button, which owns the dialog.
 */
const OPEN_CHANGES = 'flightdeck:open-changes';

export function requestChanges(sessionId: string): void {
  window.dispatchEvent(new CustomEvent<string>(OPEN_CHANGES, { detail: sessionId }));
}

export function onChangesRequested(sessionId: string, open: () => void): () => void {
  const listener = (e: Event) => (e as CustomEvent<string>).detail === sessionId && open();
  window.addEventListener(OPEN_CHANGES, listener);
  return () => window.removeEventListener(OPEN_CHANGES, listener);
}
