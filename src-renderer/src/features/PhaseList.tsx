import { useState, type DragEvent, type KeyboardEvent } from 'react';
import { Icon } from '../components/Icon';
import { plural } from '../lib/format';
import { addPhase, missingPhasesReason, movePhase, parsePhaseLayout, removePhase, renamePhase } from './spec-phases';

/** The drag payload's type: only a phase of this list can be dropped on it. */
const DRAG_TYPE = 'application/x-flightdeck-phase';

/**
 * The development phases, edited in place: rename, reorder (buttons, Alt+Up/Down, or drag),
 * add, remove. Every change rewrites the design spec's `### Phase N:` sections, so the spec
 * that is approved and the phases the run follows cannot disagree. Review and verify always
 * follow and are shown as such.
 */
export function PhaseList({ spec, onChange, readOnly }: { spec: string; onChange(spec: string): void; readOnly: boolean }) {
  const phases = parsePhaseLayout(spec).phases;
  const missing = missingPhasesReason(spec);
  const [adding, setAdding] = useState('');
  const [dragging, setDragging] = useState<number | null>(null);
  const [over, setOver] = useState<number | null>(null);

  const move = (from: number, to: number) => {
    onChange(movePhase(spec, from, to));
    // Keep the keyboard on the moved phase's handle, now at its new place.
    requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-testid="phase-item"][data-index="${to}"] [data-phase-handle]`)?.focus());
  };

  const onKey = (e: KeyboardEvent, i: number) => {
    if (!e.altKey || (e.key !== 'ArrowUp' && e.key !== 'ArrowDown')) return;
    e.preventDefault();
    const to = e.key === 'ArrowUp' ? i - 1 : i + 1;
    if (to >= 0 && to < phases.length) move(i, to);
  };

  const onDrop = (e: DragEvent, to: number) => {
    e.preventDefault();
    const from = Number(e.dataTransfer.getData(DRAG_TYPE));
    setDragging(null);
    setOver(null);
    if (Number.isInteger(from) && from !== to) move(from, to);
  };

  return (
    <section className="panel phase-list" aria-label="Development phases" data-testid="phase-list">
      <div className="panel-head">
        <h3>Development phases</h3>
        <span className="muted small">Changes here rewrite the design spec&apos;s phase sections.</span>
      </div>
      {missing && (
        <div className="notice notice-warn" role="status" data-testid="no-phases">
          <Icon name="alert" size={16} />
          <div>
            <strong>This design spec has no development phases.</strong> {missing} Nothing is guessed from other headings: add phases here, or ask the
            Planner for them with a comment and Request changes. A plan needs at least one before it can be approved.
          </div>
        </div>
      )}
      <ol className="phases">
        {phases.map((p, i) => (
          <li
            key={`${i}-${p.name}`}
            className={`phase-item ${dragging === i ? 'dragging' : ''} ${over === i && dragging !== i ? 'drop-target' : ''}`}
            data-testid="phase-item"
            data-index={i}
            draggable={!readOnly}
            onDragStart={(e) => {
              e.dataTransfer.setData(DRAG_TYPE, String(i));
              e.dataTransfer.effectAllowed = 'move';
              setDragging(i);
            }}
            onDragEnd={() => {
              setDragging(null);
              setOver(null);
            }}
            onDragOver={(e) => {
              if (!e.dataTransfer.types.includes(DRAG_TYPE)) return;
              e.preventDefault();
              setOver(i);
            }}
            onDrop={(e) => onDrop(e, i)}
          >
            <span className="phase-handle" tabIndex={readOnly ? -1 : 0} role="button" aria-label={`Phase ${i + 1}: ${p.name}. Alt+Up or Alt+Down moves it`} onKeyDown={(e) => onKey(e, i)} data-phase-handle>
              <Icon name="more" size={14} />
            </span>
            <span className="phase-number">{i + 1}</span>
            <PhaseName name={p.name} readOnly={readOnly} onRename={(name) => onChange(renamePhase(spec, i, name))} />
            <span className="muted small phase-lines">{plural(p.body.filter((l) => l.trim() !== '').length, 'line')}</span>
            {!readOnly && (
              <span className="phase-buttons">
                <button className="icon-button" aria-label={`Move ${p.name} up`} disabled={i === 0} onClick={() => move(i, i - 1)} data-testid="phase-up">
                  ↑
                </button>
                <button className="icon-button" aria-label={`Move ${p.name} down`} disabled={i === phases.length - 1} onClick={() => move(i, i + 1)} data-testid="phase-down">
                  ↓
                </button>
                <button className="icon-button danger" aria-label={`Remove ${p.name}`} onClick={() => onChange(removePhase(spec, i))} data-testid="phase-remove">
                  <Icon name="x" size={14} />
                </button>
              </span>
            )}
          </li>
        ))}
        {['review', 'verify'].map((name) => (
          <li key={name} className="phase-item phase-fixed" aria-label={`${name}, always run`}>
            <span className="phase-handle" aria-hidden />
            <span className="phase-number">·</span>
            <span className="mono">{name}</span>
            <span className="muted small">always added</span>
          </li>
        ))}
      </ol>
      {!readOnly && (
        <form
          className="input-row phase-add"
          onSubmit={(e) => {
            e.preventDefault();
            if (adding.trim() === '') return;
            onChange(addPhase(spec, adding));
            setAdding('');
          }}
        >
          <input className="input" value={adding} onChange={(e) => setAdding(e.target.value)} placeholder="New phase name" aria-label="New phase name" data-testid="phase-add-input" />
          <button type="submit" className="button" disabled={adding.trim() === ''} data-testid="phase-add">
            <Icon name="plus" /> Add phase
          </button>
        </form>
      )}
    </section>
  );
}

/** A phase's name, renamed on Enter or when the field is left; Escape puts the old name back. */
function PhaseName({ name, readOnly, onRename }: { name: string; readOnly: boolean; onRename(name: string): void }) {
  const [value, setValue] = useState(name);
  const commit = () => {
    if (value.trim() === '') setValue(name);
    else if (value !== name) onRename(value);
  };
  return (
    <input
      className="input phase-name mono"
      value={value}
      readOnly={readOnly}
      onChange={(e) => setValue(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => {
        if (e.key === 'Enter') {
          e.preventDefault();
          commit();
        } else if (e.key === 'Escape') {
          e.stopPropagation();
          setValue(name);
        }
      }}
      aria-label="Phase name"
      data-testid="phase-name"
    />
  );
}
