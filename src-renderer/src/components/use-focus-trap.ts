import { useEffect, type RefObject } from 'react';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function focusables(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => el.offsetParent !== null || el === document.activeElement);
}

/** Open traps, innermost last: only the top one holds focus (an approval can arrive over another dialog). */
const stack: HTMLElement[] = [];

/**
 * Keeps keyboard focus inside a dialog while it is open: focus moves into it on open (its
 * `[autofocus]`/`data-autofocus` element, else the dialog itself, so a stray Enter typed for
 * the page behind does not press a button), Tab and Shift+Tab cycle inside it, and focus
 * returns to where it was when the dialog closes.
 */
export function useFocusTrap(ref: RefObject<HTMLElement | null>, key: unknown = null): void {
  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    const before = document.activeElement instanceof HTMLElement && !root.contains(document.activeElement) ? document.activeElement : null;
    // An input that took focus itself (autoFocus) keeps it.
    if (!root.contains(document.activeElement)) (root.querySelector<HTMLElement>('[data-autofocus]') ?? root).focus();
    // An autofocus target that cannot take focus yet (a Start button disabled while the dialog loads) leaves it on the dialog.
    if (!root.contains(document.activeElement)) root.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Tab') return;
      const list = focusables(root);
      if (list.length === 0) {
        e.preventDefault();
        return;
      }
      const i = list.indexOf(document.activeElement as HTMLElement);
      const next = e.shiftKey ? (i <= 0 ? list.length - 1 : i - 1) : i < 0 || i === list.length - 1 ? 0 : i + 1;
      e.preventDefault();
      list[next]!.focus();
    };
    // Focus that escapes anyway (a click on the backdrop, a script) is brought back.
    const onFocusIn = (e: FocusEvent) => {
      if (stack[stack.length - 1] === root && e.target instanceof Node && !root.contains(e.target)) root.focus();
    };
    stack.push(root);
    root.addEventListener('keydown', onKey);
    document.addEventListener('focusin', onFocusIn);
    return () => {
      stack.splice(stack.indexOf(root), 1);
      root.removeEventListener('keydown', onKey);
      document.removeEventListener('focusin', onFocusIn);
      // Back to where the user was, unless another dialog is still open (it keeps focus).
      const top = stack[stack.length - 1];
      if (top) top.focus();
      else if (before && before.isConnected) before.focus();
    };
  }, [ref, key]);
}

/** Ctrl+Enter, or Cmd+Enter on a Mac: "submit this dialog" wherever focus is inside it. */
export function isSubmitChord(e: { key: string; ctrlKey: boolean; metaKey: boolean }): boolean {
  return e.key === 'Enter' && (e.ctrlKey || e.metaKey);
}
