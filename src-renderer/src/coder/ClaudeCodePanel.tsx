import { useEffect, useRef } from 'react';
import { Icon } from '../components/Icon';
import { useDraft } from '../lib/use-draft';
import { useAppStore } from '../store';
import './coder.css';

const trimmed = (s: string): string => s.trim();

/** Settings → Claude Code: is the CLI there, which version, where; its path and timeouts. */
export function ClaudeCodePanel() {
  const detection = useAppStore((s) => s.claudeDetection);
  const detecting = useAppStore((s) => s.detectingClaude);
  const settings = useAppStore((s) => s.coderSettings);
  const detect = useAppStore((s) => s.detectClaude);
  const load = useAppStore((s) => s.loadCoderSettings);
  const update = useAppStore((s) => s.updateCoderSettings);
  // Typed before the settings arrived (the first visit after a start), the path is kept.
  const [path, setPath] = useDraft(settings === null ? undefined : (settings.claudePath ?? ''), trimmed);

  useEffect(() => {
    void load();
    void detect();
  }, [load, detect]);

  // Enter and then leaving the field must not send (and refuse) the same path twice.
  const tried = useRef<string | null | undefined>(undefined);
  const savePath = () => {
    const next = path.trim() === '' ? null : path.trim();
    if (next === (settings?.claudePath ?? null) || next === tried.current) return;
    tried.current = next;
    void update({ claudePath: next });
  };
  const seconds = (k: 'idleTimeoutS' | 'maxDurationS', v: string, min: number) => {
    const n = Number(v);
    if (Number.isInteger(n) && n >= min && n <= 86_400) void update({ [k]: n });
  };

  return (
    <div className="panel" data-testid="claude-code-settings">
      <h3>Claude Code</h3>
      <p className="muted small">A second executor: any session can run its turns on the Claude Code CLI instead of the built-in loop, with the same approvals, transcript and cost.</p>
      <div className="setting-row">
        <div className="claude-status" data-testid="claude-detection">
          {detection === null ? (
            <span className="muted">Looking for the claude CLI…</span>
          ) : detection.found ? (
            <>
              <span className="badge badge-ok">
                <Icon name="check" size={12} /> Found
              </span>
              <span>
                Claude Code <strong data-testid="claude-version">{detection.version ?? 'unknown version'}</strong>
              </span>
              <code className="pill mono small" title={detection.path ?? ''}>
                {detection.path}
              </code>
            </>
          ) : (
            <>
              <span className="badge badge-bad">
                <Icon name="alert" size={12} /> Not found
              </span>
              <span className="small">{detection.message}</span>
              <code className="pill mono small" data-testid="claude-install-hint">
                {detection.installHint}
              </code>
            </>
          )}
        </div>
        <button className="button" onClick={() => void detect()} disabled={detecting} data-testid="claude-detect">
          <Icon name="refresh" size={14} /> {detecting ? 'Detecting…' : 'Detect'}
        </button>
      </div>
      <div className="setting-row">
        <div>
          <strong>CLI path</strong>
          <p className="muted small">Leave empty to use the claude found on PATH (or Flightdeck's own install).</p>
        </div>
        <input
          className="input claude-path mono"
          placeholder="/usr/local/bin/claude"
          value={path}
          onChange={(e) => setPath(e.target.value)}
          onBlur={savePath}
          onKeyDown={(e) => e.key === 'Enter' && savePath()}
          aria-label="claude CLI path"
        />
      </div>
      <div className="setting-row">
        <div>
          <strong>Idle timeout (seconds)</strong>
          <p className="muted small">A Claude Code turn with no output for this long is stopped. Waiting on your approval does not count.</p>
        </div>
        <input className="input narrow" type="number" min={10} max={86400} value={settings?.idleTimeoutS ?? 300} onChange={(e) => seconds('idleTimeoutS', e.target.value, 10)} aria-label="Idle timeout" />
      </div>
      <div className="setting-row">
        <div>
          <strong>Longest turn (seconds)</strong>
          <p className="muted small">A Claude Code turn running longer is stopped; 0 means no limit.</p>
        </div>
        <input className="input narrow" type="number" min={0} max={86400} value={settings?.maxDurationS ?? 1800} onChange={(e) => seconds('maxDurationS', e.target.value, 0)} aria-label="Longest turn" />
      </div>
    </div>
  );
}
