import { ConfigError } from '../config.ts';

/**
 * A listen that failed because the port is taken (or not this user's to take) is a problem with
 * the configuration: one line naming the variable, exit 3, instead of a stack trace. Any other
 * failure gives undefined (rethrow it).
 */
export function portProblem(err: unknown, variable: string, host: string, port: number, remedy: string): ConfigError | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (code === 'EADDRINUSE') return new ConfigError(variable, `${where} is already in use by another process; ${remedy}`);
  if (code === 'EACCES')
    return new ConfigError(variable, `${where} may not be opened by this user (ports below 1024 need privileges); ${remedy}`);
  return undefined;
}
