// The accountant's export: every document of a date range, one row per line, as CSV or XLSX,
// downloaded by the browser straight from the API (streamed, any size).
import { query } from '../api.ts';
import { h } from '../dom.ts';
import { heading, type ViewContext } from '../view.ts';
import { branchesOf, branchLabel, today } from './merchant-common.ts';

export async function exportView(ctx: ViewContext) {
  const branches = await branchesOf(ctx.api);
  const from = h('input', { type: 'date', id: 'export-from', value: `${today().slice(0, 8)}01`, required: true }) as HTMLInputElement;
  const to = h('input', { type: 'date', id: 'export-to', value: today(), required: true }) as HTMLInputElement;
  const branch = h(
    'select',
    { id: 'export-branch' },
    h('option', { value: '' }, 'All branches'),
    branches.map((b) => h('option', { value: b.branch }, branchLabel(b))),
  ) as HTMLSelectElement;
  const format = h(
    'select',
    { id: 'export-format' },
    h('option', { value: 'csv' }, 'CSV (UTF-8, comma-separated)'),
    h('option', { value: 'xlsx' }, 'Excel workbook (XLSX)'),
  ) as HTMLSelectElement;
  const link = h('a', { class: 'button-link primary-link', 'data-testid': 'export-link', download: '' }, 'Download') as HTMLAnchorElement;
  const note = h('p', { class: 'muted', 'aria-live': 'polite' });
  const update = () => {
    const ok = from.value && to.value && from.value <= to.value;
    link.href = `/api/v1/exports/documents${query({ from: from.value, to: to.value, format: format.value, branch: branch.value || undefined })}`;
    link.setAttribute('download', `documents-${from.value}-to-${to.value}.${format.value}`);
    link.setAttribute('aria-disabled', ok ? 'false' : 'true');
    note.textContent = ok
      ? `Documents from ${from.value} to ${to.value}${branch.value ? `, branch ${branch.value}` : ''}, every status, one row per line.`
      : 'Choose a “from” day on or before the “to” day.';
  };
  for (const control of [from, to, branch, format]) control.addEventListener('change', update);
  update();
  const labelled = (control: HTMLElement, label: string) => h('div', { class: 'field' }, h('label', { for: control.id }, label), control);
  return [
    heading('Export'),
    h(
      'p',
      null,
      "For your accountant: every document whose day (in your merchant's time zone) falls in the range, one row per line, with the authority's invoice and receipt numbers. At most 92 days at a time: export a year in quarters.",
    ),
    h(
      'div',
      { class: 'card wide export-form' },
      labelled(from, 'From'),
      labelled(to, 'To'),
      labelled(branch, 'Branch'),
      labelled(format, 'Format'),
      note,
      link,
    ),
    h(
      'p',
      { class: 'muted' },
      'The file is streamed as it is read, so a large range starts at once and takes as long as it takes. A bad range is answered with a message instead of a file.',
    ),
  ];
}
