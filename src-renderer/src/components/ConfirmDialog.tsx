import type { ReactNode } from 'react';
import { Modal } from './Modal';

/** "Are you sure?" for what cannot be taken back; the safe button has focus, Ctrl/Cmd+Enter confirms. */
export function ConfirmDialog({ title, children, confirmLabel, onConfirm, onCancel }: { title: string; children: ReactNode; confirmLabel: string; onConfirm(): void; onCancel(): void }) {
  return (
    <Modal
      title={title}
      onClose={onCancel}
      onSubmit={onConfirm}
      testId="confirm-dialog"
      footer={
        <>
          <button className="button" onClick={onCancel} data-autofocus>
            Cancel
          </button>
          <button className="button danger" onClick={onConfirm} data-testid="confirm">
            {confirmLabel}
          </button>
        </>
      }
    >
      <div className="confirm-text">{children}</div>
    </Modal>
  );
}
