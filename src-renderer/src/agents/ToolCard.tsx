import { useEffect, useState } from 'react';
import { Icon } from '../components/Icon';
import { useAppStore } from '../store';
import { formatElapsed } from './composer-logic';
import { DiffView, patchInputDiff } from './DiffView';
import { diffChangesNothing } from './diff-parse';
import { clipLines, parseToolInput, toolSummary, type TranscriptItem } from './transcript';
import { usePageVisible } from '../lib/use-page-visible';

/** A written file's content shown in its card; the file on disk has all of it. */
const MAX_CONTENT_CHARS = 4_000;
/** A tool result shown in its card; the model received the same text (capped by the engine). */
const MAX_RESULT_CHARS = 8_000;

/** A pending approval on its card: answer it here, or open the full dialog. */
function PendingActions({ approvalId }: { approvalId: string }) {
  const answer = useAppStore((s) => s.answerApproval);
  const review = useAppStore((s) => s.reviewApproval);
  const [busy, setBusy] = useState(false);
  return (
    <div className="tool-pending" data-testid="tool-pending">
      <span className="small">Waiting for your approval.</span>
      <span className="spacer" />
      <button className="button" onClick={() => review({ approvalId })} data-testid="card-review">
        Review…
      </button>
      <button
        className="button primary"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          await answer(approvalId, 'approve_once');
          setBusy(false);
        }}
        data-testid="card-approve"
      >
        <Icon name="check" /> Approve once
      </button>
    </div>
  );
}

type ToolItem = Extract<TranscriptItem, { kind: 'tool' }>;

function statusOf(t: ToolItem): { label: string; cls: string } {
  if (t.result) return t.result.isError ? { label: t.result.exitCode !== null ? `failed (exit ${t.result.exitCode})` : 'failed', cls: 'badge-bad' } : { label: t.result.exitCode !== null ? `exit ${t.result.exitCode}` : 'done', cls: 'badge-ok' };
  if (t.approval?.status === 'pending') return { label: 'waiting for approval', cls: 'badge-warn' };
  if (t.approval?.status === 'denied') return { label: 'denied', cls: 'badge-bad' };
  if (t.decision?.decision === 'deny') return { label: 'refused', cls: 'badge-bad' };
  return { label: 'running…', cls: '' };
}

function OpenTerminal({ terminalId }: { terminalId: string }) {
  const showTerminal = useAppStore((s) => s.showTerminal);
  const setView = useAppStore((s) => s.setView);
  const exists = useAppStore((s) => s.terminals.some((t) => t.id === terminalId));
  if (!exists) return null;
  return (
    <button
      className="icon-button tool-terminal"
      title="Open this command's terminal"
      aria-label="Open terminal"
      data-testid="open-tool-terminal"
      onClick={() => {
        showTerminal(terminalId);
        setView({ name: 'terminals' });
      }}
    >
      <Icon name="terminal" size={14} />
    </button>
  );
}

/** How often a running tool's elapsed time is redrawn: once a second is what the figure shows. */
const ELAPSED_TICK_MS = 1_000;

/** The time since the tool call began, ticking while it runs. */
function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(() => Date.now());
  const visible = usePageVisible();
  useEffect(() => {
    if (!visible) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), ELAPSED_TICK_MS);
    return () => clearInterval(t);
  }, [visible]);
  return (
    <span className="muted small tool-elapsed" title="Running for" data-testid="tool-elapsed">
      {formatElapsed(now - since)}
    </span>
  );
}

