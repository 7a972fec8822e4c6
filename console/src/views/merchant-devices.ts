// The merchant's devices, one per branch: register one, initialise it with its VSDC, and while it
// is not initialised correct its VSDC address or serial, or remove it. In development the gateway's
// built-in VSDC simulator is offered as the address; a failed initialisation says which address was
// tried, why it failed, and leads to "Correct device".
import { ApiProblem } from '../api.ts';
import { badge, dateTime, h, table } from '../dom.ts';
import type { Device } from '../types.ts';
import { canWrite, confirmAction, errorBox, field, formMessage, heading, problemMessage, type ViewContext } from '../view.ts';
import { htmlPattern, merchantAuthority, protocolLabel, type Authority } from '../authority.ts';

const BASE = '/api/v1/account/devices';

/** The devices list: the devices, and in development the built-in simulator's address. */
interface AccountDevices {
  data: Device[];
  builtinSimulatorUrl?: string | null;
}

/** In development: the built-in simulator's address, offered with a button that puts it in `url`. */
function simulatorOffer(simulatorUrl: string | null, url: HTMLInputElement, testId: string): HTMLElement | null {
  if (!simulatorUrl) return null;
  return h(
    'div',
    { class: 'notice notice-dev', 'data-testid': testId },
    h(
      'p',
      null,
      'Development: this gateway runs a built-in VSDC simulator at ',
      h('code', null, simulatorUrl),
      '. Register a device on it to try the console and the API; any serial works there.',
    ),
    h(
      'button',
      {
        type: 'button',
        onclick: () => {
          url.value = simulatorUrl;
          url.focus();
        },
      },
      'Use the built-in simulator',
    ),
  );
}

function protocolCell(device: Device) {
  const { code, words } = protocolLabel(device.protocol);
  return h('span', { class: 'stack' }, h('span', { class: 'mono' }, code), words ? h('small', null, words) : null);
}

function stateCell(device: Device) {
  if (!device.initialized) return h('span', { class: 'stack' }, badge('Not initialised', 'warn'), h('small', null, 'Cannot file yet'));
  return h(
    'span',
    { class: 'stack' },
    badge('Initialised', 'ok'),
    h('small', null, 'Since ', dateTime(device.initializedAt)),
    device.nextInvoiceNo !== null ? h('small', null, `Next invoice no. ${device.nextInvoiceNo}`) : null,
  );
}

/** The correction form of a device not yet initialised, and how to open it from elsewhere (a failure). */
function correctForm(ctx: ViewContext, device: Device, simulatorUrl: string | null): { element: HTMLElement; open(): void } {
  const details = h('details', { class: 'inline-form' });
  const url = h('input', { type: 'url', value: device.vsdcBaseUrl, required: true, maxlength: '500' }) as HTMLInputElement;
  const serial = h('input', { type: 'text', value: device.deviceSerial, required: true, maxlength: '100' }) as HTMLInputElement;
  const message = formMessage(`correct-message-${device.branch}`);
  details.append(
    h('summary', null, `Correct device of branch ${device.branch}`),
    h(
      'form',
      {
        onsubmit: async (e: Event) => {
          e.preventDefault();
          try {
            const body: Record<string, string> = {};
            if (url.value.trim() !== device.vsdcBaseUrl) body.vsdcBaseUrl = url.value.trim();
            if (serial.value.trim() !== device.deviceSerial) body.deviceSerial = serial.value.trim();
            if (Object.keys(body).length === 0) {
              message.error('Nothing changed.');
              return;
            }
            await ctx.api.patchJson(`${BASE}/${device.branch}`, body);
            ctx.announce(`Device of branch ${device.branch} corrected.`);
            ctx.refreshStanding();
          } catch (err) {
            message.error(err);
          }
        },
      },
      field(`correct-url-${device.branch}`, 'VSDC address', url),
      simulatorOffer(simulatorUrl, url, `correct-simulator-${device.branch}`),
      field(`correct-serial-${device.branch}`, 'Device serial', serial),
      message.element,
      h('button', { type: 'submit', class: 'primary' }, 'Save'),
    ),
  );
  return {
    element: details,
    open() {
      details.open = true;
      url.focus();
      url.select();
    },
  };
}

/**
 * Why an initialisation failed: the gateway's message (it names the address tried and the cause,
 * or the authority's answer), the address, and the way out: Correct device.
 */
function initFailure(device: Device, err: unknown, correct: { open(): void }): HTMLElement {
  const code = err instanceof ApiProblem ? err.code : undefined;
  const correctable = code === 'vsdc_unreachable' || code === 'initialization_failed';
  return h(
    'div',
    { class: 'notice notice-danger', role: 'alert', 'data-testid': `init-failure-${device.branch}` },
    h('p', null, h('strong', null, `Branch ${device.branch} was not initialised. `), problemMessage(err)),
    correctable
      ? [
          h('p', null, 'Address tried: ', h('code', null, device.vsdcBaseUrl), ' · serial ', h('code', null, device.deviceSerial)),
          h('button', { type: 'button', class: 'primary', onclick: () => correct.open() }, 'Correct device'),
        ]
      : null,
  );
}

