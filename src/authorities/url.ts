/**
 * Joins a device's `vsdcBaseUrl` (which may carry a context path, with or without a trailing
 * slash) and a protocol path with exactly one `/` between them.
 */
export function joinVsdcUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