export function ToolCard({ item, running = false }: { item: ToolItem; running?: boolean }) {
  const input = parseToolInput(item.inputJson);
  const summary = toolSummary(item.tool, input);
  const status = statusOf(item);
  const [open, setOpen] = useState(item.tool === 'bash' || item.tool === 'write' || item.tool === 'patch' || item.approval?.status === 'pending');
  const content = typeof input?.content === 'string' ? clipLines(input.content, MAX_CONTENT_CHARS, 'head') : null;
  // Without an approval (auto-edit, a session rule) a patch still shows as a diff, not as JSON.
  const diff = item.approval?.diff ?? (item.tool === 'patch' ? patchInputDiff(input) : null);
  const result = item.result ? clipLines(item.result.content, MAX_RESULT_CHARS, 'head') : null;
  const pending = item.approval?.status === 'pending';
  // A finished command that wrote to stderr: its two streams apart, stderr marked (the terminal keeps them interleaved).
  const streams = item.result?.stderr ? { stdout: clipLines(item.result.stdout ?? '', MAX_RESULT_CHARS, 'tail').text, stderr: clipLines(item.result.stderr, MAX_RESULT_CHARS, 'tail').text } : null;
  return (
    <div className={`tool-card ${item.result?.isError ? 'tool-error' : ''} ${item.terminalId ? 'has-terminal' : ''}`} data-testid="tool-card" data-tool={item.tool}>
      <button className="tool-header" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
        <Icon name={item.tool === 'bash' ? 'terminal' : 'layers'} size={14} />
        <span className="tool-name">{item.tool}</span>
        <span className="tool-summary mono truncate">{summary.replace(new RegExp(`^${item.tool} `), '')}</span>
        {running && status.label === 'running…' && item.startedAt !== undefined && <Elapsed since={item.startedAt} />}
        <span className={`badge ${status.cls}`}>{status.label}</span>
      </button>
      {item.terminalId && <OpenTerminal terminalId={item.terminalId} />}
      {pending && <PendingActions approvalId={item.approval!.id} />}
      {open && (
        <div className="tool-body">
          {item.decision && item.decision.decision !== 'allow' && item.approval?.status !== 'approved' && (
            <p className={`tool-decision ${item.decision.decision}`}>
              {item.decision.decision === 'deny' ? 'Refused' : 'Asked'}: {item.decision.reason}
            </p>
          )}
          {item.decision?.decision === 'allow' && item.decision.source === 'session_rule' && !item.approval && (
            <p className="tool-decision approved" data-testid="tool-session-rule">
              {item.decision.reason}
            </p>
          )}
          {item.approval?.status === 'approved' && (
            <p className="tool-decision approved">{item.approval.decision === 'approve_session' ? `Approved for this session (${item.approval.sessionRule})` : 'Approved once'}</p>
          )}
          {item.approval?.status === 'denied' && item.approval.decisionReason && <p className="tool-decision deny">Denied: {item.approval.decisionReason}</p>}
          {diff && (item.tool === 'write' || item.tool === 'patch') && diffChangesNothing(diff) ? (
            <p className="approval-no-change" data-testid="tool-no-change">
              No change: the file already held this content.
            </p>
          ) : diff ? (
            <DiffView diff={diff} />
          ) : content !== null ? (
            <pre className="tool-pre">
              {content.text}
              {content.cut && '… (the rest is in the file)'}
            </pre>
          ) : input && item.tool !== 'bash' ? (
            <pre className="tool-pre">{JSON.stringify(input, null, 2)}</pre>
          ) : null}
          {streams ? (
            <>
              {streams.stdout && <pre className="tool-pre terminal-out" data-testid="tool-stdout">{streams.stdout}</pre>}
              <div className="tool-stream-label small">stderr</div>
              <pre className="tool-pre tool-stderr" data-testid="tool-stderr">
                {streams.stderr}
              </pre>
            </>
          ) : item.output && (
            <pre className="tool-pre terminal-out" data-testid="tool-output">
              {item.outputTruncated && '… (earlier lines trimmed)\n'}
              {item.output}
            </pre>
          )}
          {item.result && result && !item.output && !streams && result.text && (
            <pre className={`tool-pre ${item.result.isError ? 'error' : ''}`} data-testid="tool-result">
              {result.text}
              {result.cut && '… (cut here)'}
            </pre>
          )}
          {item.result && item.result.durationMs > 0 && <p className="muted small">{(item.result.durationMs / 1000).toFixed(1)} s</p>}
        </div>
      )}
    </div>
  );
}
