import { Fragment, useCallback, useEffect, useMemo, useState } from 'react';
import type { AdrSummary, ContextFileView, ContextLayer, MailboxStatus, ReportDetail, ReportStatus, ReportSummary } from '../../../src-preload/contract';
import { Markdown } from '../agents/Markdown';
import { ContainerPlacementFields, usePlacementForm } from '../containers/ContainerPlacementFields';
import { useAppStore, useClient } from '../store';
import './mailbox.css';

type Tab = 'reports' | 'adrs' | 'mission' | 'context' | 'task';
const TABS: { id: Tab; label: string }[] = [
  { id: 'reports', label: 'Reports' },
  { id: 'adrs', label: 'ADRs' },
  { id: 'mission', label: 'Mission' },
  { id: 'context', label: 'Context' },
  { id: 'task', label: 'New task' },
];

/** Refreshes of the report list while tasks run come from events; this is only the debounce of a burst of them. */
const REFRESH_DEBOUNCE_MS = 150;

/**
 * The agent mailbox: create a task, browse reports (filters, full-text search, rendered
 * Markdown, links to the transcript, debug log, commit and command file) and ADRs across
 * projects, read AGENT_MISSION.md, and view or edit the context layers with the composed prompt.
 */
export function MailboxView({ projectId: initialProject, commandId }: { projectId?: string; commandId?: string }) {
  const client = useClient();
  const projects = useAppStore((s) => s.projects);
  const setView = useAppStore((s) => s.setView);
  const toastError = useAppStore((s) => s.toastError);
  const [projectId, setProjectId] = useState<string>(initialProject ?? '');
  const [tab, setTab] = useState<Tab>('reports');
  const [tick, setTick] = useState(0);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const off = client.on('mailbox.changed', () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => setTick((t) => t + 1), REFRESH_DEBOUNCE_MS);
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, [client]);

  const project = projects.find((p) => p.id === projectId) ?? null;
  const needsProject = tab === 'mission' || tab === 'context' || tab === 'task';

  // A report is a page of its own (#/mailbox/<project>/<command id>), reached from the list.
  const openReport = (pid: string, cid: string) => setView({ name: 'mailbox', projectId: pid, commandId: cid });
  const projectSelect = (
    <label className="mailbox-project">
      <span className="muted small">Project</span>
      <select className="input" value={projectId} onChange={(e) => setProjectId(e.target.value)} data-testid="mailbox-project">
        <option value="">All projects</option>
        {projects.map((p) => (
          <option key={p.id} value={p.id}>
            {p.name}
          </option>
        ))}
      </select>
    </label>
  );

  if (initialProject && commandId) {
    return (
      <section className="view mailbox-view" data-testid="mailbox-view">
        <ReportPage
          projectId={initialProject}
          commandId={commandId}
          projectName={projects.find((p) => p.id === initialProject)?.name ?? null}
          tick={tick}
          onBack={() => setView({ name: 'mailbox', projectId: initialProject })}
          onSession={(sessionId) => setView({ name: 'session', sessionId })}
          onError={toastError}
        />
      </section>
    );
  }

  return (
    <section className="view mailbox-view" data-testid="mailbox-view">
      <header className="view-header">
        <div>
          <h1>Mailbox</h1>
          <p className="muted">Tasks given to agents as command files, the reports they write back, their decision records (ADRs), the project&apos;s mission and the context they are given.</p>
        </div>
        <div className="view-actions">{projectSelect}</div>
      </header>
      <div className="segmented mailbox-tabs" role="tablist" aria-label="Mailbox">
        {TABS.map((t) => (
          <button key={t.id} role="tab" aria-selected={tab === t.id} className={tab === t.id ? 'active' : ''} onClick={() => setTab(t.id)} data-testid={`mailbox-tab-${t.id}`}>
            {t.label}
          </button>
        ))}
      </div>
      {needsProject && !project ? (
        <p className="muted">Choose a project above.</p>
      ) : (
        <>
          {tab === 'reports' && project && <RunningBanner projectId={project.id} tick={tick} onError={toastError} />}
          {tab === 'reports' && <Reports projectId={projectId || undefined} tick={tick} onOpen={openReport} onError={toastError} />}
          {tab === 'adrs' && <Adrs projectId={projectId || undefined} tick={tick} onError={toastError} />}
          {tab === 'mission' && project && <Mission projectId={project.id} tick={tick} onError={toastError} />}
          {tab === 'context' && project && <Context projectId={project.id} onError={toastError} />}
          {tab === 'task' && project && <NewTask projectId={project.id} tick={tick} onError={toastError} onCreated={() => setTab('reports')} />}
        </>
      )}
    </section>
  );
}

