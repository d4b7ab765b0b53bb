/**
 * The progress line of the file tools, on stderr: bytes, percent, rate and time left. On a
 * terminal it is redrawn in place (at most 10 times a second); otherwise (a log, a pipe) it is
 * a plain line at most once every `plainEverySeconds`, and always at the end.
 */

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

const MiB = 1024 * 1024;

/** `12.0 MiB`; below 1 MiB, `512 KiB`. */
export function formatBytes(bytes: number): string {
  return bytes >= MiB ? `${(bytes / MiB).toFixed(1)} MiB` : `${Math.round(bytes / 1024)} KiB`;
}

/** `0:07`, `12:34`, `1:02:03`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const [h, m, r] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h ? `${h}:${two(m)}:${two(r)}` : `${m}:${two(r)}`;
}

/**
 * The line for `done` of `total` bytes, `seconds` after this run began, of which it moved
 * `moved` (bytes skipped because they were already there count as done, not as moved).
 */
export function progressLine(label: string, done: number, total: number, moved: number, seconds: number): string {
  const percent = total ? Math.floor((done / total) * 100) : 100;
  const rate = seconds > 0 ? moved / seconds : 0; // bytes per second
  // Under a second in, the rate says little yet.
  const left = rate > 0 && seconds >= 1 ? formatDuration((total - done) / rate) : '?';
  return `${label}: ${formatBytes(done)} of ${formatBytes(total)} (${percent}%), ${(rate / 1e6).toFixed(1)} MB/s, ${done >= total ? 'done' : `${left} left`}`;
}

export class Progress {
  private done = 0;
  private moved = 0;
  private readonly began = performance.now();
  private lastDrawn = Number.NEGATIVE_INFINITY;
  private drawnOnce = false;
  /** The count the last plain line at 100% showed. */
  private drawnDone = -1;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly output: ProgressOutput = process.stderr,
    private readonly plainEverySeconds = 5,
  ) {}

  /** Bytes that were already there (a resumed upload): done, but not moved in this run. */
  skip(bytes: number): void {
    this.done += bytes;
  }

  /** Bytes moved now; a negative count takes back bytes of a part that must be sent again. */
  add(bytes: number): void {
    this.done += bytes;
    this.moved += bytes;
    this.draw(false);
  }

  /** Draws the final line (and ends the in-place line). */
  finish(): void {
    this.draw(true);
    if (this.output.isTTY) this.output.write('\n');
  }

  private draw(force: boolean): void {
    // A plain line for the end already written (the last bytes came at once) is not written again.
    if (force && !this.output.isTTY && this.drawnDone === this.done) return;
    const now = performance.now();
    const every = this.output.isTTY ? 100 : this.plainEverySeconds * 1000;
    if (!force && this.drawnOnce && now - this.lastDrawn < every) return;
    this.lastDrawn = now;
    this.drawnOnce = true;
    if (this.done >= this.total) this.drawnDone = this.done;
    const line = progressLine(this.label, this.done, this.total, this.moved, (now - this.began) / 1000);
    this.output.write(this.output.isTTY ? `\r${line}\x1b[K` : `${line}\n`);
  }
}
