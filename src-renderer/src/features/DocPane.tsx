import { useEffect, useRef, useState } from 'react';
import type { PlanDocKind } from '../../../src-preload/contract/features';
import { Markdown } from '../agents/Markdown';
import { Icon } from '../components/Icon';
import { DOC_FILE, DOC_LABEL, locateQuote } from './plan-review';

export interface Anchor {
  doc: PlanDocKind;
  quote: string;
  offset: number;
}

type Selection = { ok: true; anchor: Anchor } | { ok: false; message: string } | null;

/**
 * One plan document: rendered, or edited as Markdown with the rendering live beside it. A
 * passage selected in either (mouse or Shift+arrows in the editor) can be commented on; the
 * comment keeps the passage as the document's source has it.
 */
export function DocPane({ kind, text, original, onChange, onComment, readOnly }: { kind: PlanDocKind; text: string; original: string; onChange(text: string): void; onComment(anchor: Anchor): void; readOnly: boolean }) {
  const [editing, setEditing] = useState(false);
  const [selection, setSelection] = useState<Selection>(null);
  const previewRef = useRef<HTMLDivElement>(null);
  const edited = text !== original;

  // A selection made in the preview: the browser's, as long as it lies inside this pane's preview.
  useEffect(() => {
    const onChange = () => {
      const sel = document.getSelection();
      const root = previewRef.current;
      if (!sel || !root || sel.isCollapsed || !sel.anchorNode || !sel.focusNode) return;
      if (!root.contains(sel.anchorNode) || !root.contains(sel.focusNode)) return;
      const hit = locateQuote(text, sel.toString());
      setSelection(hit ? { ok: true, anchor: { doc: kind, ...hit } } : { ok: false, message: 'That passage could not be found in the Markdown; select it in the editor instead.' });
    };
    document.addEventListener('selectionchange', onChange);
    return () => document.removeEventListener('selectionchange', onChange);
  }, [kind, text]);

  const fromEditor = (el: HTMLTextAreaElement) => {
    const { selectionStart: s, selectionEnd: e } = el;
    if (s === e) return setSelection(null);
    const hit = locateQuote(el.value, el.value.slice(s, e), s);
    setSelection(hit ? { ok: true, anchor: { doc: kind, ...hit } } : null);
  };

  const comment = () => {
    if (selection?.ok) {
      onComment(selection.anchor);
      setSelection(null);
    }
  };

  return (
    <section className="doc-pane panel" aria-label={DOC_LABEL[kind]} data-testid={`doc-${kind}`}>
      <div className="doc-toolbar">
        <div className="doc-title">
          <h2>{DOC_LABEL[kind]}</h2>
          <span className="mono muted small">{DOC_FILE[kind]}</span>
          {edited && (
            <span className="badge badge-warn" data-testid={`doc-${kind}-edited`}>
              edited
            </span>
          )}
        </div>
        <div className="doc-actions">
          {edited && !readOnly && (
            <button className="button small-button" onClick={() => onChange(original)} title="Go back to the revision's text">
              Undo my edits
            </button>
          )}
          <button
            className="button small-button"
            // Keeps the preview's selection: a click on a button would otherwise clear it first.
            onMouseDown={(e) => e.preventDefault()}
            onClick={comment}
            disabled={!selection?.ok || readOnly}
            title={selection?.ok === false ? selection.message : 'Select a passage first, then comment on it'}
            data-testid={`comment-selection-${kind}`}
          >
            <Icon name="chat" size={14} /> Comment
          </button>
          {!readOnly && (
            <div className="segmented small" role="radiogroup" aria-label={`${DOC_LABEL[kind]}: view or edit`}>
              <button role="radio" aria-checked={!editing} className={!editing ? 'active' : ''} onClick={() => setEditing(false)}>
                Preview
              </button>
              <button role="radio" aria-checked={editing} className={editing ? 'active' : ''} onClick={() => setEditing(true)} data-testid={`edit-${kind}`}>
                Edit
              </button>
            </div>
          )}
        </div>
      </div>
      {selection?.ok === false && (
        <p className="muted small" role="status">
          {selection.message}
        </p>
      )}
      <div className={`doc-body ${editing ? 'split' : ''}`}>
        {editing && (
          <textarea
            className="doc-editor mono"
            value={text}
            onChange={(e) => onChange(e.target.value)}
            onSelect={(e) => fromEditor(e.currentTarget)}
            spellCheck={false}
            aria-label={`${DOC_LABEL[kind]} (Markdown)`}
            data-testid={`editor-${kind}`}
          />
        )}
        <div className="doc-preview" ref={previewRef} data-testid={`preview-${kind}`}>
          {text.trim() === '' ? <p className="muted">This document is empty.</p> : <Markdown text={text} />}
        </div>
      </div>
    </section>
  );
}
