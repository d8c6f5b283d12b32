import { useEffect, useRef, useState } from 'react';

/**
 * The text a field shows when its saved value becomes `saved`: the saved value while the field
 * still shows the one before (`base`, untouched), else what the user typed. A value arriving
 * late (the first load after the field was shown, another window's change, a reconnect's
 * reload) must not replace an edit not saved yet.
 */
export function nextDraft(draft: string, base: string | undefined, saved: string | undefined): string {
  return draft === (base ?? '') ? (saved ?? '') : draft;
}

/**
 * A text field's draft of a saved string (undefined while it is not loaded): it follows the saved
 * value until the user edits it, and keeps the edit when the saved value changes meanwhile.
 * Compared as strings, so a reload that brings the same value changes nothing.
 */
export function useDraft(saved: string | undefined): [string, (next: string) => void] {
  const [draft, setDraft] = useState(saved ?? '');
  const base = useRef(saved);
  useEffect(() => {
    if (saved === base.current) return;
    const before = base.current;
    base.current = saved;
    setDraft((d) => nextDraft(d, before, saved));
  }, [saved]);
  return [draft, setDraft];
}
