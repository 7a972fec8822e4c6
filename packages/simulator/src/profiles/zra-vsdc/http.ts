// How the ZRA VSDC's answers go over HTTP. The VSDC is a Spring app in a Tomcat (a WAR): its
// envelopes are JSON with resultDt, a body that fails binding is Spring's bare 400, a path
// outside the app is Tomcat's HTML 404.
import { formatVsdcDateTime } from '@fiscal-gateway/vsdc-protocol';
import type { HttpAnswer } from '../../core/profile.js';
import type { Reply } from './replies.js';

function tomcat404(path: string): string {
  return (
    '<!doctype html><html lang="en"><head><title>HTTP Status 404 – Not Found</title></head><body>' +
    '<h1>HTTP Status 404 – Not Found</h1><hr class="line" /><p><b>Type</b> Status Report</p>' +
    `<p><b>Message</b> The requested resource [${path.replace(/[<>&"]/g, '')}] is not available</p>` +
    '<p><b>Description</b> The origin server did not find a current representation for the target resource or is not willing to disclose that one exists.</p>' +
    '<hr class="line" /><h3>Apache Tomcat/9.0.85</h3></body></html>'
  );
}

/** Tomcat's answer to a path outside the app (or the app missing). */
export function outsideApp(path: string): HttpAnswer {
  return { status: 404, contentType: 'text/html;charset=utf-8', body: tomcat404(path) };
}

/** Spring's default error body: JSON, but no resultCd, so no envelope. */
export function springError(status: number, error: string, path: string, at: Date): HttpAnswer {
  return { status, contentType: 'application/json', body: JSON.stringify({ timestamp: at.toISOString(), status, error, path }) };
}

export function toHttp(reply: Reply, path: string, at: Date): HttpAnswer {
  switch (reply.kind) {
    case 'drop':
      return null;
    case 'html404':
      return outsideApp(path);
    case 'bad_request':
      return springError(400, 'Bad Request', path, at);
    case 'envelope':
      if (reply.loseReply) return null;
      return {
        status: 200,
        contentType: 'application/json;charset=UTF-8',
        body: JSON.stringify({ resultCd: reply.resultCd, resultMsg: reply.resultMsg, resultDt: formatVsdcDateTime(at), data: reply.data }),
      };
  }
}
