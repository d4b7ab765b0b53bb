/**
 * A search snippet as pieces of plain text, marked where the service's highlights cover them.
 * Highlights are `[start, end)` offsets in UTF-16 code units (API section 13); they are clamped,
 * sorted and merged here, so an offset out of range or overlapping another can neither throw nor
 * repeat text. The pieces are rendered as text nodes and <mark> elements, never as HTML.
 */
export interface Piece {
  text: string;
  mark: boolean;
}

export function highlightPieces(text: string, highlights: readonly (readonly number[])[]): Piece[] {
  const clamp = (n: number) => Math.max(0, Math.min(Math.trunc(n) || 0, text.length));
  const ranges = highlights
    .map(([start = 0, end = 0]) => [clamp(start), clamp(end)] as const)
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0]);
  const pieces: Piece[] = [];
  let at = 0;
  for (const [from, end] of ranges) {
    const start = Math.max(from, at);
    if (end <= start) continue;
    if (start > at) pieces.push({ text: text.slice(at, start), mark: false });
    const last = pieces.at(-1);
    if (last?.mark && start === at) last.text += text.slice(start, end);
    else pieces.push({ text: text.slice(start, end), mark: true });
    at = end;
  }
  if (at < text.length) pieces.push({ text: text.slice(at), mark: false });
  return pieces;
}
