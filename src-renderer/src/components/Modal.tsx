import { useRef, type KeyboardEvent, type ReactNode } from 'react';
import { Icon } from './Icon';
import { isSubmitChord, useFocusTrap } from './use-focus-trap';

/**
 * A dialog: focus stays inside while it is open, Escape closes it, Ctrl/Cmd+Enter submits it
 * (`onSubmit`, else its form), and a click on the backdrop closes it.
 */
export function Modal({
  title,
  onClose,
  onSubmit,
  children,
  footer,
  testId,
  className,
}: {
  title: string;
  onClose(): void;
  onSubmit?: () => void;
  children: ReactNode;
  footer?: ReactNode;
  testId?: string;
  className?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useFocusTrap(ref);
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onClose();
    } else if (isSubmitChord(e)) {
      // Without an explicit action, the dialog's form is submitted as its submit button would.
      const form = ref.current?.querySelector('form');
      if (!onSubmit && !form) return;
      e.preventDefault();
      if (onSubmit) onSubmit();
      else form!.requestSubmit();
    }
  };
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className={`modal ${className ?? ''}`} role="dialog" aria-modal="true" aria-label={title} ref={ref} data-testid={testId} tabIndex={-1} onKeyDown={onKey}>
        <header className="modal-header">
          <h2>{title}</h2>
          <button className="icon-button" aria-label="Close" onClick={onClose}>
            <Icon name="x" />
          </button>
        </header>
        <div className="modal-body">{children}</div>
        {footer && <footer className="modal-footer">{footer}</footer>}
      </div>
    </div>
  );
}