type OnError = (title: string, e: unknown) => void;

function Reports({ projectId, tick, onOpen, onError }: { projectId?: string; tick: number; onOpen(projectId: string, commandId: string): void; onError: OnError }) {
  const client = useClient();
  const [status, setStatus] = useState<ReportStatus | ''>('');
  const [tag, setTag] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [query, setQuery] = useState('');
  const [list, setList] = useState<{ reports: ReportSummary[]; tags: string[] }>({ reports: [], tags: [] });

  useEffect(() => {
    let live = true;
    client
      .invoke('mailbox.reports.list', { ...(projectId ? { projectId } : {}), ...(status ? { status } : {}), ...(tag ? { tag } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}), ...(query.trim() ? { query } : {}) })
      .then((r) => {
        if (live) setList(r);
      })
      .catch((e: unknown) => onError('Could not list reports', e));
    return () => {
      live = false;
    };
  }, [client, projectId, status, tag, from, to, query, tick, onError]);

  return (
    <div className="mailbox-reports">
      <div className="mailbox-filters">
        <input className="input" type="search" placeholder="Search the reports" value={query} onChange={(e) => setQuery(e.target.value)} aria-label="Search the reports" data-testid="reports-search" />
        <select className="input" value={status} onChange={(e) => setStatus(e.target.value as ReportStatus | '')} aria-label="Status" data-testid="reports-status">
          <option value="">Any status</option>
          <option value="SUCCESS">Success</option>
          <option value="PARTIAL_SUCCESS">Partial success</option>
          <option value="FAILED">Failed</option>
        </select>
        <select className="input" value={tag} onChange={(e) => setTag(e.target.value)} aria-label="Tag" data-testid="reports-tag">
          <option value="">Any tag</option>
          {list.tags.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <label className="small">
          From <input className="input" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
        </label>
        <label className="small">
          To <input className="input" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
        </label>
      </div>
      <ul className="mailbox-list" data-testid="reports-list">
        {list.reports.length === 0 && <li className="muted">No reports.</li>}
        {list.reports.map((r) => (
          <li key={`${r.projectId}/${r.commandId}`}>
            <button
              className="mailbox-row mailbox-report-row"
              disabled={!r.projectId}
              title={r.projectId ? 'Open the report' : 'The report\'s project is not in this Flightdeck'}
              onClick={() => r.projectId && onOpen(r.projectId, r.commandId)}
              data-testid="report-row"
              data-command-id={r.commandId}
            >
              <StatusBadge status={r.status} />
              <span className="truncate mailbox-row-title">{r.title || r.commandId}</span>
              <span className="muted small">
                {r.projectName ?? '—'} · {r.reportDate.slice(0, 16).replace('T', ' ')} · <span className="mono">{r.commandId}</span>
              </span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

const STATUS_TEXT: Record<ReportStatus, string> = { SUCCESS: 'Success', PARTIAL_SUCCESS: 'Partial success', FAILED: 'Failed' };

/** The report's status, in words; the file's own value stays in its title for search. */
function StatusBadge({ status }: { status: ReportStatus }) {
  const tone = status === 'SUCCESS' ? 'ok' : status === 'FAILED' ? 'bad' : 'warn';
  return (
    <span className={`badge badge-${tone}`} title={status} data-status={status}>
      {STATUS_TEXT[status]}
    </span>
  );
}

/** Labels of the report's front matter keys; unknown keys are shown as written. */
const FIELD_LABELS: Record<string, string> = {
  command_id: 'Command',
  session_id: 'Session',
  status: 'Status',
  report_date: 'Date',
  tags: 'Tags',
  commit: 'Commit',
  commit_hash: 'Commit',
  command_type: 'Command type',
};

/** One report on a page of its own: its facts, links to its session, commit and command file, and the rendered report. */
function ReportPage({ projectId, commandId, projectName, tick, onBack, onSession, onError }: { projectId: string; commandId: string; projectName: string | null; tick: number; onBack(): void; onSession(id: string): void; onError: OnError }) {
  const client = useClient();
  const [d, setD] = useState<ReportDetail | null>(null);
  const [missing, setMissing] = useState(false);
  const [detailed, setDetailed] = useState(false);
  const [extra, setExtra] = useState<'log' | 'commit' | 'command' | null>(null);
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    client
      .invoke('mailbox.reports.get', { projectId, commandId })
      .then(setD)
      .catch((e: unknown) => {
        setMissing(true);
        onError('Could not open the report', e);
      });
  }, [client, projectId, commandId, tick, onError]);
  const back = (
    <button className="link small" onClick={onBack} data-testid="report-back">
      ← Reports{projectName ? ` of ${projectName}` : ''}
    </button>
  );
  if (!d)
    return (
      <div>
        {back}
        <p className="muted">{missing ? `No report ${commandId} in this project.` : 'Loading…'}</p>
      </div>
    );
  const { fields, body } = splitFrontMatter(detailed && d.detailedReport ? d.detailedReport : d.report);
  const commit = d.summary.commit;
  const extraText = extra === 'log' ? d.debugLog : extra === 'commit' ? d.commitText : extra === 'command' ? d.commandFile : null;
  const copy = () => {
    if (!commit) return;
    void navigator.clipboard
      ?.writeText(commit)
      .then(() => setCopied(true))
      .catch(() => setCopied(false));
  };
  return (
    <article className="mailbox-report-page" data-testid="report-detail" data-command-id={commandId}>
      <header className="view-header">
        <div className="mailbox-report-heading">
          {back}
          <h1 className="mailbox-report-title" data-testid="report-title">{d.summary.title || commandId}</h1>
          <p className="muted small">
            <StatusBadge status={d.summary.status} /> {projectName ?? d.summary.projectName ?? '—'} · {d.summary.reportDate.slice(0, 16).replace('T', ' ')} · <span className="mono">{commandId}</span>
          </p>
        </div>
        <div className="view-actions">
          <label className="small mailbox-detailed">
            <input type="checkbox" checked={detailed} disabled={!d.detailedReport} onChange={(e) => setDetailed(e.target.checked)} data-testid="report-detailed" /> Detailed report
          </label>
        </div>
      </header>
      <div className="panel mailbox-report-links" data-testid="report-links">
        <dl className="mailbox-facts">
          <dt>Session</dt>
          <dd>
            <button className="link mono" disabled={!d.sessionKnown} title={d.sessionKnown ? 'Open the agent session' : 'The session is not in this Flightdeck'} onClick={() => onSession(d.summary.sessionId)} data-testid="report-transcript">
              {d.summary.sessionId}
            </button>
            {!d.sessionKnown && <span className="muted small"> (not in this Flightdeck)</span>}
          </dd>
          <dt>Commit</dt>
          <dd>
            {commit ? (
              <>
                <code className="mono" title={commit} data-testid="report-commit-hash">
                  {commit.slice(0, 8)}
                </code>{' '}
                <button className="link small" onClick={copy} data-testid="report-commit-copy">
                  {copied ? 'Copied' : 'Copy hash'}
                </button>{' '}
                <button className="link small" aria-pressed={extra === 'commit'} onClick={() => setExtra(extra === 'commit' ? null : 'commit')} data-testid="report-commit">
                  {extra === 'commit' ? 'Hide files' : 'Files changed'}
                </button>
              </>
            ) : (
              <span className="muted">none recorded</span>
            )}
          </dd>
          <dt>Command file</dt>
          <dd>
            <button className="link" disabled={!d.commandFile} aria-pressed={extra === 'command'} onClick={() => setExtra(extra === 'command' ? null : 'command')} data-testid="report-command">
              {d.commandFile ? (extra === 'command' ? 'Hide' : 'Show the processed file') : 'not in commands/processed'}
            </button>
          </dd>
          <dt>Debug log</dt>
          <dd>
            <button className="link" disabled={!d.debugLog} aria-pressed={extra === 'log'} onClick={() => setExtra(extra === 'log' ? null : 'log')} data-testid="report-log">
              {d.debugLog ? (extra === 'log' ? 'Hide' : 'Show') : 'none'}
            </button>
          </dd>
          {fields
            .filter(([k]) => !['session_id', 'command_id', 'status', 'report_date', 'commit', 'commit_hash'].includes(k))
            .map(([k, v]) => (
              <Fragment key={k}>
                <dt>{FIELD_LABELS[k] ?? k}</dt>
                <dd className="mono">{v}</dd>
              </Fragment>
            ))}
        </dl>
        {extra && <pre className="mailbox-pre" data-testid="report-extra">{extraText ?? (extra === 'commit' ? `Commit ${commit} is not in the project's repository.` : '')}</pre>}
      </div>
      <div className="panel mailbox-report-body">
        <Markdown text={body} />
      </div>
    </article>
  );
}

/** The report's front matter as fields (shown as the page's facts) and the Markdown after it. */
function splitFrontMatter(text: string): { fields: [string, string][]; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(text);
  if (!m) return { fields: [], body: text };
  const fields: [string, string][] = [];
  for (const line of m[1]!.split(/\r?\n/)) {
    const kv = /^([A-Za-z_][\w-]*):\s*(.*)$/.exec(line.trim());
    if (kv) fields.push([kv[1]!, kv[2]!.replace(/^"(.*)"$/, '$1')]);
  }
  return { fields, body: text.slice(m[0].length) };
}

/** What the project's mailbox is doing now: tasks running and files waiting. */
function RunningBanner({ projectId, tick, onError }: { projectId: string; tick: number; onError: OnError }) {
  const client = useClient();
  const [status, setStatus] = useState<MailboxStatus | null>(null);
  useEffect(() => {
    client
      .invoke('mailbox.status', { projectId })
      .then(setStatus)
      .catch((e: unknown) => onError('Could not read the mailbox', e));
  }, [client, projectId, tick, onError]);
  if (!status || (status.running.length === 0 && status.pending === 0)) return null;
  return (
    <p className="mailbox-running" role="status" data-testid="mailbox-running">
      {status.running.length > 0 ? `Running: ${status.running.map((r) => r.id).join(', ')}` : ''}
      {status.running.length > 0 && status.pending > 0 ? ' · ' : ''}
      {status.pending > 0 ? `${status.pending} waiting in commands/pending` : ''}
      {!status.watching ? ' · this mailbox is not watched' : ''}
    </p>
  );
}

function Adrs({ projectId, tick, onError }: { projectId?: string; tick: number; onError: OnError }) {
  const client = useClient();
  const [adrs, setAdrs] = useState<AdrSummary[]>([]);
  const [open, setOpen] = useState<{ projectId: string; number: number; text: string } | null>(null);
  useEffect(() => {
    client
      .invoke('mailbox.adrs.list', projectId ? { projectId } : {})
      .then((r) => setAdrs(r.adrs))
      .catch((e: unknown) => onError('Could not list ADRs', e));
  }, [client, projectId, tick, onError]);
  const byProject = useMemo(() => {
    const m = new Map<string, AdrSummary[]>();
    for (const a of adrs) m.set(a.projectName ?? a.projectId ?? '—', [...(m.get(a.projectName ?? a.projectId ?? '—') ?? []), a]);
    return [...m];
  }, [adrs]);
  const show = (a: AdrSummary) => {
    if (!a.projectId) return;
    client
      .invoke('mailbox.adrs.get', { projectId: a.projectId, number: a.number })
      .then((r) => setOpen({ projectId: a.projectId!, number: a.number, text: r.text }))
      .catch((e: unknown) => onError('Could not open the ADR', e));
  };
  return (
    <div className="mailbox-split">
      <div className="mailbox-timeline" data-testid="adr-timeline">
        {byProject.length === 0 && <p className="muted">No ADRs yet. Agents write them in docs/decisions/ of the workspace.</p>}
        {byProject.map(([name, list]) => (
          <section key={name}>
            <h3>{name}</h3>
            <ol>
              {list.map((a) => (
                <li key={a.number}>
                  <button className={`mailbox-row ${open?.number === a.number && open.projectId === a.projectId ? 'active' : ''}`} onClick={() => show(a)} data-testid="adr-row">
                    <span className="adr-number">ADR-{String(a.number).padStart(4, '0')}</span>
                    <span className="truncate">{a.title}</span>
                    <span className="muted small">{new Date(a.modifiedAt).toISOString().slice(0, 10)}</span>
                  </button>
                </li>
              ))}
            </ol>
          </section>
        ))}
      </div>
      {open && (
        <article className="mailbox-detail" data-testid="adr-detail">
          <Markdown text={open.text} />
        </article>
      )}
    </div>
  );
}

function Mission({ projectId, tick, onError }: { projectId: string; tick: number; onError: OnError }) {
  const client = useClient();
  const [text, setText] = useState<string | null | undefined>(undefined);
  const [language, setLanguage] = useState<'en' | 'zh'>('en');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    client
      .invoke('mailbox.mission.get', { projectId })
      .then((r) => setText(r.text))
      .catch((e: unknown) => onError('Could not read AGENT_MISSION.md', e));
  }, [client, projectId, tick, onError]);
  const create = () => {
    setBusy(true);
    client
      .invoke('mailbox.mission.create', { projectId, language })
      .then((r) => setText(r.text))
      .catch((e: unknown) => onError('Could not create AGENT_MISSION.md', e))
      .finally(() => setBusy(false));
  };
  if (text === undefined) return <p className="muted">Loading…</p>;
  if (text === null)
    return (
      <div className="panel mailbox-mission-empty" data-testid="mission-empty">
        <p>This project has no AGENT_MISSION.md yet, the agents&apos; hand-over memory (goals, roadmap, progress, pitfalls, next steps). The first mailbox task creates it from the English template, or create it now.</p>
        <div className="mailbox-mission-create">
          <select className="input" value={language} onChange={(e) => setLanguage(e.target.value as 'en' | 'zh')} aria-label="Mission template" data-testid="mission-template">
            <option value="en">English template (## Progress, ## Next Steps)</option>
            <option value="zh">Chinese template (## 实施进度追踪), the format&apos;s own</option>
          </select>
          <button className="button primary" disabled={busy} onClick={create} data-testid="mission-create">
            Create AGENT_MISSION.md
          </button>
        </div>
      </div>
    );
  return (
    <article className="mailbox-detail mailbox-mission" data-testid="mission">
      <Markdown text={text} />
    </article>
  );
}

const NEW_FILE_TEMPLATE = '---\ntitle: \npriority: 0\ntags: []\nenabled: true\n---\n\n';

function Context({ projectId, onError }: { projectId: string; onError: OnError }) {
  const client = useClient();
  const [taskId, setTaskId] = useState('');
  const [data, setData] = useState<{ files: ContextFileView[]; composed: string; bytes: number } | null>(null);
  const [editing, setEditing] = useState<{ layer: ContextLayer; name: string; text: string } | null>(null);
  const [saving, setSaving] = useState(false);
  const load = useCallback(() => {
    client
      .invoke('mailbox.context.list', { projectId, ...(taskId.trim() ? { taskId: taskId.trim() } : {}) })
      .then(setData)
      .catch((e: unknown) => onError('Could not read the context', e));
  }, [client, projectId, taskId, onError]);
  useEffect(load, [load]);
  const save = () => {
    if (!editing) return;
    setSaving(true);
    client
      .invoke('mailbox.context.save', { projectId, layer: editing.layer, name: editing.name, text: editing.text, ...(editing.layer === 'task' && taskId.trim() ? { taskId: taskId.trim() } : {}) })
      .then(() => {
        setEditing(null);
        load();
      })
      .catch((e: unknown) => onError('Could not save the context file', e))
      .finally(() => setSaving(false));
  };
  return (
    <div className="mailbox-split">
      <div className="mailbox-context-files" data-testid="context-files">
        <label className="small mailbox-task-id">
          <span className="muted">Task id (for the task layer)</span>
          <input className="input" value={taskId} onChange={(e) => setTaskId(e.target.value)} placeholder="task-…" />
        </label>
        {(['global', 'project', 'task'] as const).map((layer) => (
          <section key={layer}>
            <h3>
              {layer[0]!.toUpperCase() + layer.slice(1)}{' '}
              <button className="link small mailbox-add" disabled={layer === 'task' && !taskId.trim()} onClick={() => setEditing({ layer, name: 'new-context.md', text: NEW_FILE_TEMPLATE })}>
                + file
              </button>
            </h3>
            <ul>
              {data?.files
                .filter((f) => f.layer === layer)
                .map((f) => (
                  <li key={f.name}>
                    <button className={`mailbox-row ${f.enabled ? '' : 'disabled-file'}`} onClick={() => setEditing({ layer, name: f.name, text: f.text })} data-testid="context-file">
                      <span className="truncate">{f.title}</span>
                      <span className="muted small">
                        p{f.priority}
                        {f.enabled ? '' : ' · off'}
                        {f.tags.length > 0 ? ` · ${f.tags.join(', ')}` : ''}
                      </span>
                    </button>
                  </li>
                ))}
            </ul>
          </section>
        ))}
      </div>
      <div className="mailbox-detail">
        {editing ? (
          <div className="mailbox-editor">
            <label className="mailbox-task-id">
              <span className="muted small">File</span>
              <input className="input" value={editing.name} onChange={(e) => setEditing({ ...editing, name: e.target.value })} aria-label="Context file name" />
            </label>
            <textarea className="input" value={editing.text} onChange={(e) => setEditing({ ...editing, text: e.target.value })} rows={16} aria-label="Context file text" data-testid="context-editor" />
            <div>
              <button className="button primary" disabled={saving} onClick={save} data-testid="context-save">
                Save
              </button>{' '}
              <button className="button" onClick={() => setEditing(null)}>
                Cancel
              </button>
            </div>
          </div>
        ) : null}
        <h3>
          Composed prompt <span className="muted small mailbox-bytes" data-testid="context-size">{data ? `${data.bytes} bytes` : ''}</span>
        </h3>
        <pre className="mailbox-pre" data-testid="context-preview">{data?.composed || '(no enabled context files)'}</pre>
      </div>
    </div>
  );
}

function NewTask({ projectId, tick, onError, onCreated }: { projectId: string; tick: number; onError: OnError; onCreated(): void }) {
  const client = useClient();
  const [status, setStatus] = useState<MailboxStatus | null>(null);
  const [type, setType] = useState<'new' | 'continue' | 'end'>('new');
  const [sessionId, setSessionId] = useState('');
  const [task, setTask] = useState('');
  const [constraints, setConstraints] = useState('');
  const [expected, setExpected] = useState('');
  const [headings, setHeadings] = useState<'en' | 'zh'>('en');
  const [placement, setPlacement] = useState<'host' | 'container'>('host');
  const [busy, setBusy] = useState(false);
  // A new session's container: engine, image, GPUs, limits and network, as in the new-session dialog.
  const inContainer = type === 'new' && placement === 'container';
  const ctr = usePlacementForm(inContainer);
  const container = ctr.read?.placement;
  useEffect(() => {
    client
      .invoke('mailbox.status', { projectId })
      .then(setStatus)
      .catch((e: unknown) => onError('Could not read the mailbox', e));
  }, [client, projectId, tick, onError]);
  const active = status?.sessions.filter((s) => s.status === 'active') ?? [];
  const submit = () => {
    setBusy(true);
    client
      .invoke('mailbox.task.create', {
        projectId,
        commandType: type,
        task: type === 'end' && !task.trim() ? 'End the session.' : task,
        ...(type !== 'new' ? { sessionId } : {}),
        ...(constraints.trim() ? { constraints } : {}),
        ...(expected.trim() ? { expectedOutput: expected } : {}),
        headings,
        ...(type === 'new' ? { placement } : {}),
        ...(inContainer && container ? { container: { ...(container.engine ? { engine: container.engine } : {}), image: container.image, ...(container.gpus ? { gpus: container.gpus } : {}), ...(container.limits ? { limits: container.limits } : {}), ...(container.network ? { network: container.network } : {}) } } : {}),
      })
      .then(() => {
        setTask('');
        setConstraints('');
        setExpected('');
        onCreated();
      })
      .catch((e: unknown) => onError('Could not create the task', e))
      .finally(() => setBusy(false));
  };
  const ready = (type === 'end' || task.trim() !== '') && (type === 'new' || sessionId !== '') && (!inContainer || !!container);
  return (
    <form
      className="mailbox-task-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (ready) submit();
      }}
      data-testid="task-form"
    >
      {status && (
        <p className="muted small">
          Mailbox {status.root} · {status.watching ? 'watched' : 'not watched'} · {status.pending} pending · {status.running.length} running
        </p>
      )}
      <label>
        Command{' '}
        <select className="input" value={type} onChange={(e) => setType(e.target.value as typeof type)} data-testid="task-type">
          <option value="new">new — start a session</option>
          <option value="continue">continue — another turn of a session</option>
          <option value="end">end — end a session</option>
        </select>
      </label>
      {type !== 'new' && (
        <label>
          Session{' '}
          <select className="input" value={sessionId} onChange={(e) => setSessionId(e.target.value)} data-testid="task-session">
            <option value="">Choose…</option>
            {active.map((s) => (
              <option key={s.sessionId} value={s.sessionId}>
                {s.sessionId} ({s.turnCount} turns)
              </option>
            ))}
          </select>
        </label>
      )}
      <label>
        Task
        <textarea className="input" value={task} onChange={(e) => setTask(e.target.value)} rows={6} data-testid="task-text" />
      </label>
      <label>
        Constraints (optional)
        <textarea className="input" value={constraints} onChange={(e) => setConstraints(e.target.value)} rows={3} data-testid="task-constraints" />
      </label>
      <label>
        Expected output (optional)
        <textarea className="input" value={expected} onChange={(e) => setExpected(e.target.value)} rows={3} data-testid="task-expected" />
      </label>
      {/* What is typed is written as typed, in any language; only the file's section headings follow this choice. */}
      <label>
        Command file template{' '}
        <select className="input" value={headings} onChange={(e) => setHeadings(e.target.value as 'en' | 'zh')} data-testid="task-headings">
          <option value="en">English headings (## Task)</option>
          <option value="zh">Chinese headings (## 任务描述), the format&apos;s own template</option>
        </select>
      </label>
      {type === 'new' && (
        <label>
          Placement{' '}
          <select className="input" value={placement} onChange={(e) => setPlacement(e.target.value as typeof placement)} data-testid="task-placement">
            <option value="host">host — in the mailbox&apos;s worktree on this machine</option>
            <option value="container">container — in a Docker container with the worktree mounted</option>
          </select>
        </label>
      )}
      {inContainer && <ContainerPlacementFields form={ctr.form} onChange={ctr.setForm} engines={ctr.engines} enginesError={ctr.enginesError} />}
      <button className="button primary" type="submit" disabled={!ready || busy} data-testid="task-submit">
        Create task
      </button>
    </form>
  );
}
