import { DEFAULT_TERMINAL_FONT_SIZE, type Theme } from '../../../src-preload/contract';
import { useAppStore } from '../store';
import { AgentSettingsPanel, ProvidersPanel } from '../agents/ProvidersPanel';
import { ClaudeCodePanel } from '../coder/ClaudeCodePanel';
import { McpServersPanel } from '../mcp/McpServersPanel';
import { BudgetsPanel } from '../budgets/BudgetsPanel';
import { EnginesSettings } from '../containers/EnginesSettings';
import { TerminalRendererSetting } from '../terminals/TerminalSettings';

const THEMES: Array<{ value: Theme; label: string }> = [
  { value: 'system', label: 'System' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

export function SettingsView() {
  const settings = useAppStore((s) => s.settings);
  const info = useAppStore((s) => s.info);
  const update = useAppStore((s) => s.updateSettings);
  return (
    <section className="view" data-testid="settings-view">
      <header className="view-header">
        <div>
          <h1>Settings</h1>
          <p className="muted">Saved in the data folder; the desktop app, browser mode and the CLI share them.</p>
        </div>
      </header>
      <div className="panel">
        <h3>Appearance</h3>
        <div className="setting-row">
          <div>
            <strong>Theme</strong>
            <p className="muted small">System follows your operating system's light or dark mode.</p>
          </div>
          <div className="segmented" role="radiogroup" aria-label="Theme">
            {THEMES.map((t) => (
              <button
                key={t.value}
                role="radio"
                aria-checked={settings?.theme === t.value}
                className={settings?.theme === t.value ? 'active' : ''}
                onClick={() => void update({ theme: t.value })}
              >
                {t.label}
              </button>
            ))}
          </div>
        </div>
        <div className="setting-row">
          <div>
            <strong>Terminal font size</strong>
            <p className="muted small">Used by every terminal view.</p>
          </div>
          <input
            type="number"
            className="input narrow"
            min={8}
            max={32}
            value={settings?.terminalFontSize ?? DEFAULT_TERMINAL_FONT_SIZE}
            onChange={(e) => {
              const n = Number(e.target.value);
              if (Number.isInteger(n) && n >= 8 && n <= 32) void update({ terminalFontSize: n });
            }}
          />
        </div>
        <TerminalRendererSetting />
      </div>
      <ProvidersPanel />
      <AgentSettingsPanel />
      <ClaudeCodePanel />
      <McpServersPanel />
      <BudgetsPanel />
      <EnginesSettings />
      <div className="panel">
        <h3>Data</h3>
        <div className="setting-row">
          <div>
            <strong>Data folder</strong>
            <p className="muted small">
              The database of projects, sessions and event logs. Choose another with <code>--data-dir</code> or <code>FLIGHTDECK_DATA_DIR</code>.
            </p>
          </div>
          <code className="pill mono" data-testid="data-dir">
            {info?.dataDir ?? '…'}
          </code>
        </div>
      </div>
      <div className="panel">
        <h3>About</h3>
        <dl className="facts">
          <dt>Version</dt>
          <dd>{info?.version ?? '…'}</dd>
          <dt>Running as</dt>
          <dd>{info ? (info.runtime === 'electron' ? 'Desktop app (Electron)' : 'Browser mode') : '…'}</dd>
          <dt>Platform</dt>
          <dd>{info?.platform ?? '…'}</dd>
        </dl>
      </div>
    </section>
  );
}
