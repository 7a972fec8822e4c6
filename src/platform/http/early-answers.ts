import type { FastifyInstance } from 'fastify';

// An answer given before the request's body was read (401, 403, 413, 415, 429, a 404 route)
// must reach a client that is still sending (RFC 9112 §9.6). Closing then would make the server's
// kernel reset the connection on the next bytes the client sends, and most clients report that
// reset (EPIPE, ECONNRESET) instead of the answer they were given. So:
// - the connection is kept: Fastify asks to close it after a body it refused (`Connection:
//   close`); on a client error the header is dropped, and Node reads the rest of the body off the
//   wire and discards it, as it does for any answer given before the body was read;
// - that reading is bounded in time: a body still arriving LINGER_MS after the answer was sent is
//   cut off (the client has had that long to read its answer).

/** How long the rest of an answered request's body is read and discarded before the connection is closed. */
const LINGER_MS = 10_000;

export function registerEarlyAnswers(app: FastifyInstance, lingerMs = LINGER_MS): void {
  // Callback hooks, not async ones: they run on every answer, and most do nothing.
  // `complete` is false while a real request's body is still arriving (an injected request has none).
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.raw.complete === false && reply.statusCode >= 400 && reply.statusCode < 500 && reply.getHeader('connection') === 'close')
      reply.removeHeader('connection');
    done(null, payload);
  });
  app.addHook('onResponse', (request, _reply, done) => {
    const raw = request.raw;
    if (raw.complete === false) {
      const socket = raw.socket;
      const cutOff = setTimeout(() => {
        if (!raw.complete) socket.destroy();
      }, lingerMs);
      cutOff.unref();
      // Both listeners go once either fires: a kept connection answers request after request,
      // and a listener left on its socket per early answer would pile up there.
      const settle = () => {
        clearTimeout(cutOff);
        raw.removeListener('end', settle);
        socket.removeListener('close', settle);
      };
      raw.once('end', settle);
      socket.once('close', settle);
    }
    done();
  });
}
