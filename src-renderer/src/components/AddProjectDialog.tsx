import { useEffect, useState, type FormEvent } from 'react';
import { useAppStore, useClient } from '../store';
import { Modal } from './Modal';
import { Icon } from './Icon';
import { useFolderSuggestions } from '../projects/FolderSuggestions';

/** Typing pauses this long before the path is checked, so each keystroke does not run git. */
const VALIDATE_DEBOUNCE_MS = 250;

type Check = { state: 'idle' } | { state: 'checking' } | { state: 'ok'; message: string | null } | { state: 'bad'; message: string };

export function AddProjectDialog({ onClose }: { onClose(): void }) {
  const client = useClient();
  const addProject = useAppStore((s) => s.addProject);
  const setView = useAppStore((s) => s.setView);
  const canPick = useAppStore((s) => s.info?.capabilities.folderDialog ?? false);
  const [path, setPath] = useState('');
  const [check, setCheck] = useState<Check>({ state: 'idle' });
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const folders = useFolderSuggestions(path, setPath);

  useEffect(() => {
    setError(null);
    if (path.trim() === '') {
      setCheck({ state: 'idle' });
      return;
    }
    setCheck({ state: 'checking' });
    let stale = false;
    const t = setTimeout(() => {
      client.invoke('projects.validatePath', { path }).then(
        (r) => !stale && setCheck(r.ok ? { state: 'ok', message: r.message } : { state: 'bad', message: r.message ?? 'Not a usable repository.' }),
        (e: unknown) => !stale && setCheck({ state: 'bad', message: e instanceof Error ? e.message : String(e) }),
      );
    }, VALIDATE_DEBOUNCE_MS);
    return () => {
      stale = true;
      clearTimeout(t);
    };
  }, [path, client]);

  const pick = async () => {
    try {
      const r = await client.invoke('dialog.pickFolder', { title: 'Choose a git repository' });
      if (r.path) setPath(r.path);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!path.trim()) return;
    setSubmitting(true);
    setError(null);
    try {
      const p = await addProject(path.trim());
      setView({ name: 'board' });
      onClose();
      void p;
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <Modal
      title="Add a project"
      onClose={onClose}
      testId="add-project-dialog"
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" form="add-project-form" className="button primary" disabled={submitting || path.trim() === '' || check.state === 'bad'}>
            {submitting ? 'Adding…' : 'Add project'}
          </button>
        </>
      }
    >
      <form id="add-project-form" onSubmit={submit} className="form">
        <p className="muted">A project is a local git repository. Flightdeck never changes it by adding or removing it; agents work in their own worktrees.</p>
        <label className="field">
          <span>Repository folder</span>
          <div className="input-row">
            <input
              autoFocus
              className={`input mono ${check.state === 'bad' || error ? 'invalid' : ''}`}
              placeholder="/home/you/code/my-app"
              value={path}
              onChange={(e) => setPath(e.target.value)}
              spellCheck={false}
              aria-invalid={check.state === 'bad' || error !== null}
              aria-describedby="path-help"
              data-testid="project-path-input"
              {...folders.inputProps}
            />
            {canPick && (
              <button type="button" className="button" onClick={pick}>
                <Icon name="folder" /> Choose…
              </button>
            )}
          </div>
        </label>
        {folders.list}
        <p id="path-help" className={`field-help ${error || check.state === 'bad' ? 'error' : check.state === 'ok' ? 'ok' : ''}`} data-testid="path-help">
          {error ??
            (check.state === 'checking'
              ? 'Checking…'
              : check.state === 'bad'
                ? check.message
                : check.state === 'ok'
                  ? (check.message ?? 'Looks good: a git repository.')
                  : 'Type or paste an absolute path; ~ means your home folder.')}
        </p>
      </form>
    </Modal>
  );
}
