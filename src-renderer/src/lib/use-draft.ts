import { useEffect, useRef, useState } from 'react';

/** How a draft reads once saved (the host trims a path, lower-cases and rejoins domains): the same text as `saved` then. */
export type DraftNormaliser = (draft: string) => string;

const asIs: DraftNormaliser = (d) => d;

/**
 * The text a field shows when its saved value becomes `saved`: the saved value while the field
 * still shows the one before (`base`, untouched) or says the same once normalised (it was just
 * saved, and the host wrote it its way), else what the user typed. A value arriving late (the
 * first load after the field was shown, another window's change, a reconnect's reload) must not
 * replace an edit not saved yet.
 */
export function nextDraft(draft: string, base: string | undefined, saved: string | undefined, normalise: DraftNormaliser = asIs): string {
  if (draft === (base ?? '') || (saved !== undefined && normalise(draft) === saved)) return saved ?? '';
  return draft;
}

/**
 * A text field's draft of a saved string (undefined while it is not loaded): it follows the saved
 * value until the user edits it, and keeps the edit when the saved value changes meanwhile.
 * Compared as strings, so a reload that brings the same value changes nothing. `normalise` is
 * fixed for the field's life.
 */
export function useDraft(saved: string | undefined, normalise: DraftNormaliser = asIs): [string, (next: string) => void] {
  const [draft, setDraft] = useState(saved ?? '');
  const base = useRef(saved);
  const norm = useRef(normalise);
  useEffect(() => {
    if (saved === base.current) return;
    const before = base.current;
    base.current = saved;
    setDraft((d) => nextDraft(d, before, saved, norm.current));
  }, [saved]);
  return [draft, setDraft];
}
