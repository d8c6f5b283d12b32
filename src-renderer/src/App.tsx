// Every view's stylesheet, first and in the order the views' imports reached them before the
// views were loaded lazily: the cascade between these and styles.css (imported after App) stays
// what it was, instead of a view's rules arriving after styles.css when the view is first shown.
import './projects/projects.css';
import './sessions/sessions.css';
import './inbox/inbox.css';
import './components/trust.css';
import './containers/containers.css';
import './session-worktrees/session-worktrees.css';
import './features/board.css';
import './autopilot/autopilot.css';
import './providers/providers.css';
import './coder/coder.css';
import './budgets/budgets.css';
import 'react-diff-view/style/index.css';
import './changes/changes.css';
import './agents/agents.css';
import './mailbox/mailbox.css';
import '@xterm/xterm/css/xterm.css';
import './terminals/terminals.css';
import './containers/images.css';
import './features/features.css';
import './feature-view/candidates.css';
import './feature-view/feature-view.css';
import './keyboard/keyboard.css';
import { createElement, useEffect, useState, type ComponentType } from 'react';
import { useAppStore } from './store';
import { Sidebar } from './components/Sidebar';
import { StatusBar } from './components/StatusBar';
import { Toasts } from './components/Toasts';
import { StorageBanner } from './components/StorageBanner';
import { useTheme } from './lib/use-theme';
import { hashToView } from './lib/route';
import { BoardView } from './views/BoardView';
import { useTerminalsSync } from './terminals/use-terminals-sync';
import { KeyboardLayer, SkipLink } from './keyboard/KeyboardLayer';
import { afterIdle } from './lib/after-idle';
import { useAheadOfView } from './lib/ahead-of-view';

// The board is the first page; every other view is loaded when first shown. Together they are
// most of the UI's code (xterm, the diff viewer and syntax highlighter, markdown, charts), which
// the first page would otherwise download, parse and run before its first card
// (docs/performance-board.md).
const SettingsView = preloadable(() => import('./views/SettingsView').then((m) => m.SettingsView));
const ProjectView = preloadable(() => import('./views/ProjectView').then((m) => m.ProjectView));
const SessionView = preloadable(() => import('./agents/SessionView').then((m) => m.SessionView));
const MailboxView = preloadable(() => import('./mailbox/MailboxView').then((m) => m.MailboxView));
const ApprovalDialog = preloadable(() => import('./agents/ApprovalDialog').then((m) => m.ApprovalDialog));
const TerminalsView = preloadable(() => import('./terminals/TerminalsView').then((m) => m.TerminalsView));
const ContainersView = preloadable(() => import('./containers/ContainersView').then((m) => m.ContainersView));
const AutopilotView = preloadable(() => import('./autopilot/AutopilotView').then((m) => m.AutopilotView));
const PlanChatView = preloadable(() => import('./features/PlanChatView').then((m) => m.PlanChatView));
const FeatureView = preloadable(() => import('./feature-view/FeatureView').then((m) => m.FeatureView));
const PlanReviewView = preloadable(() => import('./features/PlanReviewView').then((m) => m.PlanReviewView));

/**
 * A lazily loaded view whose code can be fetched ahead (`preload`), rendered without Suspense:
 * React.lazy suspends on its first render even when the code is there, and React keeps a
 * Suspense boundary's fallback at least 300 ms (its FALLBACK_THROTTLE_MS) — which a first switch
 * to a session (or the first visit to any view) spent showing nothing. Every view the app loads
 * lazily goes through this. Here the view renders at once when its code is loaded,
 * and otherwise as soon as it arrives; a failed fetch is thrown to the error boundary.
 */
function preloadable<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> & { preload(): void } {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<ComponentType<P>> | null = null;
  const fetch = () =>
    (loading ??= load().then(
      (c) => (loaded = c),
      (e: unknown) => {
        // A failed fetch (the host restarting) is tried again by the next mount.
        loading = null;
        throw e;
      },
    ));
  function View(props: P) {
    const [state, setState] = useState<{ view: ComponentType<P> | null; error: unknown }>(() => ({ view: loaded, error: null }));
    useEffect(() => {
      if (state.view) return;
      let live = true;
      fetch().then(
        (view) => live && setState({ view, error: null }),
        (error: unknown) => live && setState({ view: null, error }),
      );
      return () => {
        live = false;
      };
    }, [state.view]);
    if (state.error) throw state.error;
    return state.view ? createElement(state.view, props) : null;
  }
  return Object.assign(View, { preload: () => void fetch().catch(() => undefined) });
}

