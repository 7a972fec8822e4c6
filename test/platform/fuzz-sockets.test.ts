// test-runtime: long (scripts/run-tests.mjs starts it first)
// The fuzz walk of the route catalogue over real sockets, on both databases (issue 45 §4): the app
// listens on a port, and a real HTTP client (undici, kept connections) sends the same corpus and
// walks as the in-process fuzz (test/helpers/fuzz.ts), every credential kind included (a merchant
// user's session cookie with its X-CSRF-Token), with fewer random bodies and one schema mutation in
// four (the in-process walk sends them all, on the embedded database). Bodies of a
// 100 KB key or 20,000 keys, over the limit, or refused before they are read must be answered,
// never met with a reset while the client is still sending.
import { describeFuzz } from '../helpers/fuzz.ts';

describeFuzz('over sockets', { randomBodiesPerRoute: 5, mutationsSentOneIn: 4 });
