/** Small shared pieces: a modal dialog (native <dialog>), the live region, the toast with its action. */
import { signal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../messages';

/** What screen readers hear: progress, results, outcomes. */
export const announcement = signal('');
export const announce = (text: string) => {
  announcement.value = '';
  queueMicrotask(() => (announcement.value = text));
};

export function LiveRegion() {
  return (
    <div class="visually-hidden" role="status" aria-live="polite">
      {announcement.value}
    </div>
  );
}

export const toast = signal<{ text: string; action?: { label: string; run(): void } } | undefined>(undefined);
let toastTimer: ReturnType<typeof setTimeout> | undefined;
export function showToast(text: string, action?: { label: string; run(): void }) {
  clearTimeout(toastTimer);
  toast.value = action ? { text, action } : { text };
  announce(text);
  toastTimer = setTimeout(() => (toast.value = undefined), 10_000);
}

export function Toast() {
  const current = toast.value;
  if (!current) return null;
  return (
    <div class="toast">
      <span>{current.text}</span>
      {current.action && (
        <button
          type="button"
          onClick={() => {
            toast.value = undefined;
            current.action!.run();
          }}
        >
          {current.action.label}
        </button>
      )}
    </div>
  );
}

export function Dialog(props: { title: string; onClose(): void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement as HTMLElement | null;
    dialog.showModal();
    return () => opener?.focus?.();
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby="dialog-title"
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
    >
      <h2 id="dialog-title">{props.title}</h2>
      {props.children}
      <button type="button" class="dialog-close" onClick={props.onClose}>
        {t.close}
      </button>
    </dialog>
  );
}

/** A one-field form in a dialog: a name for a new folder, a rename... */
export function PromptDialog(props: {
  title: string;
  label: string;
  initial?: string;
  submit: string;
  onSubmit(value: string): void;
  onClose(): void;
}) {
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const value = (new FormData(event.currentTarget).get('value') as string).trim();
          if (value) props.onSubmit(value);
        }}
      >
        <label>
          {props.label}
          <input name="value" required value={props.initial ?? ''} autoFocus />
        </label>
        <button type="submit">{props.submit}</button>
      </form>
    </Dialog>
  );
}

export function ErrorText(props: { error: unknown }) {
  if (!props.error) return null;
  return (
    <p role="alert" class="error">
      {t.error(props.error instanceof Error ? props.error.message : String(props.error))}
    </p>
  );
}
