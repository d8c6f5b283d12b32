import { useEffect, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent } from 'react';
import type { ImageAttachment, ImageMediaType, QueuedInput } from '../../../src-preload/contract/agents';
import { Icon } from '../components/Icon';
import { useAppStore, useClient } from '../store';
import { caretAtEdge, historyStart, historyStep, imageRefusal, insertMention, mentionAt, type HistoryState, type PendingImage } from './composer-logic';
import { draftImages, draftText, keepDraft, keepDraftImages } from './composer-drafts';
import { unsentText } from '../lib/unsent-text';
import { completeSlash } from './slash-commands';
import { nextMode } from '../keyboard/shortcuts';
import { MODES } from './SessionHeader';
import { dialogOpen } from '../components/dialog-open';

let imageSeq = 0;
const NO_QUEUE: readonly QueuedInput[] = [];
/** A pause in typing before the files are asked for: one request per word, not per key. */
const MENTION_DEBOUNCE_MS = 80;

export { dialogOpen };

export function Composer({
  sessionId,
  running,
  history,
  onSend,
  onStop,
  disabled,
  cycleModes = false,
  queues = true,
}: {
  sessionId: string;
  /**
   * Whether an input sent while a turn runs is queued behind it (a session's queue, in the main
   * process). A plan's chat takes one message at a time: there the box keeps what is typed
   * meanwhile and says so, instead of promising a queue.
   */
  queues?: boolean;
  /** Shift+Tab moves the session to its next mode, as in Claude Code (a plan's chat keeps its mode). */
  cycleModes?: boolean;
  running: boolean;
  /** The session's earlier inputs, oldest first, for Up/Down. */
  history: readonly string[];
  onSend(text: string, images: readonly ImageAttachment[]): Promise<boolean>;
  onStop(): void;
  disabled?: boolean;
}) {
  // What was left unsent in this session's box comes back with it (composer-drafts.ts).
  const [text, setText] = useState(() => draftText(sessionId));
  useEffect(() => keepDraft(sessionId, text), [sessionId, text]);
  const [selected, setSelected] = useState(0);
  const [sending, setSending] = useState(false);
  // Whether a send awaits its answer (read by the next Enter, before a render shows `sending`), and
  // the box as it was when Enter came meanwhile: what goes once that answer is in.
  const sendingRef = useRef(false);
  const enteredMeanwhile = useRef<string | null>(null);
  const [hist, setHist] = useState<HistoryState>(historyStart);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  // The queue lives in the main process (it decides whether an input starts a turn or waits); this shows it.
  const queue = useAppStore((s) => s.sessions.find((x) => x.id === sessionId)?.queue ?? NO_QUEUE);
  const queueHeld = useAppStore((s) => s.sessions.find((x) => x.id === sessionId)?.queueHeld ?? null);
  const removeQueued = useAppStore((s) => s.removeQueued);
  const resumeQueue = useAppStore((s) => s.resumeQueue);
  const toast = useAppStore((s) => s.toast);
  const sessionMode = useAppStore((s) => s.sessions.find((x) => x.id === sessionId)?.mode ?? null);
  const updateSession = useAppStore((s) => s.updateSession);
  const [images, setImages] = useState<PendingImage[]>(() => draftImages(sessionId));
  // The latest list for the file readers, which finish after the render that started them.
  const imagesRef = useRef<PendingImage[]>(images);
  const updateImages = (next: PendingImage[]) => {
    imagesRef.current = next;
    keepDraftImages(sessionId, next);
    setImages(next);
  };

  /** Attaches image files (pasted or dropped); the rest is refused with the reason. */
  const attach = (files: readonly File[]) => {
    for (const file of files) {
      const refusal = imageRefusal(imagesRef.current, file);
      if (refusal) {
        toast({ level: 'warning', title: 'Image not attached', message: refusal });
        continue;
      }
      const reader = new FileReader();
      reader.onload = () => {
        const url = String(reader.result);
        const data = url.slice(url.indexOf(',') + 1);
        // Checked again: other images may have been read in the meantime.
        if (imageRefusal(imagesRef.current, file)) return;
        updateImages([...imagesRef.current, { id: `img${++imageSeq}`, name: file.name || 'pasted image', mediaType: file.type as ImageMediaType, data, bytes: file.size }]);
      };
      reader.onerror = () => toast({ level: 'error', title: 'Image not attached', message: `${file.name || 'The image'} could not be read.` });
      reader.readAsDataURL(file);
    }
  };
  const imageFiles = (list: FileList | null | undefined) => [...(list ?? [])].filter((f) => f.type.startsWith('image/'));
  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = imageFiles(e.clipboardData?.files);
    if (files.length === 0) return;
    e.preventDefault();
    attach(files);
  };
  const onDrop = (e: DragEvent<HTMLDivElement>) => {
    const files = imageFiles(e.dataTransfer?.files);
    if (files.length === 0) return;
    e.preventDefault();
    attach(files);
  };
  // A session opened (or started) is for typing: the composer has focus, unless a dialog took it.
  useEffect(() => {
    if (!document.querySelector('[role="dialog"]')) inputRef.current?.focus();
  }, []);
  const suggestions = completeSlash(text);
  const client = useClient();
  const [caret, setCaret] = useState(0);
  // Escape closes the menu of one mention; typing a new @ opens it again.
  const [dismissed, setDismissed] = useState<number | null>(null);
  const typed = mentionAt(text, caret);
  const mention = typed && typed.start !== dismissed ? typed : null;
  const mentionQuery = mention?.query ?? null;
  const [files, setFiles] = useState<{ query: string; paths: string[] } | null>(null);
  const [fileSel, setFileSel] = useState(0);
  // Ask main for the files matching the mention being typed; a slower answer to an older query is dropped.
  useEffect(() => {
    if (mentionQuery === null) return;
    let stale = false;
    const t = setTimeout(() => {
      client
        .invoke('agents.files.suggest', { sessionId, query: mentionQuery })
        .then((r) => {
          if (stale) return;
          setFiles({ query: mentionQuery, paths: r.paths });
          setFileSel(0);
        })
        // No suggestions is the honest answer when the listing failed; typing goes on unaffected.
        .catch(() => !stale && setFiles({ query: mentionQuery, paths: [] }));
    }, MENTION_DEBOUNCE_MS);
    return () => {
      stale = true;
      clearTimeout(t);
    };
  }, [client, sessionId, mentionQuery]);
  const filePaths = mention && files ? files.paths : [];
  const pickFile = (path: string) => {
    if (!mention) return;
    const next = insertMention(text, mention.start, caret, path);
    setText(next.text);
    setCaret(next.caret);
    setFiles(null);
    requestAnimationFrame(() => {
      inputRef.current?.focus();
      inputRef.current?.setSelectionRange(next.caret, next.caret);
    });
  };
  const mode = text.trimStart().startsWith('!') ? 'bang' : text.trimStart().startsWith('/') ? 'slash' : 'chat';

  // `typed`: the box as this render shows it (the handler is made anew each render).
  const send = async (typed: string = text): Promise<void> => {
    const value = typed.trim();
    if (!value) return;
    // Enter while the last message is on its way: this one goes as soon as that is answered
    // (it used to be ignored, the text left in the box as if sent).
    if (sendingRef.current) {
      enteredMeanwhile.current = typed;
      return;
    }
    setHist(historyStart);
    const sentImages = imagesRef.current;
    const attached = sentImages.map((i) => ({ mediaType: i.mediaType, data: i.data }));
    // The main process starts the turn or queues the input behind the running one; until it has
    // answered the text stays here, and a refusal leaves it here to send again.
    sendingRef.current = true;
    setSending(true);
    const ok = await onSend(value, attached);
    sendingRef.current = false;
    setSending(false);
    const entered = enteredMeanwhile.current;
    enteredMeanwhile.current = null;
    if (ok) {
      // Only what was sent goes: text typed and images attached while the answer was on its way
      // stay, and only they go with the Enter that came meanwhile.
      setText((cur) => unsentText(cur, typed));
      // Also straight into the kept draft: the box may be gone by now (another session shown
      // while the answer was on its way), and the sent text must not come back with it.
      keepDraft(sessionId, unsentText(draftText(sessionId), typed));
      if (sentImages.length > 0) updateImages(imagesRef.current.filter((i) => !sentImages.includes(i)));
      // Sent after a refusal, it would be refused again: then it waits for the user, as the first.
      if (entered !== null) void send(unsentText(entered, typed));
    }
  };

  const recall = (e: KeyboardEvent<HTMLTextAreaElement>, dir: 'up' | 'down'): boolean => {
    const el = e.currentTarget;
    if (el.selectionStart !== el.selectionEnd || !caretAtEdge(text, el.selectionStart, dir)) return false;
    const step = historyStep(history, hist, text, dir);
    if (!step) return false;
    e.preventDefault();
    setHist(step.state);
    setText(step.text);
    setSelected(0);
    // The caret goes to the end, so the next Up/Down keeps walking the history.
    requestAnimationFrame(() => inputRef.current?.setSelectionRange(step.text.length, step.text.length));
    return true;
  };

  const complete = (name: string) => {
    setText(`/${name} `);
    setSelected(0);
  };

  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (filePaths.length > 0) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        setFileSel((i) => (i + (e.key === 'ArrowDown' ? 1 : filePaths.length - 1)) % filePaths.length);
        return;
      }
      if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey)) {
        e.preventDefault();
        pickFile(filePaths[Math.min(fileSel, filePaths.length - 1)]!);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        setDismissed(mention!.start);
        return;
      }
    }
    if (e.key === 'Escape' && running && !dialogOpen()) {
      e.preventDefault();
      onStop();
      return;
    }
    if (e.key === 'Tab' && e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey && cycleModes && sessionMode) {
      e.preventDefault();
      void updateSession(sessionId, { mode: nextMode(sessionMode) });
      return;
    }
    // Walking the history wins over the slash menu: a recalled "/diff" must not trap the arrows.
    if ((e.key === 'ArrowUp' || e.key === 'ArrowDown') && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey) {
      const dir = e.key === 'ArrowUp' ? 'up' : 'down';
      if ((hist.index !== null || suggestions.length === 0 || text.includes(' ')) && recall(e, dir)) return;
    }
    if (suggestions.length > 0 && !text.includes(' ')) {
      if (e.key === 'ArrowDown') {
        e.preventDefault();
        setSelected((s) => (s + 1) % suggestions.length);
        return;
      }
      if (e.key === 'ArrowUp') {
        e.preventDefault();
        setSelected((s) => (s - 1 + suggestions.length) % suggestions.length);
        return;
      }
      if (e.key === 'Tab') {
        e.preventDefault();
        complete(suggestions[Math.min(selected, suggestions.length - 1)]!.name);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      void send();
    }
  };

  return (
    <div className="composer">
      {queue.length > 0 && (
        <ul className="composer-queue" data-testid="composer-queue" aria-label="Queued messages">
          {/* Held: why comes first, where it is seen even when the list scrolls. */}
          {queueHeld && !running && <li className="small queue-hint queue-held" data-testid="queue-held">{queueHeld}</li>}
          {queue.map((q, i) => (
            <li key={q.id} className="queued-input" data-testid="queued-input">
              <span className="badge">{i === 0 && queueHeld && !running ? 'held' : 'queued'}</span>
              <span className="queued-text" title={q.text}>
                {q.text}
                {q.images > 0 && <span className="muted small"> (+{q.images} image{q.images === 1 ? '' : 's'})</span>}
              </span>
              {i === 0 && queueHeld && !running && (
                <button className="button" onClick={() => void resumeQueue(sessionId)} data-testid="queued-send">
                  Send now
                </button>
              )}
              <button className="icon-button" title="Remove from the queue" aria-label="Remove queued message" onClick={() => void removeQueued(sessionId, q.id)} data-testid="queued-remove">
                <Icon name="x" size={14} />
              </button>
            </li>
          ))}
          {!(queueHeld && !running) && <li className="muted small queue-hint">Sent one by one when the agent finishes its turn.</li>}
        </ul>
      )}
      {filePaths.length > 0 && (
        <ul className="slash-menu mention-menu" role="listbox" aria-label="Files" data-testid="mention-menu">
          {filePaths.map((p, i) => (
            <li key={p} role="option" aria-selected={i === fileSel} className={i === fileSel ? 'selected' : ''} onMouseDown={(e) => (e.preventDefault(), pickFile(p))}>
              <span className="mono truncate">{p}</span>
            </li>
          ))}
        </ul>
      )}
      {suggestions.length > 0 && !text.includes(' ') && (
        <ul className="slash-menu" role="listbox" data-testid="slash-menu">
          {suggestions.map((c, i) => (
            <li key={c.name} role="option" aria-selected={i === selected} className={i === selected ? 'selected' : ''} onMouseDown={(e) => (e.preventDefault(), complete(c.name))}>
              <span className="mono">
                /{c.name} <span className="muted">{c.args}</span>
              </span>
              <span className="muted small">{c.help}</span>
            </li>
          ))}
        </ul>
      )}
      <div className={`composer-box mode-${mode}`} onDragOver={(e) => e.dataTransfer.types.includes('Files') && e.preventDefault()} onDrop={onDrop}>
        {images.length > 0 && (
          <ul className="composer-images" aria-label="Attached images" data-testid="composer-images">
            {images.map((img) => (
              <li key={img.id} className="image-chip" data-testid="image-chip" title={`${img.name} (${Math.max(1, Math.round(img.bytes / 1024))} KB)`}>
                <img src={`data:${img.mediaType};base64,${img.data}`} alt={img.name} />
                <span className="small truncate">{img.name}</span>
                <button className="icon-button" aria-label={`Remove ${img.name}`} title="Remove the image" onClick={() => updateImages(imagesRef.current.filter((x) => x.id !== img.id))} data-testid="image-remove">
                  <Icon name="x" size={12} />
                </button>
              </li>
            ))}
          </ul>
        )}
        <textarea
          ref={inputRef}
          className="composer-input"
          placeholder={
            running
              ? queues
                ? 'The agent is working… Enter queues a message, Esc interrupts'
                : 'The agent is answering… write your next message here and send it once the answer is done; Esc interrupts'
              : 'Ask the agent, "!command" to run a shell command, "/" for commands, ↑ for earlier inputs'
          }
          value={text}
          rows={Math.min(8, Math.max(2, text.split('\n').length))}
          onSelect={(e) => setCaret(e.currentTarget.selectionStart)}
          onChange={(e) => {
            setCaret(e.target.selectionStart);
            setText(e.target.value);
            setSelected(0);
            setHist(historyStart);
          }}
          onKeyDown={onKey}
          onPaste={onPaste}
          disabled={disabled}
          data-testid="composer-input"
          aria-label="Message"
        />
        <div className="composer-actions">
          {cycleModes && sessionMode && (
            <span className={`badge composer-mode mode-chip-${sessionMode}`} title="The session's mode: Shift+Tab in this box switches to the next (Default → Auto-edit → Plan)" data-testid="composer-mode">
              {MODES.find((m) => m.value === sessionMode)?.label ?? sessionMode} · Shift+Tab
            </span>
          )}
          <span className="muted small">{mode === 'bang' ? 'Shell command (policy applies)' : mode === 'slash' ? 'Command' : running ? (queues ? 'Enter to queue, Esc to interrupt' : 'Send once the answer is done, Esc to interrupt') : 'Enter to send, Shift+Enter for a new line'}</span>
          {running ? (
            <span className="composer-buttons">
              {queues && text.trim() && (
                <button className="button" onClick={() => void send()} disabled={disabled} data-testid="queue">
                  Queue
                </button>
              )}
              <button className="button danger" onClick={onStop} data-testid="stop" title="Interrupt the turn (Esc)">
                <Icon name="x" /> Stop
              </button>
            </span>
          ) : (
            <button className="button primary" onClick={() => void send()} disabled={!text.trim() || sending || disabled} data-testid="send">
              Send
            </button>
          )}
        </div>
      </div>
    </div>
  );
}
