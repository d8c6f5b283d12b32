/**
 * A text caret stops blinking once nobody has typed, clicked or moved focus for a while, as GTK's
 * cursor-blink-timeout (10 s) does: the browser blinks a focused field's caret twice a second for
 * ever, and each blink is a paint and a composited frame — most of what an idle page costs (the
 * composer has focus on every session; xterm keeps its hidden textarea focused). At rest the
 * caret stays drawn, solid (`caret-animation: manual`, the `caret-resting` class in styles.css);
 * the next key, click or focus change makes it blink again.
 */

/** Quiet this long, the caret stops blinking. */
export const CARET_BLINK_IDLE_MS = 10_000;
/** The class on the root element that stops the blinking. */
export const CARET_RESTING_CLASS = 'caret-resting';

/** What is used of the document: its events and its root element's classes. */
export interface CaretDocument {
  addEventListener(type: string, listener: () => void, options: { capture: boolean; passive: boolean }): void;
  removeEventListener(type: string, listener: () => void, options: { capture: boolean }): void;
  readonly documentElement: { readonly classList: { contains(c: string): boolean; add(c: string): void; remove(c: string): void } };
}

/** What the user does that a caret follows. */
const ACTIVITY = ['keydown', 'pointerdown', 'focusin', 'input', 'paste'] as const;

/** Starts resting the caret after `idleMs` without activity; returns the function that stops it. */
export function restCaretWhenIdle(doc: CaretDocument, idleMs = CARET_BLINK_IDLE_MS, now: () => number = () => performance.now()): () => void {
  const classes = doc.documentElement.classList;
  let last = now();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const check = () => {
    const quiet = now() - last;
    if (quiet < idleMs) {
      timer = setTimeout(check, idleMs - quiet);
      return;
    }
    timer = null;
    classes.add(CARET_RESTING_CLASS);
  };
  const wake = () => {
    last = now();
    // Only when it rests: removing an absent class still rewrites the attribute (a style pass).
    if (classes.contains(CARET_RESTING_CLASS)) classes.remove(CARET_RESTING_CLASS);
    // One timer per quiet period, not one per key: it re-arms itself if there was activity meanwhile.
    timer ??= setTimeout(check, idleMs);
  };
  for (const type of ACTIVITY) doc.addEventListener(type, wake, { capture: true, passive: true });
  wake();
  return () => {
    for (const type of ACTIVITY) doc.removeEventListener(type, wake, { capture: true });
    if (timer) clearTimeout(timer);
    timer = null;
    classes.remove(CARET_RESTING_CLASS);
  };
}
