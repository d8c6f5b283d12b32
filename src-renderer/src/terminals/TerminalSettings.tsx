import { useAppStore } from '../store';

/** The terminal rendering preference, shown in Settings next to the font size. */
export function TerminalRendererSetting() {
  const gpu = useAppStore((s) => s.terminalGpu);
  const setGpu = useAppStore((s) => s.setTerminalGpu);
  const options = [
    { value: 'auto' as const, label: 'GPU when available' },
    { value: 'off' as const, label: 'Compatible' },
  ];
  return (
    <div className="setting-row">
      <div>
        <strong>Terminal rendering</strong>
        <p className="muted small">Visible terminals draw with WebGL when this browser offers it. Choose Compatible if text looks wrong or the GPU is unreliable: every terminal then draws as plain page text.</p>
      </div>
      <div className="segmented" role="radiogroup" aria-label="Terminal rendering">
        {options.map((o) => (
          <button key={o.value} role="radio" aria-checked={gpu === o.value} className={gpu === o.value ? 'active' : ''} onClick={() => setGpu(o.value)}>
            {o.label}
          </button>
        ))}
      </div>
    </div>
  );
}
