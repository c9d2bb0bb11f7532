// Platform fakes, one folder each (src/<platform>/), exported here.
export { type FakeServer, listenLocal } from "./server.js";
