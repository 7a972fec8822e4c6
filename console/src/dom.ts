// A few lines of DOM building instead of a framework: h('tag', attributes, ...children).
import { formatDateTime } from './time.ts';
import { localDateTime } from '../../src/platform/lib/time-zones.ts';

export type Child = Node | string | number | null | undefined | false | Child[];
type Handler = (event: Event) => void;
export type Attributes = Record<string, string | number | boolean | Handler | null | undefined>;

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

function applyAttributes(element: Element, attributes: Attributes | null | undefined): void {
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, '').toLowerCase(), value);
    // Through the CSSOM: the console's CSP refuses style attributes in markup.
    else if (name === 'style') (element as HTMLElement).style.cssText = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes?: Attributes | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  applyAttributes(element, attributes);
  append(element, children);
  return element;
}

export function svg(tag: string, attributes?: Attributes | null, ...children: Child[]): SVGElement {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
  applyAttributes(element, attributes);
  append(element, children);
  return element;
}

export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/**
 * A table; on a phone each row becomes a card whose cells carry their column name (data-label).
 * The explicit roles keep it a table for screen readers when CSS changes its display.
 */
export function table(caption: string, headers: string[], rows: Child[][], options: { empty?: string } = {}): HTMLElement {
  if (rows.length === 0) return h('p', { class: 'empty' }, options.empty ?? 'Nothing to show.');
  return h(
    'div',
    { class: 'table-wrap', role: 'region', 'aria-label': caption, tabindex: 0 },
    h(
      'table',
      { role: 'table' },
      h('caption', { class: 'visually-hidden' }, caption),
      h(
        'thead',
        { role: 'rowgroup' },
        h(
          'tr',
          { role: 'row' },
          headers.map((text) => h('th', { scope: 'col', role: 'columnheader' }, text)),
        ),
      ),
      h(
        'tbody',
        { role: 'rowgroup' },
        rows.map((cells) =>
          h(
            'tr',
            { role: 'row' },
            cells.map((cell, i) =>
              i === 0
                ? h('th', { scope: 'row', role: 'rowheader', 'data-label': headers[i] }, cell)
                : h('td', { role: 'cell', 'data-label': headers[i] }, cell),
            ),
          ),
        ),
      ),
    ),
  );
}

export function badge(text: string, tone: 'ok' | 'warn' | 'danger' | 'neutral'): HTMLElement {
  return h('span', { class: `badge badge-${tone}` }, text);
}

/** A timestamp in the viewer's zone with its UTC offset (see time.ts); the UTC original is its title. */
export function dateTime(iso: string | null): Child {
  if (!iso) return '—';
  return h('time', { datetime: iso, title: iso }, formatDateTime(new Date(iso)));
}

/**
 * A timestamp in the merchant's zone, as its receipts print it (`2026-11-27 17:29:47 CAT`,
 * src/platform/lib/time-zones.ts); the UTC original is its title. For what a document says of
 * itself, which must read the same on its receipt whoever looks at it.
 */
export function merchantDateTime(iso: string | null, timeZone: string): Child {
  if (!iso) return '—';
  return h('time', { datetime: iso, title: iso }, localDateTime(new Date(iso), timeZone));
}

export function duration(seconds: number | null): string {
  if (seconds === null) return '—';
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

export const money = (n: number, currency = '') =>
  `${n.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 })}${currency ? ` ${currency}` : ''}`;

export function percent(rate: number | null): string {
  return rate === null ? '—' : `${(rate * 100).toFixed(rate === 1 ? 0 : 1)} %`;
}