function actionsCell(ctx: ViewContext, device: Device, message: ReturnType<typeof formMessage>, simulatorUrl: string | null) {
  if (device.initialized) return h('small', { class: 'muted' }, 'Initialised devices keep their address and serial.');
  const correct = correctForm(ctx, device, simulatorUrl);
  const failure = h('div', { 'aria-live': 'polite' });
  const initialise: HTMLButtonElement = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      onclick: async () => {
        initialise.disabled = true;
        initialise.textContent = 'Initialising…';
        failure.replaceChildren();
        try {
          await ctx.api.post(`${BASE}/${device.branch}/initialize`);
          ctx.announce(`Branch ${device.branch} initialised.`);
          ctx.refreshStanding();
        } catch (err) {
          failure.replaceChildren(initFailure(device, err, correct));
          initialise.disabled = false;
          initialise.textContent = `Initialise branch ${device.branch}`;
        }
      },
    },
    `Initialise branch ${device.branch}`,
  );
  return h(
    'div',
    { class: 'stack actions' },
    initialise,
    failure,
    correct.element,
    confirmAction(
      `Remove device of branch ${device.branch}`,
      `Remove the device of branch ${device.branch}?`,
      'Yes, remove it',
      async () => {
        try {
          await ctx.api.delete(`${BASE}/${device.branch}`);
          ctx.announce(`Device of branch ${device.branch} removed.`);
          ctx.refreshStanding();
        } catch (err) {
          message.error(err);
        }
      },
    ),
  );
}

function registerForm(ctx: ViewContext, taken: string[], simulatorUrl: string | null, form: Authority['branch']): HTMLElement {
  // The first branch id free in the authority's form (000, 001… for ZRA; 00, 01… for KRA).
  const width = form.headquarters.length;
  const free = Array.from({ length: 10 ** width }, (_, i) => String(i).padStart(width, '0')).find((b) => !taken.includes(b)) ?? '';
  const serial = h('input', { type: 'text', required: true, maxlength: '100', autocomplete: 'off' }) as HTMLInputElement;
  const branch = h('input', {
    type: 'text',
    required: true,
    pattern: htmlPattern(form.pattern),
    maxlength: String(width),
    inputmode: 'numeric',
    value: free,
  }) as HTMLInputElement;
  const url = h('input', { type: 'url', required: true, maxlength: '500', placeholder: 'http://192.0.2.10:8080' }) as HTMLInputElement;
  const message = formMessage('register-message');
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Register the device') as HTMLButtonElement;
  return h(
    'form',
    {
      class: 'card wide',
      'aria-labelledby': 'register-title',
      onsubmit: async (e: Event) => {
        e.preventDefault();
        submit.disabled = true;
        try {
          await ctx.api.postJson(BASE, { deviceSerial: serial.value.trim(), branch: branch.value.trim(), vsdcBaseUrl: url.value.trim() });
          ctx.announce(`Device of branch ${branch.value.trim()} registered. Initialise it next.`);
          ctx.refreshStanding();
        } catch (err) {
          message.error(err);
          submit.disabled = false;
        }
      },
    },
    h('h2', { id: 'register-title' }, 'Register a device'),
    h(
      'p',
      { class: 'muted' },
      'The VSDC of a branch: its serial number, the branch id the authority gave it, and the address the gateway reaches it at.',
    ),
    field('device-serial', 'Device serial', serial),
    field('device-branch', 'Branch', branch, `${form.words}; ${form.headquarters} is headquarters.`),
    field(
      'device-url',
      'VSDC address',
      url,
      "http(s)://host:port, with its context path if it has one: where the gateway reaches the branch's VSDC (ask whoever installed it).",
    ),
    simulatorOffer(simulatorUrl, url, 'register-simulator'),
    message.element,
    submit,
  );
}

export async function devicesView(ctx: ViewContext) {
  const writer = canWrite(ctx);
  const head = heading('Devices', h('button', { type: 'button', onclick: ctx.refresh }, 'Refresh'));
  let listed: AccountDevices;
  let authority: Authority;
  try {
    [listed, authority] = await Promise.all([ctx.api.get<AccountDevices>(BASE), merchantAuthority(ctx.api)]);
  } catch (err) {
    return [head, errorBox(err)];
  }
  const devices = listed.data;
  const simulatorUrl = listed.builtinSimulatorUrl ?? null;
  const message = formMessage('devices-message');
  const rows = devices.map((d) => [
    h('span', { class: 'stack' }, h('span', null, d.branch), d.branchName ? h('small', null, d.branchName) : null),
    h('span', { class: 'mono' }, d.deviceSerial),
    protocolCell(d),
    h('span', { class: 'mono' }, d.vsdcBaseUrl),
    stateCell(d),
    d.sdcId ? h('span', { class: 'stack' }, h('span', { class: 'mono' }, d.sdcId), h('small', null, `MRC ${d.mrcNo ?? '—'}`)) : '—',
    ...(writer ? [actionsCell(ctx, d, message, simulatorUrl)] : []),
  ]);
  return [
    head,
    h(
      'p',
      { class: 'muted' },
      "A branch files through its device once it is initialised: the VSDC then gives its SDC id and counters, and the gateway numbers the branch's invoices after them.",
    ),
    h('p', { 'data-testid': 'devices-authority' }, 'Tax authority: ', h('strong', null, authority.name), '.'),
    message.element,
    table('Devices', ['Branch', 'Serial', 'Protocol', 'VSDC address', 'State', 'SDC id', ...(writer ? ['Actions'] : [])], rows, {
      empty: 'No device yet.',
    }),
    writer
      ? registerForm(
          ctx,
          devices.map((d) => d.branch),
          simulatorUrl,
          authority.branch,
        )
      : h('p', { class: 'muted' }, 'Viewers see the devices; an owner or admin registers and initialises them.'),
  ];
}
