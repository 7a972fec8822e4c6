// Merchant accounts over HTTP (docs/merchants.md). Sign-up, sign-in and the one-time links are
// public; the rest need the session cookie (surface `account`), and writes its X-CSRF-Token.
import type { FastifyRequest } from 'fastify';
import { headerText } from '../../../platform/http/header-text.ts';
import * as service from './service.ts';

export const TAG = ['Merchant: account'];
export const PUBLIC = { auth: { surface: 'public' } } as const;
export const viewer = { auth: { surface: 'account', role: 'viewer' } } as const;
export const admin = { auth: { surface: 'account', role: 'admin' } } as const;
export const ACCEPTED = 'If the address can be used, a mail is on its way.';

export const clientOf = (request: FastifyRequest): service.ClientInfo => ({
  ip: request.ip,
  userAgent: headerText(request.headers['user-agent'], service.USER_AGENT_CHARACTERS),
});
