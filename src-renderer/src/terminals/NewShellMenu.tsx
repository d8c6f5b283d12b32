import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useAppStore } from '../store';
import { Icon } from '../components/Icon';
import { Modal } from '../components/Modal';

/** "New shell": in one of the projects, or in any existing folder. */
export function NewShellMenu({ primary = false }: { primary?: boolean }) {
  const projects = useAppStore((s) => s.projects);
  const openTerminal = useAppStore((s) => s.openTerminal);
  const [open, setOpen] = useState(false);
  const [askPath, setAskPath] = useState(false);
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) setOpen(false);
    };
    window.addEventListener('mousedown', close);
    return () => window.removeEventListener('mousedown', close);
  }, [open]);

  return (
    <div className="term-menu-anchor" ref={ref}>
      <button className={`button ${primary ? 'primary' : ''}`} onClick={() => setOpen((o) => !o)} aria-haspopup="menu" aria-expanded={open} data-testid="new-shell">
        <Icon name="plus" /> New shell <Icon name="chevronDown" size={14} />
      </button>
      {open && (
        <div className="term-menu" role="menu">
          {projects.length > 0 && <div className="term-menu-heading">In a project</div>}
          {projects.map((p) => (
            <button
              key={p.id}
              role="menuitem"
              className="term-menu-item"
              onClick={() => {
                setOpen(false);
                void openTerminal({ kind: 'project', projectId: p.id });
              }}
            >
              <Icon name="folder" size={14} /> <span className="truncate">{p.name}</span>
            </button>
          ))}
          {projects.length > 0 && <div className="term-menu-separator" />}
          <button
            role="menuitem"
            className="term-menu-item"
            onClick={() => {
              setOpen(false);
              setAskPath(true);
            }}
          >
            <Icon name="terminal" size={14} /> In another folder…
          </button>
        </div>
      )}
      {askPath && <FolderDialog onClose={() => setAskPath(false)} />}
    </div>
  );
}

function FolderDialog({ onClose }: { onClose(): void }) {
  const openTerminal = useAppStore((s) => s.openTerminal);
  const [path, setPath] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!path.trim()) return;
    setBusy(true);
    const id = await openTerminal({ kind: 'path', path: path.trim() });
    setBusy(false);
    if (id) onClose();
  };
  return (
    <Modal
      title="Open a shell in a folder"
      onClose={onClose}
      footer={
        <>
          <button className="button" onClick={onClose}>
            Cancel
          </button>
          <button className="button primary" type="submit" form="shell-folder-form" disabled={busy || !path.trim()}>
            {busy ? 'Opening…' : 'Open shell'}
          </button>
        </>
      }
    >
      <form id="shell-folder-form" className="form" onSubmit={submit}>
        <label className="field">
          <span>Folder</span>
          <input autoFocus className="input mono" placeholder="/home/you/code/app" value={path} onChange={(e) => setPath(e.target.value)} spellCheck={false} />
        </label>
        <p className="field-help">An absolute path to an existing folder. The shell starts there with your usual environment.</p>
      </form>
    </Modal>
  );
}
