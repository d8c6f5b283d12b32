import { useState } from 'react';
import { Icon } from '../components/Icon';
import { useAppStore } from '../store';
import { DiffView } from './DiffView';
import { parseToolInput, toolSummary, type TranscriptItem } from './transcript';

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

export function ToolCard({ item }: { item: ToolItem }) {
  const input = parseToolInput(item.inputJson);
  const summary = toolSummary(item.tool, input);
  const status = statusOf(item);
  const [open, setOpen] = useState(item.tool === 'bash' || item.tool === 'write' || item.tool === 'patch');
  const content = typeof input?.content === 'string' ? input.content : null;
  const diff = item.approval?.diff ?? null;
  return (
    <div className={`tool-card ${item.result?.isError ? 'tool-error' : ''} ${item.terminalId ? 'has-terminal' : ''}`} data-testid="tool-card" data-tool={item.tool}>
      <button className="tool-header" onClick={() => setOpen((o) => !o)} aria-expanded={open}>
        <Icon name={item.tool === 'bash' ? 'terminal' : 'layers'} size={14} />
        <span className="tool-name">{item.tool}</span>
        <span className="tool-summary mono truncate">{summary.replace(new RegExp(`^${item.tool} `), '')}</span>
        <span className={`badge ${status.cls}`}>{status.label}</span>
      </button>
      {item.terminalId && <OpenTerminal terminalId={item.terminalId} />}
      {open && (
        <div className="tool-body">
          {item.decision && item.decision.decision !== 'allow' && item.approval?.status !== 'approved' && (
            <p className={`tool-decision ${item.decision.decision}`}>
              {item.decision.decision === 'deny' ? 'Refused' : 'Asked'}: {item.decision.reason}
            </p>
          )}
          {item.approval?.status === 'approved' && (
            <p className="tool-decision approved">{item.approval.decision === 'approve_session' ? `Approved for this session (${item.approval.sessionRule})` : 'Approved once'}</p>
          )}
          {item.approval?.status === 'denied' && item.approval.decisionReason && <p className="tool-decision deny">Denied: {item.approval.decisionReason}</p>}
          {diff ? (
            <DiffView diff={diff} />
          ) : content !== null ? (
            <pre className="tool-pre">{content.length > 4000 ? content.slice(0, 4000) + '\n…' : content}</pre>
          ) : input && item.tool !== 'bash' ? (
            <pre className="tool-pre">{JSON.stringify(input, null, 2)}</pre>
          ) : null}
          {item.output && (
            <pre className="tool-pre terminal-out" data-testid="tool-output">
              {item.outputTruncated && '…(earlier output trimmed)\n'}
              {item.output}
            </pre>
          )}
          {item.result && !item.output && item.result.content && (
            <pre className={`tool-pre ${item.result.isError ? 'error' : ''}`} data-testid="tool-result">
              {item.result.content.length > 8000 ? item.result.content.slice(0, 8000) + '\n…' : item.result.content}
            </pre>
          )}
          {item.result && <p className="muted small">{(item.result.durationMs / 1000).toFixed(1)} s</p>}
        </div>
      )}
    </div>
  );
}
