// Response serializers (fast-json-stringify, Fastify's own) compiled on a route's first answer
// with each status, not at start: compiling every route's response schemas took about a
// seventh of the start-up time, most of it for answers a process may never give.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

const compileNow = SerializerSelector();

export const lazySerializers: SerializerFactory = (externalSchemas, options) => {
  const compile = compileNow(externalSchemas, options);
  return (route) => {
    let serialize: ((doc: unknown) => string) | undefined;
    return (doc) => (serialize ??= compile(route))(doc);
  };
};
