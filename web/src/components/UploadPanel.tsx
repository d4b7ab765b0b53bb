/** The upload panel: one row per file with progress, rate and time left, and its controls; the clash question. */
import { useState } from 'preact/hooks';
import { formatDuration, formatSize } from '../format';
import { t } from '../messages';
import { clashQuestion, uploads } from '../upload/queue';
import type { FileUpload } from '../upload/uploader';
import { Dialog } from './ui';

function Row(props: { upload: FileUpload }) {
  const { upload } = props;
  const s = upload.state.value;
  const percent = s.total ? Math.floor((s.done / s.total) * 100) : 100;
  const status =
    s.status === 'sending'
      ? t.uploadProgress(
          formatSize(s.done),
          formatSize(s.total),
          percent,
          formatSize(s.rate),
          s.rate > 0 ? formatDuration((s.total - s.done) / s.rate) : '?',
        )
      : s.status === 'done'
        ? t.uploadDone
        : s.status === 'paused'
          ? t.uploadPaused
          : s.status === 'failed'
            ? t.uploadFailed(s.error ?? '')
            : s.status === 'cancelled'
              ? t.uploadCancelled
              : t.uploadQueued;
  return (
    <li>
      <span class="name">{upload.label}</span>
      <progress max={100} value={percent} aria-label={upload.label} />
      <span class="status" data-status={s.status}>
        {status}
      </span>
      {s.status === 'sending' && (
        <button type="button" aria-label={`${t.pause} ${upload.label}`} onClick={() => upload.pause()}>
          {t.pause}
        </button>
      )}
      {(s.status === 'paused' || s.status === 'failed') && (
        <button
          type="button"
          aria-label={`${s.status === 'paused' ? t.resume : t.retry} ${upload.label}`}
          onClick={() => void upload.run()}
        >
          {s.status === 'paused' ? t.resume : t.retry}
        </button>
      )}
      {(s.status === 'sending' || s.status === 'paused' || s.status === 'failed') && (
        <button type="button" aria-label={`${t.cancel} ${upload.label}`} onClick={() => void upload.cancel()}>
          {t.cancel}
        </button>
      )}
    </li>
  );
}

export function UploadPanel() {
  const list = uploads.value;
  const question = clashQuestion.value;
  const [applyToAll, setApplyToAll] = useState(false);
  return (
    <>
      {list.length > 0 && (
        <section class="upload-panel" aria-labelledby="uploads-title">
          <h2 id="uploads-title">{t.uploads}</h2>
          <ul>
            {list.map((upload, i) => (
              <Row key={i} upload={upload} />
            ))}
          </ul>
        </section>
      )}
      {question && (
        <Dialog title={t.clashTitle(question.name)} onClose={() => question.answer('skip', false)}>
          <label class="checkbox">
            <input type="checkbox" checked={applyToAll} onChange={(e) => setApplyToAll(e.currentTarget.checked)} />
            {t.applyToAll}
          </label>
          <div class="actions">
            <button type="button" onClick={() => question.answer('replace', applyToAll)}>
              {t.replace}
            </button>
            <button type="button" onClick={() => question.answer('keep-both', applyToAll)}>
              {t.keepBoth}
            </button>
            <button type="button" onClick={() => question.answer('skip', applyToAll)}>
              {t.skip}
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}