/**
 * The views opened first after a start (a session, the terminals): their code is fetched and run
 * once the page has settled (two seconds, then idle), so the first switch to one does not wait
 * for it. Not sooner: parsing 0.7 MB of script while the board's list arrives delayed the board.
 */
const PREFETCH_AFTER_MS = 2_000;
function prefetchViews(): () => void {
  let cancelIdle: (() => void) | null = null;
  const timer = setTimeout(() => {
    cancelIdle = afterIdle(() => {
      SessionView.preload();
      TerminalsView.preload();
    }, 3_000);
  }, PREFETCH_AFTER_MS);
  return () => {
    clearTimeout(timer);
    cancelIdle?.();
  };
}

export function App() {
  const view = useAppStore((s) => s.view);
  const connection = useAppStore((s) => s.connection);
  const refreshProjects = useAppStore((s) => s.refreshProjects);
  const setView = useAppStore((s) => s.setView);
  // A Planner's session opened from the sidebar is its plan's chat (with /approve and the plan's header).
  const planOfSession = useAppStore((s) => (view.name === 'session' ? (s.drafts.find((d) => d.sessionId === view.sessionId)?.id ?? null) : null));
  // The approval dialog (and its diff viewer) is loaded when there is something to approve.
  const approvalsWaiting = useAppStore((s) => s.approvals.length > 0);

  useTheme();
  useTerminalsSync();
  useAheadOfView();
  useEffect(prefetchViews, []);

  useEffect(() => {
    // Git state goes stale while the user works in other windows: refresh when we come back.
    const onFocus = () => void refreshProjects();
    window.addEventListener('focus', onFocus);
    const onHash = () => setView(hashToView(location.hash));
    window.addEventListener('hashchange', onHash);
    return () => {
      window.removeEventListener('focus', onFocus);
      window.removeEventListener('hashchange', onHash);
    };
  }, [refreshProjects, setView]);

  return (
    <div className="app">
      <SkipLink />
      <Sidebar />
      <main className="main" id="main-content" tabIndex={-1} data-testid="main">
        {connection === 'unauthorized' && (
          <div className="banner banner-error" role="alert" data-testid="auth-banner">
            <strong>This page's access has expired.</strong> Flightdeck was restarted with a new token. Open the address it printed
            (<code>Flightdeck ready at http://…/?token=…</code>) to continue; nothing was lost.
          </div>
        )}
        <StorageBanner />
        {view.name === 'board' && <BoardView />}
        {/* Nothing here suspends: each lazily loaded view shows itself once its code is there (preloadable). */}
        {view.name === 'settings' && <SettingsView />}
        {view.name === 'project' && <ProjectView projectId={view.projectId} />}
        {view.name === 'session' &&
          (planOfSession ? <PlanChatView key={planOfSession} draftId={planOfSession} /> : <SessionView key={view.sessionId} sessionId={view.sessionId} />)}
        {view.name === 'terminals' && <TerminalsView />}
        {view.name === 'containers' && <ContainersView />}
        {view.name === 'mailbox' && <MailboxView key={`${view.projectId ?? ''}/${view.commandId ?? ''}`} {...(view.projectId ? { projectId: view.projectId } : {})} {...(view.commandId ? { commandId: view.commandId } : {})} />}
        {view.name === 'autopilot' && <AutopilotView runId={view.runId} />}
        {view.name === 'feature' && <FeatureView key={`${view.projectId}/${view.slug}`} projectId={view.projectId} slug={view.slug} />}
        {view.name === 'plan' && view.screen === 'chat' && <PlanChatView key={view.draftId} draftId={view.draftId} />}
        {view.name === 'plan' && view.screen === 'review' && <PlanReviewView key={view.draftId} draftId={view.draftId} />}
      </main>
      <StatusBar />
      {approvalsWaiting && <ApprovalDialog />}
      <KeyboardLayer />
      <Toasts />
    </div>
  );
}
