/**
 * A listbox that renders only the rows in view (fixed row height), so 10,000 items scroll as
 * fast as 50. Focus stays on the list; the active row is `aria-activedescendant`, kept in view.
 * Keys: arrows, Home/End, Shift+arrows extend the selection, Ctrl+Space toggles, Enter opens,
 * Delete and F2 act on the selection.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export const ROW_HEIGHT = 40;
const OVERSCAN = 8;

export interface VirtualListProps<T> {
  items: T[];
  keyOf(item: T): string;
  label: string;
  row(item: T, selected: boolean): ComponentChildren;
  onOpen(item: T): void;
  onDelete?(items: T[]): void;
  onRename?(item: T): void;
}

export function VirtualList<T>(props: VirtualListProps<T>) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);
  const [active, setActive] = useState(0);
  const [anchor, setAnchor] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const { items } = props;
  const activeIndex = Math.min(active, Math.max(items.length - 1, 0));

  useEffect(() => {
    const element = ref.current!;
    const observer = new ResizeObserver(() => setHeight(element.clientHeight));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const moveTo = (index: number, extend: boolean) => {
    const next = Math.max(0, Math.min(items.length - 1, index));
    setActive(next);
    if (extend) {
      const [from, to] = anchor < next ? [anchor, next] : [next, anchor];
      setSelected(new Set(items.slice(from, to + 1).map(props.keyOf)));
    } else {
      setAnchor(next);
      setSelected(new Set(items[next] ? [props.keyOf(items[next])] : []));
    }
    const element = ref.current!;
    const top = next * ROW_HEIGHT;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + ROW_HEIGHT > element.scrollTop + element.clientHeight) element.scrollTop = top + ROW_HEIGHT - element.clientHeight;
  };
  const chosen = () => items.filter((item) => selected.has(props.keyOf(item)));

  const onKeyDown = (event: KeyboardEvent) => {
    const page = Math.max(1, Math.floor(height / ROW_HEIGHT) - 1);
    const current = items[activeIndex];
    const keys: Record<string, () => void> = {
      ArrowDown: () => moveTo(activeIndex + 1, event.shiftKey),
      ArrowUp: () => moveTo(activeIndex - 1, event.shiftKey),
      PageDown: () => moveTo(activeIndex + page, event.shiftKey),
      PageUp: () => moveTo(activeIndex - page, event.shiftKey),
      Home: () => moveTo(0, event.shiftKey),
      End: () => moveTo(items.length - 1, event.shiftKey),
      Enter: () => current && props.onOpen(current),
      Delete: () => {
        const list = chosen();
        if (list.length > 0) props.onDelete?.(list);
        else if (current) props.onDelete?.([current]);
      },
      F2: () => current && props.onRename?.(current),
      ' ': () => {
        if (!current || !(event.ctrlKey || event.metaKey)) return;
        const key = props.keyOf(current);
        const next = new Set(selected);
        if (next.has(key)) next.delete(key);
        else next.add(key);
        setSelected(next);
      },
    };
    const run = keys[event.key];
    if (run) {
      event.preventDefault();
      run();
    }
  };

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
  const activeItem = items[activeIndex];
  return (
    <div
      ref={ref}
      class="virtual-list"
      role="listbox"
      aria-label={props.label}
      aria-multiselectable="true"
      tabIndex={0}
      aria-activedescendant={activeItem ? `row-${props.keyOf(activeItem)}` : undefined}
      onKeyDown={onKeyDown}
      onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
    >
      <div style={{ height: `${items.length * ROW_HEIGHT}px`, position: 'relative' }}>
        {items.slice(first, last).map((item, offset) => {
          const index = first + offset;
          const key = props.keyOf(item);
          const isSelected = selected.has(key);
          return (
            // Options are not focusable by design: focus stays on the listbox, which names the active one
            // (aria-activedescendant) and handles every key (onKeyDown above).
            // biome-ignore lint/a11y/useFocusableInteractive lint/a11y/useKeyWithClickEvents: see above
            <div
              key={key}
              id={`row-${key}`}
              role="option"
              aria-selected={isSelected}
              aria-setsize={items.length}
              aria-posinset={index + 1}
              class={`row${index === activeIndex ? ' active' : ''}${isSelected ? ' selected' : ''}`}
              style={{ top: `${index * ROW_HEIGHT}px`, height: `${ROW_HEIGHT}px` }}
              onClick={(event) => {
                if (event.ctrlKey || event.metaKey) {
                  const next = new Set(selected);
                  if (next.has(key)) next.delete(key);
                  else next.add(key);
                  setSelected(next);
                  setActive(index);
                } else moveTo(index, event.shiftKey);
              }}
              onDblClick={() => props.onOpen(item)}
            >
              {props.row(item, isSelected)}
            </div>
          );
        })}
      </div>
    </div>
  );
}
