// `@agentsvc/testkit/server`: a project served by the real agentsvc server, for end-to-end tests.
export { type ProjectServer, type ProjectServerOptions, startProjectServer } from "./project-server.js";
