// test-database: embedded only (scripts/run-tests.mjs): the embedded database is PostgreSQL too (the same parser, types and errors), so bad input reaches SQL the same way on both; the walk over real sockets (fuzz-sockets.test.ts) runs on both engines.
// test-runtime: long (scripts/run-tests.mjs starts it first)
// The fuzz walk of the route catalogue, injected in process: the full corpus, schema mutations and
// 25 random bodies per route (test/helpers/fuzz.ts says what every answer must be).
import { describeFuzz } from '../helpers/fuzz.ts';

describeFuzz('in process', { randomBodiesPerRoute: 25, mutationsSentOneIn: 1 });
