import type { View } from '../store/app-slice';

/**
 * The current view lives in the address's hash, so a reload, back/forward and a bookmarked
 * link land on the same place. Unknown hashes fall back to the board.
 */
export function viewToHash(view: View): string {
  switch (view.name) {
    case 'board':
      return '#/';
    case 'settings':
      return '#/settings';
    case 'project':
      return `#/project/${encodeURIComponent(view.projectId)}`;
    case 'session':
      return `#/session/${encodeURIComponent(view.sessionId)}`;
    case 'mailbox':
      return `#/mailbox${view.projectId ? `/${encodeURIComponent(view.projectId)}${view.commandId ? `/${encodeURIComponent(view.commandId)}` : ''}` : ''}`;
    case 'terminals':
      return view.terminalId ? `#/terminals/${encodeURIComponent(view.terminalId)}` : '#/terminals';
    case 'autopilot':
      return view.runId ? `#/autopilot/${encodeURIComponent(view.runId)}` : '#/autopilot';
    case 'feature':
      return `#/feature/${encodeURIComponent(view.projectId)}/${encodeURIComponent(view.slug)}`;
    case 'plan':
      return `#/plan/${encodeURIComponent(view.draftId)}${view.screen === 'review' ? '/review' : ''}`;
    default:
      return `#/${(view as { name: string }).name}`;
  }
}

export function hashToView(hash: string): View {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  if (parts[0] === 'settings') return { name: 'settings' };
  if (parts[0] === 'terminals') return parts[1] ? { name: 'terminals', terminalId: parts[1] } : { name: 'terminals' };
  if (parts[0] === 'containers') return { name: 'containers' };
  if (parts[0] === 'mailbox') return { name: 'mailbox', ...(parts[1] ? { projectId: parts[1] } : {}), ...(parts[1] && parts[2] ? { commandId: parts[2] } : {}) };
  if (parts[0] === 'autopilot') return parts[1] ? { name: 'autopilot', runId: parts[1] } : { name: 'autopilot' };
  if (parts[0] === 'project' && parts[1]) return { name: 'project', projectId: parts[1] };
  if (parts[0] === 'session' && parts[1]) return { name: 'session', sessionId: parts[1] };
  if (parts[0] === 'feature' && parts[1] && parts[2]) return { name: 'feature', projectId: parts[1], slug: parts[2] };
  if (parts[0] === 'plan' && parts[1]) return { name: 'plan', draftId: parts[1], screen: parts[2] === 'review' ? 'review' : 'chat' };
  return { name: 'board' };
}
