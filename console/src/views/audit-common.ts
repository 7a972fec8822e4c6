// What the merchant's audit trail and the operator's audit log share: the action picker, from the
// gateway's own list of audit actions, and a record's details as readable text.
import { AUDIT_FAMILIES } from '../../../src/domain/kernel/audit/actions.ts';
import { h } from '../dom.ts';

/**
 * A select of the families (`token.`: every token action) and, with `actions`, each action under
 * its family. A value from the URL that is not in the list stays selectable, as typed.
 */
export function actionSelect(id: string, current: string, options: { merchantTrail: boolean; actions: boolean }): HTMLSelectElement {
  const families = AUDIT_FAMILIES.filter((f) => !options.merchantTrail || f.merchantTrail);
  const known = families.some((f) => f.prefix === current || (options.actions && (f.actions as readonly string[]).includes(current)));
  const option = (value: string, label: string) => h('option', { value, selected: current === value }, label);
  return h(
    'select',
    { id, name: 'action' },
    option('', 'Every action'),
    options.actions
      ? families.map((f) =>
          h(
            'optgroup',
            { label: f.label },
            option(f.prefix, `${f.label}: every action`),
            f.actions.map((a) => option(a, a)),
          ),
        )
      : families.map((f) => option(f.prefix, f.label)),
    current && !known ? h('option', { value: current, selected: true }, current) : null,
  ) as HTMLSelectElement;
}

/** `partnerId` → `partner id`. */
const words = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/_/g, ' ')
    .toLowerCase();

function valueText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (Array.isArray(value)) return value.length ? value.map(valueText).join(', ') : 'none';
  if (typeof value === 'object')
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${words(k)} ${valueText(v)}`)
      .join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

/** A record's details as a list of "name: value" lines; '—' when there are none. */
export function detailsList(details: Record<string, unknown>): HTMLElement | string {
  const entries = Object.entries(details);
  if (entries.length === 0) return '—';
  return h(
    'dl',
    { class: 'audit-details' },
    entries.map(([key, value]) => h('div', null, h('dt', null, `${words(key)}:`), ' ', h('dd', null, valueText(value)))),
  );
}
